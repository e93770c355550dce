import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';
import { mapAreaPng, waitMapReady } from './pixels';

const browser = useBrowser();

/** Two adjacent 0.1° squares and six points: three in the west square, two in the east one, one outside. */
const square = (zone: string, x: number) => ({ type: 'Feature', properties: { zone }, geometry: { type: 'Polygon', coordinates: [[[x, 37.7], [x + 0.1, 37.7], [x + 0.1, 37.8], [x, 37.8], [x, 37.7]]] } });
const ZONES = JSON.stringify({ type: 'FeatureCollection', features: [square('west', -122.5), square('east', -122.4)] });
const POINTS = ['id,lat,lng', '1,37.71,-122.49', '2,37.75,-122.45', '3,37.79,-122.41', '4,37.75,-122.35', '5,37.72,-122.31', '6,37.9,-122.45'].join('\n');

type Rgb = [number, number, number];

/** The map area's colours (in steps of 16, as their centres) and pixel counts, the background and near-white left out. */
async function colorCounts(page: Page, skipBackground = true): Promise<[Rgb, number][]> {
  const png = await mapAreaPng(page);
  return page.evaluate(async ({ url, skip }) => {
    const bitmap = await createImageBitmap(await (await fetch(url)).blob());
    const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    const key = (i: number) => ((data[i]! >> 4) << 8) | ((data[i + 1]! >> 4) << 4) | (data[i + 2]! >> 4);
    const background = skip ? key(0) : -1;
    const counts = new Map<number, number>();
    for (let i = 0; i < data.length; i += 4) {
      const k = key(i);
      if (k !== background && !(data[i]! > 220 && data[i + 1]! > 220 && data[i + 2]! > 220)) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return [...counts].map(([k, n]) => [[((k >> 8) << 4) + 8, (((k >> 4) & 15) << 4) + 8, ((k & 15) << 4) + 8], n] as [[number, number, number], number]);
  }, { url: `data:image/png;base64,${png.toString('base64')}`, skip: skipBackground });
}

const distance = (a: Rgb, b: Rgb) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
/** Pixels within 48 of `rgb`. */
const near = (counts: [Rgb, number][], rgb: Rgb) => counts.reduce((sum, [c, n]) => sum + (distance(c, rgb) <= 48 ? n : 0), 0);
/** The most common colour. */
const dominant = (counts: [Rgb, number][]) => [...counts].sort((a, b) => b[1] - a[1])[0]![0];

describe('the map builder\'s spatial tools', () => {
  it('"Count points in polygons" makes a dataset of the counts and draws it as a choropleth', async () => {
    const maker = await makerInNewTeam('Spatial team', 'Pia Polygon');
    const u = unique();
    const zones = await maker.client.datasets.upload(ZONES, { contentType: 'application/geo+json', name: `Zones ${u}` });
    const points = await maker.client.datasets.upload(POINTS, { contentType: 'text/csv', name: `Points ${u}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${zones.id}&datasetUuid=${points.id}`);
    await waitMapReady(page, 90_000);
    // Before: the zones layer's one colour over both squares.
    const before = await colorCounts(page);
    const fill = dominant(before);
    const filled = near(before, fill);
    expect(filled).toBeGreaterThan(1000);

    await page.getByRole('button', { name: 'Spatial tools' }).click();
    const dialog = page.getByRole('dialog', { name: 'Spatial tools' });
    await dialog.getByLabel('Tool', { exact: true }).selectOption({ label: 'Count points in polygons' });
    await dialog.getByLabel('Points', { exact: true }).selectOption({ label: `Points ${u}` });
    await dialog.getByLabel('Polygons', { exact: true }).selectOption({ label: `Zones ${u}` });
    expect(await dialog.getByLabel('New dataset').inputValue()).toBe(`Points ${u} counted in Zones ${u}`);
    await dialog.getByRole('button', { name: 'Add layer' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 60_000 });

    await expect.poll(() => page.evaluate(() => window.__studioMap!.layers().length), { timeout: 30_000 }).toBe(3);
    const made = (await page.evaluate(() => window.__studioMap!.layers())).find((l) => l.dataId !== zones.id && l.dataId !== points.id)!;
    expect(made.type).toBe('geojson');
    const rows = (await maker.client.datasets.preview(made.dataId, 0, 10)).items.map((r) => [r.zone, Number(r.point_count)]);
    expect(rows.sort()).toEqual([['east', 2], ['west', 3]]);
    // The choropleth: the west square (3 points) and the east one (2) in different colours of the scale.
    // The choropleth: the squares no longer in the zones' colour but in two colours of the scale, each over a large area.
    await expect.poll(async () => {
      const after = await colorCounts(page, false);
      const first = dominant(after);
      const second = dominant(after.filter(([c]) => distance(c, first) > 96));
      return near(after, fill) < filled * 0.2 && near(after, first) > filled * 0.15 && near(after, second) > filled * 0.15;
    }, { timeout: 30_000 }).toBe(true).catch(async (e: unknown) => {
      await page.screenshot({ path: '/tmp/studio-spatial-tools-failed.png' });
      console.log('colours before', JSON.stringify([fill, filled]), 'after', JSON.stringify((await colorCounts(page, false)).sort((a, b) => b[1] - a[1]).slice(0, 8)));
      throw e;
    });
    await page.screenshot({ path: '/tmp/studio-spatial-tools-choropleth.png' });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
