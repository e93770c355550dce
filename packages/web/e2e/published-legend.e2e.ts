import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, waitMapReady } from './pixels';

const browser = useBrowser();
const CSV = ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.74 + (i % 5) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 5) * 0.02).toFixed(4)}`)].join('\n');
const MAGENTA: [number, number, number] = [230, 20, 140];

describe('a published map’s legend', () => {
  it('opens kepler’s legend for readers, with a toggle per layer that hides the layer and its legend, and films the map', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Legend team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Leo Legend', `leo.${unique()}@e2e.studio.test`);
    const name = `Quays ${unique()}`;
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name });

    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(s.page);
    await s.page.evaluate((c) => window.__studioMap!.setLayerColor(0, c), MAGENTA);
    await s.page.getByLabel('Map name').fill('Quays');
    await s.page.getByRole('button', { name: 'Save', exact: true }).click();
    await s.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const mapId = new URL(s.page.url()).pathname.slice(1);
    await maker.client.maps.publishWith(mapId, { title: 'Quays' });

    const anon = await openStudio(browser(), baseUrl());
    const { page } = anon;
    await page.goto(`${baseUrl()}/public/${mapId}`);
    await waitMapReady(page);
    // kepler's legend is open without a click: the layer's name and its colour scale.
    await page.locator('.map-legend').getByText(name).first().waitFor();
    const toggles = page.getByRole('region', { name: 'Layers' });
    const toggle = toggles.getByRole('checkbox', { name });
    expect(await toggle.isChecked()).toBe(true);
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 20_000 }).toBeGreaterThan(20);
    await page.screenshot({ path: '/tmp/studio-published-legend.png' });

    await toggle.uncheck();
    // Points and legend swatch gone; the legend lists no layer.
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 20_000 }).toBe(0);
    expect(await page.locator('.map-legend').getByText(name).count()).toBe(0);
    await toggle.check();
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 20_000 }).toBeGreaterThan(20);

    // The reader films it too: a one-second camera path from this view to a closer one, as a WebM download.
    await page.getByRole('button', { name: 'Export video' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export video' });
    expect(await dialog.getByRole('radio', { name: /Time playback/ }).isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Add the current view' }).click();
    await page.evaluate(() => window.__studioMap!.setView({ ...window.__studioMap!.view()!, zoom: window.__studioMap!.view()!.zoom + 1 }));
    await dialog.getByRole('button', { name: 'Add the current view' }).click();
    await dialog.getByLabel('Length (seconds)').fill('1');
    await dialog.getByLabel('Size').selectOption('1280 × 720 (720p)');
    await dialog.getByLabel('Frames per second').selectOption('24');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), dialog.getByRole('button', { name: 'Export', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('Quays.webm');
    const bytes = await readFile((await download.path())!);
    expect([...bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]); // EBML: a Matroska/WebM file
    expect(bytes.length).toBeGreaterThan(2_000);
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 180_000);
});
