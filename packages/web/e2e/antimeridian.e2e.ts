import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, makerInNewTeam } from './api';
import { waitMapReady } from './pixels';

const browser = useBrowser();
const MAGENTA: [number, number, number] = [255, 0, 255];

/**
 * Where the map draws a longitude/latitude: Web Mercator around the view's centre, 512 px a world at zoom 0 (deck's
 * viewport spans the whole kepler box; the side panel lies over its left).
 */
function pixelOf(view: { latitude: number; longitude: number; zoom: number }, size: { width: number; height: number }, lng: number, lat: number): [number, number] {
  const scale = 512 * 2 ** view.zoom;
  const y = (l: number) => Math.log(Math.tan(Math.PI / 4 + (l * Math.PI) / 360));
  return [size.width / 2 + ((lng - view.longitude) / 360) * scale, size.height / 2 + ((y(view.latitude) - y(lat)) / (2 * Math.PI)) * scale];
}

/** The share of pixels close to `rgb` in a box of a screenshot of the kepler box. */
async function share(page: Page, png: Buffer, box: [number, number, number, number], rgb: [number, number, number]): Promise<number> {
  return page.evaluate(
    async ({ url, box, rgb }) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const c = document.createElement('canvas');
      [c.width, c.height] = [img.width, img.height];
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const [x, y, w, h] = box.map(Math.round) as [number, number, number, number];
      const { data } = ctx.getImageData(x, y, w, h);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - rgb[0]!) + Math.abs(data[i + 1]! - rgb[1]!) + Math.abs(data[i + 2]! - rgb[2]!) < 120) n++;
      return n / (w * h);
    },
    { url: `data:image/png;base64,${png.toString('base64')}`, box, rgb },
  );
}

/**
 * The view the checks look at: zoom 1 (the issue's), centred west of Africa at Fiji's latitudes so that the
 * Atlantic, the Pacific east of the date line and southern Africa are all on screen, right of the side panel.
 */
const CHECK_VIEW = { latitude: -15, longitude: -120, zoom: 1 };

/**
 * A new map of the dataset, its layer magenta, moved to CHECK_VIEW, once it draws Africa: the view the map fitted
 * first, a screenshot and boxes given in lon/lat.
 */
async function drawn(page: Page, datasetId: string) {
  await page.goto(`${baseUrl()}/new?datasetUuid=${datasetId}`);
  await waitMapReady(page, 90_000);
  await page.evaluate((rgb) => window.__studioMap!.setLayerColor(0, rgb), MAGENTA);
  const fitted = (await page.evaluate(() => window.__studioMap!.view()))!;
  await page.evaluate((v) => window.__studioMap!.setView(v), CHECK_VIEW);
  await expect.poll(async () => (await page.evaluate(() => window.__studioMap!.view()))?.zoom).toBeCloseTo(CHECK_VIEW.zoom, 2);
  const size = (await page.locator('.kepler-box').boundingBox())!;
  const view = (await page.evaluate(() => window.__studioMap!.view()))!;
  /** A box between two corners given as longitude/latitude. */
  const between = (a: [number, number], b: [number, number]): [number, number, number, number] => {
    const [[x0, y0], [x1, y1]] = [pixelOf(view, size, ...a), pixelOf(view, size, ...b)];
    return [Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0)];
  };
  const png = () => page.locator('.kepler-box').screenshot();
  // Drawn in the layer's colour once the screenshot shows it (Africa for the countries, the band for the control).
  await expect.poll(async () => share(page, await png(), between([15, -16], [30, -18]), MAGENTA), { timeout: 30_000 }).toBeGreaterThan(0.5);
  return { fitted, view, shot: await png(), between };
}

/** The mid-Atlantic at Fiji's latitudes (10-25°S): open ocean, where an uncut Fiji draws its band. */
const ATLANTIC: [[number, number], [number, number]] = [[-32, -10], [-22, -25]];

describe('geometry across the antimeridian', () => {
  it('the World countries sample draws the whole world without bands across the ocean; a real band would show', async () => {
    const admin = await asAdmin();
    const find = async () => (await admin.records('datasets').samples()).items.find((d) => d.name === 'World countries') as { id: string; status?: string } | undefined;
    await expect.poll(async () => (await find())?.status, { timeout: 300_000, interval: 1000 }).toBe('ready');
    const countries = (await find())!;
    const maker = await makerInNewTeam('Antimeridian', 'Ann Meridian');
    // The control: a polygon that really runs round the world at 14-19°S (edges of 179°, no crossing), drawn as a band.
    const band = { type: 'Polygon', coordinates: [[[-179, -19], [0, -19], [179, -19], [179, -14], [0, -14], [-179, -14], [-179, -19]]] };
    const control = await maker.client.datasets.upload(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'band' }, geometry: band }] }), { contentType: 'application/geo+json', name: 'A real band' });
    const { page, context } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);

    const world = await drawn(page, countries.id);
    // The new map fits the world (zoom 0.5 in the test browser's 1360 px); the checks then look at zoom 1.
    expect(world.fitted.zoom).toBeGreaterThan(0.3);
    expect(world.fitted.zoom).toBeLessThan(2);
    expect(world.view.zoom).toBeCloseTo(CHECK_VIEW.zoom, 2);
    expect(world.view.longitude).toBeCloseTo(CHECK_VIEW.longitude, 1);
    console.log('antimeridian e2e: fitted view', JSON.stringify(world.fitted), 'checked at', JSON.stringify(world.view));
    await page.screenshot({ path: '/tmp/studio-antimeridian-world.png' });
    const atlantic = await share(page, world.shot, world.between(...ATLANTIC), MAGENTA);
    // And the Pacific east of the date line at Fiji's latitude: Fiji's pieces hug ±180°, not a band between.
    const pacificBox = world.between([-170, -10], [-120, -25]);
    const pacific = await share(page, world.shot, pacificBox, MAGENTA);
    // Both boxes lie right of kepler's side panel, where the map shows (under the panel any band would be hidden).
    const panel = await page.locator('.side-panel--container').first().boundingBox();
    const mapLeft = (await page.locator('.kepler-box').boundingBox())!.x;
    if (panel) expect(pacificBox[0]).toBeGreaterThan(panel.x + panel.width - mapLeft);

    const real = await drawn(page, control.id);
    const banded = await share(page, real.shot, real.between(...ATLANTIC), MAGENTA);
    console.log('antimeridian e2e: magenta share, Atlantic', atlantic, 'Pacific', pacific, 'the real band', banded);
    expect(atlantic).toBeLessThan(0.02);
    expect(pacific).toBeLessThan(0.02);
    expect(banded).toBeGreaterThan(0.2);
    await context.close();
  }, 600_000);
});
