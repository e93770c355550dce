import { describe, expect, it } from 'vitest';
import type { KeplerFile } from '@studio/schema';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, waitMapReady } from './pixels';
import { v0File, v1File } from '../../server/test/kepler-fixtures';

const browser = useBrowser();

/**
 * kepler.gl files in the browser: "Import kepler.gl map" in the maps list makes the datasets and opens the map
 * with the file's layers drawn; "Export kepler.gl map" downloads the same format. A v0 file (kepler.gl 1.x)
 * opens too: kepler's own schema migrates its config in the builder.
 */
describe('kepler.gl files', () => {
  // Four datasets ingested and four layers drawn in kepler: past a minute on a loaded 2-core machine.
  it('imports a v1 file from the maps list: the builder opens with its four layers drawn on the new datasets, and exports it again', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Kepler ${unique()}`);
    const kim = await createUser(admin, team.id, 'Kim Kepler', `kim.${unique()}@e2e.studio.test`);
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), kim.email, kim.password);
    await page.goto(`${baseUrl()}/workspace/maps`);
    await page.getByRole('button', { name: 'Import kepler.gl map' }).waitFor();
    await page.getByLabel('kepler.gl map file').setInputFiles({ name: 'nyc-trips.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(v1File())) });
    await page.waitForURL(/\/[0-9a-f]{8}-[0-9a-f-]{27}$/, { timeout: 30_000 });
    await waitMapReady(page);
    const mapId = new URL(page.url()).pathname.slice(1);
    const record = await kim.client.records('maps').get(mapId);
    expect(record.name).toBe('NYC trips');
    // A record's datasets come in no particular order: each is found by its name.
    const [trips, zones] = ['Trips', 'Zones'].map((n) => record.datasets.find((d) => d.name === n)!.id);
    const layers = await page.evaluate(() => window.__studioMap!.layers().map((l) => [l.type, l.dataId]));
    expect(layers).toEqual([['point', trips], ['arc', trips], ['hexagon', trips], ['geojson', zones]]);
    await page.screenshot({ path: '/tmp/studio-kepler-import.png' });
    expect(await countPixels(page, null)).toBeGreaterThan(100);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export kepler.gl map' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('NYC_trips.kepler.json');
    const exported = JSON.parse(await streamText(await file.createReadStream())) as KeplerFile;
    expect(exported.datasets.map((d) => [d.data.id, d.data.allData.length])).toEqual([[trips, 3], [zones, 2]]);
    expect((exported.config.config.visState as { layers: unknown[] }).layers).toHaveLength(4);
  }, 180_000);

  it('opens a v0 file (kepler.gl 1.x) imported through the API: its point and arc layers are drawn', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Kepler v0 ${unique()}`);
    const lee = await createUser(admin, team.id, 'Lee Legacy', `lee.${unique()}@e2e.studio.test`);
    const map = await lee.client.maps.importKepler(v0File());
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), lee.email, lee.password);
    await page.goto(`${baseUrl()}/${map.id}`);
    await waitMapReady(page);
    const trips = map.datasets[0]!.id;
    expect(await page.evaluate(() => window.__studioMap!.layers().map((l) => [l.type, l.dataId]))).toEqual([['point', trips], ['arc', trips]]);
    await page.screenshot({ path: '/tmp/studio-kepler-v0.png' });
    expect(await countPixels(page, null)).toBeGreaterThan(100);

    // Reordered from the keyboard: the first layer's "Move down", reached with Shift+Tab from its name field
    // (its "Move up" is off: it is first) and pressed with Enter, puts it second; the focus stays on the button.
    const order = () => page.evaluate(() => window.__studioMap!.layerOrder());
    const before = await order();
    expect(before).toHaveLength(2);
    await page.getByRole('textbox', { name: 'Layer name' }).first().focus();
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')).toMatch(/^Move .+ down$/);
    await page.screenshot({ path: '/tmp/studio-layer-move.png', clip: { x: 260, y: 420, width: 360, height: 360 } });
    await page.keyboard.press('Enter');
    await expect.poll(order).toEqual([...before].reverse());
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')).toMatch(/^Move .+ (up|down)$/);
  });
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
