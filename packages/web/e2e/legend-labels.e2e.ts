import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';
import { legendsWithTextDuringExport } from './legend-export';
import { closeKeplerPopovers, colorFirstLayerBy } from './kepler-panels';

const browser = useBrowser();
const CSV = ['name,lat,lng,kind', ...Array.from({ length: 12 }, (_, i) => `p${i},${(37.74 + (i % 4) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 4) * 0.02).toFixed(4)},${i % 2 ? 'ferry' : 'bus'}`)].join('\n');

describe('manual legend labels (kepler.gl #533)', () => {
  it('renames a colour legend entry in the builder, saves it with the map, and the published view’s legend shows it, not editable', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Label team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Lia Label', `lia.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Stops ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(s.page);
    await colorFirstLayerBy(s.page, 'kind');
    await closeKeplerPopovers(s.page);
    // kepler's legend: a row per category, each label an input in the builder.
    await s.page.locator('.map-control-button.show-legend').click();
    const labels = s.page.locator('.map-legend .legend__label__title__editor');
    await expect.poll(() => labels.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual(['bus', 'ferry']);
    await labels.nth(1).fill('Ferry stops');
    await s.page.getByLabel('Map name').fill('Labelled');
    await s.page.getByRole('button', { name: 'Save', exact: true }).click();
    await s.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const mapId = new URL(s.page.url()).pathname.slice(1);
    await maker.client.maps.publishWith(mapId, { title: 'Labelled' });

    const anon = await openStudio(browser(), baseUrl());
    const { page } = anon;
    await page.goto(`${baseUrl()}/public/${mapId}`);
    await waitMapReady(page);
    const legend = page.locator('.map-legend');
    await legend.getByText('Ferry stops', { exact: true }).waitFor();
    expect(await legend.getByText('bus', { exact: true }).count()).toBe(1);
    expect(await legend.getByText('ferry', { exact: true }).count()).toBe(0);
    // A reader sees the labels; kepler's row editors are the builder's only.
    expect(await legend.locator('.legend__label__title__editor').count()).toBe(0);

    // The PNG export draws kepler's legend again off-screen (isExport): the label is in that one too. Counted
    // while it lives: legends showing the label, the screen's one and the export's.
    expect(await legendsWithTextDuringExport(page, 'Ferry stops')).toBe(2);
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 120_000);
});
