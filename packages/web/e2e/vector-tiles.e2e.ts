import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { mapAreaPng } from './pixels';

const browser = useBrowser();

// Points around San Francisco (where a new map opens), tiled by the studio into a vector-tile dataset.
const CSV = ['name,lat,lng,score', ...Array.from({ length: 60 }, (_, i) => `p${i},${(37.70 + (i % 10) * 0.015).toFixed(4)},${(-122.50 + Math.floor(i / 10) * 0.03).toFixed(4)},${i}`)].join('\n');

/** The map area as a PNG data URL (pixels.ts's mapAreaPng). */
const mapShot = async (page: Page) => `data:image/png;base64,${(await mapAreaPng(page)).toString('base64')}`;

/** Pixels that differ between two screenshots of the same size, decoded by the browser. */
function differingPixels(page: Page, a: string, b: string): Promise<number> {
  return page.evaluate(async ([a, b]) => {
    const pixels = async (url: string) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    };
    const [pa, pb] = [await pixels(a!), await pixels(b!)];
    let n = 0;
    for (let i = 0; i < pa.length; i += 4) if (Math.abs(pa[i]! - pb[i]!) + Math.abs(pa[i + 1]! - pb[i + 1]!) + Math.abs(pa[i + 2]! - pb[i + 2]!) > 40) n++;
    return n;
  }, [a, b]);
}

type Maker = Awaited<ReturnType<typeof createUser>>;

describe('vector-tile datasets in the map', () => {
  // One tileset for both tests: cutting it is the slow part, and neither changes it.
  let maker: Maker;
  let tiled: { id: string };
  beforeAll(async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Tiles team ${unique()}`);
    maker = await createUser(admin, team.id, 'Tia Tiler', `tia.${unique()}@e2e.studio.test`);
    const source = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `SF points ${unique()}` });
    // The call answers at once; a background job cuts the tiles.
    const built = await maker.client.datasets.buildVectorTiles({ datasetId: source.id, name: 'SF tiles', maxZoom: 14 });
    expect([built.item.type, built.item.status]).toEqual(['vector-tile', 'pending']);
    // (expect.poll belongs to tests; vi.waitFor retries the same way in a hook.)
    await vi.waitFor(async () => expect((await maker.client.jobs.get(built.job.id)).status).toBe('succeeded'), { timeout: 30_000, interval: 250 });
    tiled = built.item;
  }, 60_000);

  /** The maker's map builder opened on the tileset, its vector tile layer in place; `watch` sees the page first. */
  async function openTilesetInBuilder(watch: (page: Page) => void = () => {}) {
    const s = await openStudio(browser(), baseUrl());
    s.page.on('pageerror', (e) => console.error('pageerror', e.message));
    watch(s.page);
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/new?datasetUuid=${tiled.id}`);
    await s.page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    await expect.poll(() => s.page.evaluate(() => window.__studioMap!.layers().map((l) => [l.type, l.dataId])), { timeout: 20_000 }).toEqual([['vectorTile', tiled.id]]);
    return s;
  }

  it('opens a vector-tile dataset as a kepler vector tile layer drawn from the studio’s own tiles, also in its published map', async () => {
    const tileRequests: string[] = [];
    const s = await openTilesetInBuilder((page) => page.on('request', (r) => {
      if (r.url().includes(`/v1/vector-tiles/${tiled.id}/`)) tileRequests.push(new URL(r.url()).pathname);
    }));
    const { page } = s;
    // kepler read the TileJSON and tiles through the signed links, and drew the points.
    await expect.poll(() => tileRequests.some((p) => /\/\d+\/\d+\/\d+$/.test(p)), { timeout: 20_000 }).toBe(true);
    expect(tileRequests).toContain(`/v1/vector-tiles/${tiled.id}/tiles.json`);
    // The points are drawn: hiding the layer with kepler's own toggle takes them off the map.
    // Wait until the frame holds still (two shots alike), not a fixed second: then the drawn points are in it.
    let shown = await mapShot(page);
    await expect.poll(async () => {
      const next = await mapShot(page);
      const moving = await differingPixels(page, shown, next);
      shown = next;
      return moving;
    }, { timeout: 20_000 }).toBe(0);
    await page.locator('.layer__visibility-toggle').first().click();
    await expect.poll(async () => differingPixels(page, shown, await mapShot(page)), { timeout: 10_000 }).toBeGreaterThan(60);
    await page.locator('.layer__visibility-toggle').first().click();
    await page.screenshot({ path: '/tmp/studio-vector-tiles.png' });

    // Saved and published: an anonymous viewer gets the same layer, its tiles through the publication.
    await page.getByLabel('Map name').fill('SF tiles map');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.waitForURL((u) => /^\/[0-9a-f-]{36}$/.test(u.pathname));
    const mapId = new URL(page.url()).pathname.slice(1);
    await maker.client.request('POST', `/v1/maps/${mapId}/publish/map`, { body: {} });
    expect(s.foreign).toEqual([]);
    await s.context.close();

    const anon = await openStudio(browser(), baseUrl());
    let anonTiles = 0;
    anon.page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith(`/v1/vector-tiles/${tiled.id}/`)) anonTiles++;
    });
    await anon.page.goto(`${baseUrl()}/public/${mapId}`);
    await anon.page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    await expect.poll(() => anon.page.evaluate(() => window.__studioMap!.layers().map((l) => [l.type, l.dataId])), { timeout: 20_000 }).toEqual([['vectorTile', tiled.id]]);
    await expect.poll(() => anonTiles, { timeout: 20_000 }).toBeGreaterThan(1);

    // Opened again, the map reads its tiles from the browser's cache: their URLs carry the tileset's version
    // and a link signed within the same hour, and answer immutable. (A load that crossed the hour gets new
    // links: then the next one is compared.)
    const cdp = await anon.context.newCDPSession(anon.page);
    await cdp.send('Network.enable');
    const answers: { url: string; cached: boolean }[] = [];
    const servedFromCache = new Set<string>();
    cdp.on('Network.requestServedFromCache', (e) => servedFromCache.add(e.requestId));
    cdp.on('Network.responseReceived', (e) => {
      if (/\/v1\/vector-tiles\/[^/]+\/\d+\/\d+\/\d+/.test(e.response.url)) answers.push({ url: e.response.url, cached: e.response.fromDiskCache === true || servedFromCache.has(e.requestId) });
    });
    const reopen = async () => {
      answers.length = 0;
      await anon.page.goto(`${baseUrl()}/public/${mapId}`);
      await anon.page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
      await expect.poll(() => answers.length, { timeout: 20_000 }).toBeGreaterThan(1);
      return answers.map((a) => ({ ...a }));
    };
    let previous = await reopen();
    let again = await reopen();
    if (!again.some((a) => previous.some((p) => p.url === a.url))) [previous, again] = [again, await reopen()];
    expect(again.filter((a) => previous.some((p) => p.url === a.url)).length).toBeGreaterThan(1);
    expect(again.filter((a) => !a.cached)).toEqual([]);

    expect(anon.foreign).toEqual([]);
    await anon.context.close();
  }, 150_000);

  it('cancels the tiles a fast zoom passed over on a slow network instead of downloading them first', async () => {
    const s = await openTilesetInBuilder();
    const { page } = s;
    const cdp = await s.context.newCDPSession(page);
    await cdp.send('Network.enable');
    // Zoomed in fast over a slow network, the tiles the view passed over are cancelled (deck.gl drops them past
    // its six requests in flight, and the map hands their requests that signal), not downloaded ahead of the
    // tiles now in view. The browser's cache is off here so every tile goes to the network.
    const tileUrlOf = new Map<string, string>();
    const cancelled = new Set<string>();
    cdp.on('Network.requestWillBeSent', (e) => {
      if (/\/v1\/vector-tiles\/[^/]+\/\d+\/\d+\/\d+/.test(e.request.url)) tileUrlOf.set(e.requestId, e.request.url);
    });
    cdp.on('Network.loadingFailed', (e) => {
      if (e.canceled && tileUrlOf.has(e.requestId)) cancelled.add(tileUrlOf.get(e.requestId)!);
    });
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 1_500, downloadThroughput: -1, uploadThroughput: -1 });
    const area = (await page.locator('.maplibregl-canvas, canvas').first().boundingBox())!;
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
    const before = tileUrlOf.size;
    // From zoom 11.5 to about 15: the tiles of zooms 12, 13 and 14 (the tileset's last) are asked for on the way.
    for (let i = 0; i < 6; i++) {
      await page.mouse.wheel(0, -240);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    await expect.poll(() => tileUrlOf.size - before, { timeout: 20_000 }).toBeGreaterThan(6);
    await expect.poll(() => cancelled.size, { timeout: 20_000 }).toBeGreaterThan(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
