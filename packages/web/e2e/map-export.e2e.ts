import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { pngRegions, waitMapReady } from './pixels';

const browser = useBrowser();
const CSV = ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.74 + (i % 5) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 5) * 0.02).toFixed(4)}`)].join('\n');
const MAGENTA: [number, number, number] = [230, 20, 140];

describe('exporting a map as an image', () => {
  it('downloads a 1920×1080 PNG with the title top left and the layer’s legend swatch in the corner, over the basemap', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Export team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Ema Exporter', `ema.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Harbour ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(page);
    await page.evaluate((c) => window.__studioMap!.setLayerColor(0, c), MAGENTA);
    await page.getByLabel('Map name').fill('Harbour points');

    await page.getByRole('button', { name: 'Export image' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export image' });
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Harbour points');
    expect(await dialog.getByLabel('Width (pixels)').inputValue()).toBe('1920');
    // Past 4K the form says why and does not export.
    await dialog.getByLabel('Width (pixels)').fill('5000');
    await dialog.getByRole('alert').filter({ hasText: 'at most 3840 × 2160' }).waitFor();
    await dialog.getByLabel('Size').selectOption('1920 × 1080');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), dialog.getByRole('button', { name: 'Export', exact: true }).click({ timeout: 60_000 })]);
    expect(download.suggestedFilename()).toBe('Harbour_points.png');
    const png = await readFile((await download.path())!);
    await writeFile('/tmp/studio-map-export.png', png);

    const { width, height, regions: out } = await pngRegions(page, png, {
      title: [0, 0, 480, 90],
      titleFree: [480, 0, 480, 90],
      // kepler's export legend sits bottom right, above the attribution.
      legend: [1920 - 420, 1080 - 400, 420, 370],
    }, { rgb: MAGENTA });
    expect({ width, height }).toEqual({ width: 1920, height: 1080 });
    // The basemap under everything (no transparent pixel); the title's ink top left, and none beside it; the
    // legend's magenta swatch in the bottom right corner.
    expect(out.titleFree!.opaque).toBe(480 * 90);
    expect(out.title!.dark).toBeGreaterThan(300);
    expect(out.titleFree!.dark).toBeLessThan(50);
    expect(out.legend!.colour).toBeGreaterThan(50);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
