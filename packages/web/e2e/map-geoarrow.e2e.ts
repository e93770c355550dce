import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';
import { countPixels, waitMapReady } from './pixels';

const browser = useBrowser();
const MAGENTA: [number, number, number] = [255, 0, 255];

/** A 6 × 4 grid of squares over the Bay Area, one with a hole and one of two parts, as a GeoJSON upload. */
function polygons(): string {
  const square = (x: number, y: number, d: number) => [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
  const features = [];
  for (let i = 0; i < 24; i++) {
    const [x, y] = [-122.6 + (i % 6) * 0.1, 37.5 + Math.floor(i / 6) * 0.1];
    const geometry =
      i === 7 ? { type: 'Polygon', coordinates: [square(x, y, 0.08), square(x + 0.02, y + 0.02, 0.04).reverse()] }
      : i === 14 ? { type: 'MultiPolygon', coordinates: [[square(x, y, 0.03)], [[...square(x + 0.05, y + 0.05, 0.03)]]] }
      : { type: 'Polygon', coordinates: [square(x, y, 0.08)] };
    features.push({ type: 'Feature', properties: { n: i }, geometry });
  }
  return JSON.stringify({ type: 'FeatureCollection', features });
}

describe('polygons on the map as GeoArrow (#46)', () => {
  it('a polygon dataset opens on a new map, is read as geoarrow.multipolygon and drawn in the layer’s colour', async () => {
    const maker = await makerInNewTeam('GeoArrow', 'Gia Arrow');
    const dataset = await maker.client.datasets.upload(polygons(), { contentType: 'application/geo+json', name: `Squares ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    const data = page.waitForResponse((r) => r.url().includes(`/v1/datasets/${dataset.id}/data`));
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    const answer = await data;
    expect(answer.request().headers()['accept']).toContain('geoarrow=1');
    expect(answer.status()).toBe(200);
    const sent = tableFromIPC(await answer.body());
    expect(sent.schema.fields.map((f) => f.metadata.get('ARROW:extension:name')).filter(Boolean)).toEqual(['geoarrow.multipolygon']);
    expect(sent.numRows).toBe(24);
    await waitMapReady(page, 90_000);
    expect((await page.evaluate(() => window.__studioMap!.layers())).map((l) => l.type)).toContain('geojson');
    await page.evaluate((rgb) => window.__studioMap!.setLayerColor(0, rgb), MAGENTA);
    // The squares cover much of the fitted view: thousands of fill pixels, none if kepler could not read the column.
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 30_000 }).toBeGreaterThan(5_000);
    expect(errors).toEqual([]);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
