import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';
import { legendsWithTextDuringExport } from './legend-export';

const browser = useBrowser();
// Populations from 10 to 1000: the size legend shows 10, 500 and 1,000 (legend/size-ticks.ts).
const CSV = ['name,lat,lng,pop', ...[10, 120, 300, 500, 800, 1000].map((p, i) => `t${i},${(37.74 + i * 0.01).toFixed(4)},${(-122.45 + i * 0.01).toFixed(4)},${p}`)].join('\n');

describe('manual size-legend labels', () => {
  it('renames a size legend value in the builder, saves it with the map, and the published view and its PNG export show it, not editable', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Size team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Sid Size', `sid.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Towns ${unique()}` });
    const layer = {
      id: 'towns',
      type: 'point',
      config: { dataId: dataset.id, label: 'Towns', color: [18, 92, 175], columns: { lat: 'lat', lng: 'lng', altitude: null }, isVisible: true, visConfig: { radius: 10, radiusRange: [2, 30] } },
      visualChannels: { sizeField: { name: 'pop', type: 'integer' }, sizeScale: 'sqrt' },
    };
    const kepler = { version: 'v1', config: { visState: { layers: [layer] }, mapState: { latitude: 37.765, longitude: -122.425, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
    const map = await maker.client.records('maps').save({ name: `Towns ${unique()}`, datasets: [dataset.id], latestState: { studioVersion: 1, kepler } });

    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/${map.id}`);
    await waitMapReady(s.page);
    await s.page.locator('.map-control-button.show-legend').click();
    // The size legend: a row per value, each label an input in the builder.
    const labels = s.page.locator('.map-legend .studio-size-legend__editor');
    await expect.poll(() => labels.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual(['10', '500', '1,000']);
    await s.page.getByLabel('Size legend label for 500').fill('Mid-sized town');
    await s.page.getByRole('button', { name: 'Save', exact: true }).click();
    await s.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = (await maker.client.records('maps').get(map.id)).latestState as { sizeLegends?: unknown };
    expect(saved.sizeLegends).toEqual({ towns: { '500': 'Mid-sized town' } });
    await maker.client.maps.publishWith(map.id, { title: 'Towns' });

    const anon = await openStudio(browser(), baseUrl());
    const { page } = anon;
    await page.goto(`${baseUrl()}/public/${map.id}`);
    await waitMapReady(page);
    const legend = page.locator('.map-legend');
    await legend.getByText('Mid-sized town', { exact: true }).waitFor();
    expect(await legend.locator('.studio-size-legend__label').allTextContents()).toEqual(['10', 'Mid-sized town', '1,000']);
    expect(await legend.locator('.studio-size-legend__editor').count()).toBe(0);
    await legend.first().screenshot({ path: '/tmp/studio-size-legend.png' });

    // The PNG export draws kepler's legend again off-screen (with the studio's legend content): the label is there too.
    expect(await legendsWithTextDuringExport(page, 'Mid-sized town')).toBe(2);
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 150_000);
});
