import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, waitMapReady } from './pixels';

const browser = useBrowser();
const CSV = ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.74 + (i % 5) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 5) * 0.02).toFixed(4)}`)].join('\n');
const MAGENTA: [number, number, number] = [230, 20, 140];

describe('a published map’s legend', () => {
  it('opens kepler’s legend for readers, with a toggle per layer that hides the layer and its legend', async () => {
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
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 180_000);
});
