import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, countPngPixels, waitMapReady } from './pixels';
import { closeKeplerPopovers } from './kepler-panels';

declare global {
  interface Window {
    __studioMapReady?: boolean;
    __studioMap?: {
      layers: () => { type: string; dataId: string; color: number[] }[];
      layerOrder: () => string[];
      view: () => { latitude: number; longitude: number; zoom: number } | undefined;
      setLayerColor: (index: number, color: [number, number, number]) => void;
      setView: (view: { latitude: number; longitude: number; zoom: number }) => void;
    };
  }
}

const browser = useBrowser();

// A handful of points around San Francisco: software WebGL stays fast.
const CSV = ['name,lat,lng', ...Array.from({ length: 40 }, (_, i) => `p${i},${(37.70 + (i % 8) * 0.02).toFixed(4)},${(-122.50 + Math.floor(i / 8) * 0.03).toFixed(4)}`)].join('\n');

describe('the map view', () => {
  it('builds a point map from a dataset, saves and reopens it, and publishes it behind a password', async () => {
    const t0 = Date.now();
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Map team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Mia Mapper', `mia.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `SF points ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    page.on('console', (m) => m.type() === 'error' && console.error('console', m.text().slice(0, 300)));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    // Without data, a new map opens on San Francisco.
    await page.goto(`${baseUrl()}/new`);
    await waitMapReady(page);
    expect(await page.evaluate(() => window.__studioMap!.view())).toEqual({ latitude: 37.7749, longitude: -122.4194, zoom: 9 });
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(page);
    const tReady = Date.now();
    await page.screenshot({ path: '/tmp/studio-map-new.png' });
    const layers = await page.evaluate(() => window.__studioMap!.layers());
    expect(layers).toMatchObject([{ type: 'point', dataId: dataset.id }]);
    expect(await countPixels(page, null)).toBeGreaterThan(100);

    // The layer color through kepler's own panel: open the layer's settings, its color, a swatch.
    await page.locator('.layer__enable-config').first().click();
    await page.locator('.layer-panel .color-selector__selector').first().click();
    const swatches = page.locator('.single-color-palette__block');
    await swatches.first().waitFor();
    // The most saturated swatch, so its pixels stand apart from the background and the default color.
    const { index, rgb } = await swatches.evaluateAll((blocks) => {
      const colors = blocks.map((b) => getComputedStyle(b).backgroundColor.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number]);
      let best = 0;
      colors.forEach((c, i) => {
        const spread = (x: number[]) => Math.max(...x) - Math.min(...x);
        if (spread(c) > spread(colors[best]!)) best = i;
      });
      return { index: best, rgb: colors[best]! };
    });
    await swatches.nth(index).click();
    await closeKeplerPopovers(page);
    await expect.poll(() => page.evaluate(() => window.__studioMap!.layers()[0]!.color)).toEqual(rgb);
    await expect.poll(() => countPixels(page, rgb), { timeout: 10_000 }).toBeGreaterThan(100);

    await page.getByLabel('Map name').fill('SF points map');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.waitForURL((u) => /^\/[0-9a-f-]{36}$/.test(u.pathname));
    const mapId = new URL(page.url()).pathname.slice(1);
    const saved = await maker.client.records('maps').get(mapId);
    expect(saved).toMatchObject({ name: 'SF points map', datasets: [{ id: dataset.id }], thumbnailUrl: expect.any(String) });
    expect(saved.latestState).toMatchObject({ studioVersion: 1, kepler: { version: 'v1' } });
    // The thumbnail is the map as drawn: basemap and the recolored points.
    const thumb = Buffer.from(await (await maker.client.raw('GET', `/v1/maps/${mapId}/thumbnail`)).arrayBuffer());
    expect(thumb.subarray(1, 4).toString()).toBe('PNG');
    expect(await countPngPixels(page, thumb, rgb)).toBeGreaterThan(20);

    await page.reload();
    await waitMapReady(page);
    const reopened = await page.evaluate(() => window.__studioMap!.layers());
    expect(reopened).toEqual([{ type: 'point', dataId: dataset.id, color: rgb }]);
    expect(await countPixels(page, rgb)).toBeGreaterThan(100);
    await page.screenshot({ path: '/tmp/studio-map-reopened.png' });

    // A colleague with edit rights opens it while Mia holds the edit lock: read only, holder named.
    const lee = await createUser(admin, team.id, 'Lee Looker', `lee.${unique()}@e2e.studio.test`);
    await maker.client.records('maps').share(mapId, { users: [{ userId: lee.user.id, role: 'editor' }] });
    const other = await openStudio(browser(), baseUrl());
    await signInThroughUi(other.page, baseUrl(), lee.email, lee.password);
    await other.page.goto(`${baseUrl()}/${mapId}`);
    await other.page.getByRole('note').filter({ hasText: 'Read only: Mia Mapper is editing this map.' }).waitFor();
    await waitMapReady(other.page);
    expect(await other.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    expect(other.foreign).toEqual([]);
    await other.context.close();

    await page.getByRole('button', { name: 'Publish' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish map' });
    await dialog.getByLabel('Password (optional)').fill('harbour lights');
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Published' }).waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();

    const anon = await openStudio(browser(), baseUrl());
    await anon.page.goto(`${baseUrl()}/public/${mapId}`);
    await anon.page.getByRole('heading', { name: 'This map is protected' }).waitFor();
    await anon.page.getByLabel('Password').fill('wrong one');
    await anon.page.getByRole('button', { name: 'View map' }).click();
    await anon.page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor();
    await anon.page.getByLabel('Password').fill('harbour lights');
    await anon.page.getByRole('button', { name: 'View map' }).click();
    await waitMapReady(anon.page);
    expect(await anon.page.evaluate(() => window.__studioMap!.layers())).toEqual([{ type: 'point', dataId: dataset.id, color: rgb }]);
    expect(await countPixels(anon.page, rgb)).toBeGreaterThan(100);
    await anon.page.screenshot({ path: '/tmp/studio-map-public.png' });
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    console.log(`map e2e: ready after ${tReady - t0} ms, whole flow ${Date.now() - t0} ms`);
  }, 180_000);
});
