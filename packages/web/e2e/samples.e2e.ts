import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { StudioRecord } from '@studio/schema';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, makerInNewTeam } from './api';
import { countPixels, countPngPixels, waitMapReady } from './pixels';

const browser = useBrowser();

/** The layers' colours in the sample maps (samples/maps.ts): the yellow-to-red range, the cities' blue. */
const RANGE: [number, number, number][] = [[255, 195, 0], [241, 146, 14], [227, 97, 28], [199, 0, 57], [144, 12, 63], [90, 24, 70]];
const CITY_BLUE: [number, number, number] = [18, 92, 175];

const drawn = async (page: Page, l: Locator) => countPngPixels(page, await l.screenshot(), null);
const inRange = async (page: Page) => (await Promise.all(RANGE.map((c) => countPixels(page, c)))).reduce((a, b) => a + b, 0);

/** Clicks the read-only editor's Duplicate: the page moves to another record of the same kind, `editable` shows. */
async function duplicated(page: Page, samplePath: string, editable: Locator): Promise<void> {
  await page.getByRole('button', { name: 'Duplicate', exact: true }).click();
  const prefix = samplePath.slice(0, samplePath.lastIndexOf('/') + 1);
  await expect.poll(() => new URL(page.url()).pathname, { timeout: 30_000 }).not.toBe(samplePath);
  expect(new URL(page.url()).pathname.startsWith(prefix)).toBe(true);
  await editable.waitFor({ timeout: 60_000 });
}

describe('samples on a fresh data folder', () => {
  // The samples are made after the server answers (sample datasets, then the analytic sets' panel, then the maps,
  // dashboard and workbook): the first wait can be long on a loaded machine.
  it('Home offers them under "Start here"; each map, the dashboard and the workbook open and draw; a maker cannot change them', async () => {
    const admin = await asAdmin();
    const samples = async () => ({
      maps: (await admin.records('maps').samples()).items,
      dashboards: (await admin.records('dashboards').samples()).items,
      workbooks: (await admin.records('workbooks').samples()).items,
    });
    await expect.poll(async () => Object.values(await samples()).map((l) => l.length), { timeout: 300_000, interval: 1000 }).toEqual([3, 1, 1]);
    const { maps, dashboards, workbooks } = await samples();
    const byName = (list: StudioRecord[], name: string) => list.find((r) => r.name === name)!;
    const maker = await makerInNewTeam('Samples', 'Sam Newcomer');

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Home', exact: true }).click();
    const start = page.getByRole('list', { name: 'Start here' });
    await expect.poll(() => start.getByRole('listitem').count()).toBe(5);
    for (const r of [...maps, ...dashboards, ...workbooks]) await start.getByRole('link', { name: r.name, exact: true }).waitFor();

    // Each sample map: read only for this maker, its one layer drawn in its colours.
    const cases = [
      { name: 'Earthquakes of one week', type: 'geojson', pixels: () => inRange(page) },
      { name: 'World cities by population', type: 'point', pixels: () => countPixels(page, CITY_BLUE) },
      { name: 'Foot-traffic places as hexagons', type: 'hexagon', pixels: () => inRange(page) },
    ];
    for (const c of cases) {
      const map = byName(maps, c.name);
      await page.goto(`${baseUrl()}/${map.id}`);
      await page.getByRole('note').filter({ hasText: 'Read only: you can view this map.' }).waitFor();
      await waitMapReady(page, 90_000);
      expect(await page.evaluate(() => window.__studioMap!.layers().map((l) => l.type))).toEqual([c.type]);
      await expect.poll(c.pixels, { timeout: 30_000 }).toBeGreaterThan(30);
      expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    }
    // "Duplicate" where the 403 sends the user: the last sample map becomes the maker's own copy, open to edit.
    await duplicated(page, `/${byName(maps, cases.at(-1)!.name).id}`, page.getByRole('button', { name: 'Save', exact: true }));

    // The dashboard: the KPI, the bar chart and the map widget; the country dropdown filters the KPI.
    const board = dashboards[0]!;
    await page.goto(`${baseUrl()}/dashboard/${board.id}`);
    await page.getByText('Read only', { exact: true }).waitFor({ timeout: 60_000 });
    const kpi = page.getByRole('region', { name: 'People in cities of 100,000+', exact: true }).locator('.widget-kpi[data-state="ready"] .kpi-value');
    await kpi.waitFor({ timeout: 45_000 });
    const world = await kpi.textContent();
    const chart = page.getByRole('region', { name: 'Largest cities', exact: true }).locator('.echart[data-rendered="true"]');
    await chart.waitFor({ timeout: 45_000 });
    expect(await drawn(page, chart)).toBeGreaterThan(500);
    await page.getByRole('region', { name: 'Where they are', exact: true }).locator('iframe').waitFor();
    await page.getByLabel('Country').selectOption('JP');
    await expect.poll(() => kpi.textContent(), { timeout: 30_000 }).not.toBe(world);
    await duplicated(page, `/dashboard/${board.id}`, page.getByRole('textbox', { name: 'Dashboard name' }));

    // The workbook: its cells run on open and the chart draws.
    await page.goto(`${baseUrl()}/workbook/${workbooks[0]!.id}`);
    await page.getByText('Read only', { exact: true }).waitFor({ timeout: 60_000 });
    const bars = page.getByRole('region', { name: 'Cell chart', exact: true }).locator('.echart[data-rendered="true"]');
    await bars.waitFor({ timeout: 60_000 });
    expect(await drawn(page, bars)).toBeGreaterThan(500);
    await duplicated(page, `/workbook/${workbooks[0]!.id}`, page.getByRole('textbox', { name: 'Workbook name' }));
    expect(foreign).toEqual([]);
    await context.close();

    // Through the API too, for the maker and for the administrator: read only, a copy on request.
    for (const client of [maker.client, admin]) {
      await expect(client.records('maps').save({ id: maps[0]!.id, name: 'Changed' })).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/^Samples are read-only/) });
    }
    const copy = await maker.client.records('maps').clone(maps[0]!.id);
    expect(copy).toMatchObject({ isSample: false, access: 'owner' });
  }, 600_000);
});
