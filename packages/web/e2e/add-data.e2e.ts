import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, countPngPixels, waitMapReady } from './pixels';
import { tooltipAtCentre } from './kepler-panels';

const browser = useBrowser();

/** Points around the bay as GeoJSON: ingested with latitude/longitude columns beside the geometry. */
const GEOJSON = JSON.stringify({
  type: 'FeatureCollection',
  features: Array.from({ length: 12 }, (_, i) => ({ type: 'Feature', properties: { name: `pier ${i}` }, geometry: { type: 'Point', coordinates: [-122.42 + (i % 4) * 0.02, 37.76 + Math.floor(i / 4) * 0.02] } })),
});
const CSV = ['name,lat,lng', ...Array.from({ length: 12 }, (_, i) => `cafe ${i},${(37.7 + (i % 3) * 0.02).toFixed(4)},${(-122.48 + Math.floor(i / 3) * 0.02).toFixed(4)}`)].join('\n');

describe('adding data to a map', () => {
  it('picks a sample from the catalog in "Add Data", opens one layer per dataset, and names a missing map', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Add data team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Ada Adder', `ada.${unique()}@e2e.studio.test`);
    const points = await maker.client.datasets.upload(GEOJSON, { contentType: 'application/geo+json', name: `Piers ${unique()}` });
    const cafes = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Cafes ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);

    // /new → kepler's "Add Data" is the studio's catalog: the samples, searched, one picked.
    await page.goto(`${baseUrl()}/new`);
    await waitMapReady(page);
    await page.getByText('Add Data', { exact: true }).first().click();
    const picker = page.locator('.add-data');
    await picker.waitFor();
    expect(await picker.getByRole('tab', { name: 'Catalog' }).getAttribute('aria-selected')).toBe('true');
    await picker.getByLabel('Datasets', { exact: true }).selectOption('samples');
    await picker.getByLabel('Search datasets').fill('airports');
    const airports = picker.getByRole('checkbox', { name: 'US airports' });
    await airports.waitFor();
    await airports.check();
    await picker.getByRole('button', { name: 'Add to map' }).click();
    await picker.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => window.__studioMap!.layers().length), { timeout: 30_000 }).toBe(1);
    const [layer] = await page.evaluate(() => window.__studioMap!.layers());
    expect(layer!.type).toBe('point');
    await expect.poll(() => countPixels(page, null), { timeout: 30_000 }).toBeGreaterThan(100);
    await page.screenshot({ path: '/tmp/studio-add-data.png' });

    // Saved, the map keeps the dataset added through the picker, and its thumbnail shows in the maps list.
    const mapName = `Airports ${unique()}`;
    await page.getByLabel('Map name').fill(mapName);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const mapId = new URL(page.url()).pathname.slice(1);
    const saved = await maker.client.records('maps').get(mapId);
    expect(saved.datasets.map((d) => d.id)).toEqual([layer!.dataId]);
    expect(saved.thumbnailUrl).toBeTruthy();
    const thumbnail = await maker.client.raw('GET', saved.thumbnailUrl!);
    expect([thumbnail.status, thumbnail.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(await countPngPixels(page, Buffer.from(await thumbnail.arrayBuffer()), null)).toBeGreaterThan(1000);
    await page.goto(`${baseUrl()}/workspace/maps`);
    await page.getByRole('row').filter({ hasText: mapName }).locator('.thumb[data-thumbnail="loaded"]').waitFor();

    // Two datasets in the address: two layers, whatever kepler could guess for each.
    await page.goto(`${baseUrl()}/new?datasetUuid=${points.id}&datasetUuid=${cafes.id}`);
    await waitMapReady(page);
    const layers = await page.evaluate(() => window.__studioMap!.layers());
    expect(layers.map((l) => l.dataId).sort()).toEqual([points.id, cafes.id].sort());

    // A mistyped or unknown map address is a missing map, not an error about ids.
    for (const address of ['not-a-map', '00000000-0000-4000-8000-000000000042']) {
      await page.goto(`${baseUrl()}/${address}`);
      await page.getByRole('heading', { name: 'Map not found' }).waitFor();
    }
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);

  it('shows a timestamp as a date and an integer as an integer in the tooltip', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Tooltip team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Tia Tooltip', `tia.${unique()}@e2e.studio.test`);
    const visit = await maker.client.datasets.upload('name,lat,lng,visits,seen_at\nFerry Building,37.7955,-122.3937,1250,2024-03-05 14:30:00\n', { contentType: 'text/csv', name: `Visit ${unique()}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${visit.id}`);
    await waitMapReady(page);
    // The one point sits where kepler centred the view: the middle of the map. The browser's zone is the
    // machine's (UTC here); time-zone.e2e.ts reads it in others.
    const text = await tooltipAtCentre(page);
    expect(text).toContain('2024-03-05 14:30:00 UTC');
    expect(text).toMatch(/visits 1,?250(?![.\d])/);
    await page.screenshot({ path: '/tmp/studio-tooltip.png' });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
