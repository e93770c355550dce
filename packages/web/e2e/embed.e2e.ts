import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPngPixels, waitMapReady } from './pixels';
import { expectTooltipInPickedZone } from './kepler-panels';

/**
 * Another site shows a published map with /embed.js (a page on a second loopback port: another origin),
 * the way the Studio Map SDK's createMap is used; the map draws inside its frame. The API answers the frame
 * needs are the published map's own; a password-protected map asks for its password in the frame.
 */
const browser = useBrowser();
const CSV = ['name,lat,lng', ...Array.from({ length: 30 }, (_, i) => `p${i},${(37.74 + (i % 6) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 6) * 0.02).toFixed(4)}`)].join('\n');

/** The other site: one page that loads the studio's embed script and shows `mapId` (or any text given) with it. */
let site: http.Server;
let siteUrl: string;
beforeAll(async () => {
  site = http.createServer((req, res) => {
    const mapId = new URL(req.url!, 'http://x').searchParams.get('map') ?? '';
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><html><body><h1>A partner's page</h1><div id="map" style="width:720px;height:420px"></div>
<script src="${baseUrl()}/embed.js"></script>
<script>
StudioMap.createMap({ container: document.getElementById('map'), initialState: { publishedMapId: ${JSON.stringify(mapId)} } })
  .then(function (m) { window.embedded = m.id; }, function (e) { window.embedError = e.message; });
</script></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

declare global {
  interface Window {
    embedded?: string;
    embedError?: string;
  }
}

/**
 * A maker's map with a dataset of points, published without a password; `csv` and `centre` for another
 * dataset, its tooltip showing `tooltip`'s fields.
 */
async function publishedMap(csv = CSV, centre = { latitude: 37.76, longitude: -122.42 }, tooltip: string[] = []) {
  const admin = await asAdmin();
  const team = await admin.admin.createOrganization(`Embed team ${unique()}`);
  const maker = await createUser(admin, team.id, 'Eve Embedder', `eve.${unique()}@e2e.studio.test`);
  const dataset = await maker.client.datasets.upload(csv, { contentType: 'text/csv', name: `Stops ${unique()}` });
  const layer = { id: 'stops', type: 'point', config: { dataId: dataset.id, label: 'Stops', color: [230, 80, 40], columns: { lat: 'lat', lng: 'lng', altitude: null }, isVisible: true } };
  const interactionConfig = tooltip.length ? { tooltip: { enabled: true, fieldsToShow: { [dataset.id]: tooltip.map((name) => ({ name, format: null })) } } } : undefined;
  const kepler = { version: 'v1', config: { visState: { layers: [layer], ...(interactionConfig && { interactionConfig }) }, mapState: { ...centre, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
  const map = await maker.client.records('maps').save({ name: `Embedded ${unique()}`, datasets: [dataset.id], latestState: { studioVersion: 1, kepler } });
  await maker.client.request('POST', `/v1/maps/${map.id}/publish/map`, { body: {} });
  return { map, dataset, maker };
}

describe('embedding a published map on another site', () => {
  it('shows the map through /embed.js in a page of another origin, drawn, and refuses a bad id by name', async () => {
    const { map, dataset } = await publishedMap();
    const { page } = await openStudio(browser(), siteUrl);
    await page.goto(`${siteUrl}/?map=${map.id}`);
    await page.waitForFunction(() => window.embedded || window.embedError);
    expect(await page.evaluate(() => window.embedError)).toBeUndefined();
    expect(await page.evaluate(() => window.embedded)).toBe(map.id);
    const frame = page.frames().find((f) => f.url().startsWith(`${baseUrl()}/public/${map.id}`))!;
    expect(frame.url()).toBe(`${baseUrl()}/public/${map.id}?embed=1`);
    await frame.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    expect(await frame.evaluate(() => window.__studioMap!.layers().map((l) => l.dataId))).toEqual([dataset.id]);
    const shot = await page.locator('#map').screenshot();
    await page.screenshot({ path: '/tmp/studio-embedded-map.png' });
    // Not blank: the thirty points are drawn in their layer's color.
    expect(await countPngPixels(page, shot, [230, 80, 40])).toBeGreaterThan(100);

    await page.goto(`${siteUrl}/?map=not-a-map`);
    await page.waitForFunction(() => window.embedded || window.embedError);
    expect(await page.evaluate(() => window.embedError)).toBe('createMap: initialState.publishedMapId must be the id of a published map');
  });

  it('reads times in the browser’s zone, and in the zone picked in its compact chooser (an embed has no toolbar)', async () => {
    // 14:30 UTC: 23:30 in Tokyo, 06:30 in Los Angeles (PST in March before the switch on the 10th).
    const { map } = await publishedMap('name,lat,lng,seen_at\nFerry Building,37.7955,-122.3937,2024-03-05 14:30:00\n', { latitude: 37.7955, longitude: -122.3937 }, ['name', 'seen_at']);
    const s = await openStudio(browser(), baseUrl(), { timezoneId: 'Asia/Tokyo' });
    const { page } = s;
    // The address /embed.js frames (the test above): the map alone, signed out.
    await page.goto(`${baseUrl()}/public/${map.id}?embed=1`);
    await waitMapReady(page);
    expect(await page.locator('.map-toolbar').isVisible()).toBe(false);
    await expectTooltipInPickedZone(page);
    await s.context.close();
  }, 90_000);

  it("gives a user's browser no test hooks: no map global, no bench page", async () => {
    const { map, maker } = await publishedMap();
    // A plain browser context: no init script setting window.__studioTestHooks, as for any user.
    const context = await browser().newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${baseUrl()}/public/${map.id}`);
      await page.getByRole('heading', { name: map.name }).waitFor({ timeout: 45_000 });
      await page.locator('.kepler-box canvas').first().waitFor({ timeout: 45_000 });
      expect(await page.evaluate(() => [typeof window.__studioMap, typeof window.__studioMapReady])).toEqual(['undefined', 'undefined']);
      await signInThroughUi(page, baseUrl(), maker.email, maker.password);
      await page.goto(`${baseUrl()}/bench/kepler-csv/${map.id}`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
