import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';

const browser = useBrowser();

/** Two squares near San Francisco and six points: three in the west square, two in the east one, one outside. */
const square = (name: string, x: number) => ({ type: 'Feature', properties: { name }, geometry: { type: 'Polygon', coordinates: [[[x, 37.7], [x + 0.1, 37.7], [x + 0.1, 37.8], [x, 37.8], [x, 37.7]]] } });
const ZONES = JSON.stringify({ type: 'FeatureCollection', features: [square('west', -122.5), square('east', -122.4)] });
const POINTS = ['id,lat,lng', '1,37.71,-122.49', '2,37.75,-122.45', '3,37.79,-122.41', '4,37.75,-122.35', '5,37.72,-122.31', '6,37.9,-122.45'].join('\n');

describe('the SQL workspace over datasets', () => {
  it('runs a spatial join from "New saved query", shows the grid and the map, and saves the result as a dataset', async () => {
    const maker = await makerInNewTeam('SQL team', 'Sam Sequel');
    const u = unique();
    await maker.client.datasets.upload(ZONES, { contentType: 'application/geo+json', name: `zones_${u}` });
    await maker.client.datasets.upload(POINTS, { contentType: 'text/csv', name: `pts_${u}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);

    await page.goto(`${baseUrl()}/workspace/queries`);
    await page.getByRole('link', { name: 'New saved query' }).click();
    await page.waitForURL(/\/workspace\/queries\/new$/);
    const workspace = page.getByRole('region', { name: 'SQL workspace' });
    const editor = workspace.locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    // Completion offers the caller's datasets and the spatial functions.
    await page.keyboard.type(`select * from zones_${u.slice(0, 3)}`);
    await page.locator('.cm-tooltip-autocomplete').getByRole('option', { name: new RegExp(`zones_${u}`) }).waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('select ST_DWi');
    await page.locator('.cm-tooltip-autocomplete').getByRole('option', { name: /ST_DWithin/ }).waitFor();
    await page.keyboard.press('Control+A');
    // insertText: no completion or bracket closing in the way of the whole query.
    await page.keyboard.insertText(
      `select z.name, count(*) as n, ST_Envelope(z._geojson) as box from zones_${u} z join pts_${u} p on ST_Contains(z._geojson, ST_Point(p.lng, p.lat)) group by z.name, z._geojson order by z.name`,
    );
    await page.keyboard.press('Control+Enter');
    const grid = workspace.getByRole('table', { name: 'Rows of the query' });
    await expect.poll(() => grid.locator('tbody tr td:nth-child(-n+2)').allInnerTexts()).toEqual(['east', '2', 'west', '3']);

    await workspace.getByRole('button', { name: 'Map', exact: true }).click();
    const map = workspace.getByRole('img', { name: 'Map of 2 rows from _geojson' });
    await expect.poll(() => map.getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');

    // The whole result downloaded (here as CSV): the query's rows, not the grid's.
    await workspace.getByLabel('Download format of query').selectOption('csv');
    const [download] = await Promise.all([page.waitForEvent('download'), workspace.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('query.csv');
    const csv = (await fs.readFile((await download.path())!, 'utf8')).trim().split('\n');
    expect([csv[0]!.split(',').slice(0, 2), csv.slice(1).map((l) => l.split(',').slice(0, 2))]).toEqual([['name', 'n'], [['east', '2'], ['west', '3']]]);

    await workspace.getByLabel('Dataset name').fill(`Points per zone ${u}`);
    await workspace.getByRole('button', { name: 'Save as dataset' }).click();
    await workspace.getByRole('status').filter({ hasText: `Saved: Points per zone ${u}` }).waitFor({ timeout: 30_000 });
    const href = await workspace.getByRole('link', { name: 'Open on a map' }).getAttribute('href');
    const id = /datasetUuid=([0-9a-f-]{36})/.exec(href ?? '')![1]!;
    const saved = await maker.client.datasets.get(id);
    expect(saved.metadata.rowCount).toBe(2);
    expect((await maker.client.datasets.preview(id, 0, 10)).items.map((r) => [r.name, Number(r.n)])).toEqual([['east', 2], ['west', 3]]);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
