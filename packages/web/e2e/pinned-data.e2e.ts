import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';
import { countPixels, waitMapReady } from './pixels';
import { newMapOf } from './new-map';

const browser = useBrowser();

/** Twenty points around San Francisco, and the same twenty moved four degrees east (off the saved view). */
const points = (shift: number) => ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.72 + (i % 5) * 0.02).toFixed(4)},${(-122.48 + shift + Math.floor(i / 5) * 0.03).toFixed(4)}`)].join('\n');
const COLOR: [number, number, number] = [0, 200, 90];

async function save(page: Page) {
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
}

/** Opens version `n` of the map read-only, as the History panel opens it, once its layer is on the map. */
async function openVersion(page: Page, mapId: string, n: number) {
  await page.goto(`${baseUrl()}/preview/${mapId}?atVersion=${n}`);
  await waitMapReady(page);
  await page.waitForFunction(() => (window.__studioMap?.layers().length ?? 0) > 0);
}

describe('pinned data', () => {
  it('a version saved with "Pin data" shows the rows it showed after the dataset is replaced; an unpinned one shows today\'s', async () => {
    const maker = await makerInNewTeam('Pinned', 'Pia Pinner');
    const dataset = await maker.client.datasets.upload(points(0), { contentType: 'text/csv', name: `Pinned points ${unique()}` });
    const s = await newMapOf(browser(), maker, dataset.id);
    const { page } = s;

    // Version 1 unpinned; version 2 (a small view change) with "Pin data".
    await page.evaluate((c) => window.__studioMap!.setLayerColor(0, c), COLOR);
    await expect.poll(() => countPixels(page, COLOR)).toBeGreaterThan(50);
    await page.getByLabel('Map name').fill('Pinned harbour');
    await save(page);
    await page.waitForURL((u) => /^\/[0-9a-f-]{36}$/.test(u.pathname));
    const mapId = new URL(page.url()).pathname.slice(1);
    const view = (await page.evaluate(() => window.__studioMap!.view()))!;
    await page.evaluate((v) => window.__studioMap!.setView(v), { ...view, zoom: view.zoom - 0.1 });
    await page.getByLabel('Pin data').check();
    await save(page);
    const versions = await maker.client.request<{ items: { n: number; pins: { datasetId: string }[] }[] }>('GET', `/v1/maps/${mapId}/versions`);
    expect(versions.items.map((v) => [v.n, v.pins.map((p) => p.datasetId)])).toEqual([[2, [dataset.id]], [1, []]]);

    // The data is replaced: the same points, four degrees east.
    await maker.client.datasets.upload(points(4), { contentType: 'text/csv' }, dataset.id);
    await openVersion(page, mapId, 2);
    await expect.poll(() => countPixels(page, COLOR), { message: 'the pinned version draws the old rows, in view' }).toBeGreaterThan(50);
    await openVersion(page, mapId, 1);
    expect(await countPixels(page, COLOR), 'the unpinned version draws today\'s rows, out of view').toBeLessThan(10);

    // The dataset page lists the replaced data version 2 pins: its date, rows, size and that one version pins it.
    await page.goto(`${baseUrl()}/workspace/datasets/${dataset.id}`);
    const snapshots = page.getByRole('table', { name: 'Snapshots' });
    await snapshots.waitFor();
    const rows = snapshots.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('td').allInnerTexts();
    expect(cells[0], 'the date the data was made').toMatch(/\d{4}/);
    expect(cells.slice(1), 'rows, size, state, pins').toEqual(['20', expect.stringMatching(/^\d+(\.\d)? (B|kB)$/), expect.stringMatching(/^Replaced /), '1 version']);

    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
