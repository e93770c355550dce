import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';

const browser = useBrowser();

const CSV = ['name,lat,lng', ...Array.from({ length: 24 }, (_, i) => `p${i},${(37.70 + (i % 6) * 0.02).toFixed(4)},${(-122.50 + Math.floor(i / 6) * 0.03).toFixed(4)}`)].join('\n');

describe('map roles', () => {
  it('viewers get a read-only map, a save against another holder is refused naming them, a clone opens with the same layer', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Roles team ${unique()}`);
    const ann = await createUser(admin, team.id, 'Ann Author', `ann.${unique()}@e2e.studio.test`);
    const vic = await createUser(admin, team.id, 'Vic Viewer', `vic.${unique()}@e2e.studio.test`);
    const eli = await createUser(admin, team.id, 'Eli Editor', `eli.${unique()}@e2e.studio.test`);
    const dataset = await ann.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Roles points ${unique()}` });
    // No saved state: the view creates kepler's layers for the dataset on open.
    const map = await ann.client.records('maps').save({ name: `Roles map ${unique()}`, datasets: [dataset.id] });
    await ann.client.records('maps').share(map.id, { users: [{ userId: vic.user.id, role: 'viewer' }, { userId: eli.user.id, role: 'editor' }] });

    // (a) The viewer, before anyone holds the lock: read only, told so (opening takes no lock for a
    // viewer); no Save, no Publish, name not editable, no kepler side panel to edit layers.
    const v = await openStudio(browser(), baseUrl());
    await signInThroughUi(v.page, baseUrl(), vic.email, vic.password);
    await v.page.goto(`${baseUrl()}/${map.id}`);
    await v.page.getByRole('note').filter({ hasText: 'Read only: you can view this map.' }).waitFor();
    await waitMapReady(v.page);
    expect(await v.page.evaluate(() => window.__studioMap!.layers())).toMatchObject([{ type: 'point', dataId: dataset.id }]);
    expect(await v.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    expect(await v.page.getByRole('button', { name: 'Publish' }).count()).toBe(0);
    expect(await v.page.getByLabel('Map name').isDisabled()).toBe(true);
    expect(await v.page.locator('.kepler-box .side-panel--container').count()).toBe(0);
    expect(await v.page.locator('.kepler-box .layer__enable-config').count()).toBe(0);
    await v.page.screenshot({ path: '/tmp/studio-map-viewer.png' });
    expect(v.foreign).toEqual([]);
    await v.context.close();

    // Ann opens the map after the viewer (whose visit took no lock: Save is there), taking the edit
    // lock, and saves it, so it has a saved kepler config.
    const a = await openStudio(browser(), baseUrl());
    await signInThroughUi(a.page, baseUrl(), ann.email, ann.password);
    await a.page.goto(`${baseUrl()}/${map.id}`);
    await waitMapReady(a.page);
    const layers = await a.page.evaluate(() => window.__studioMap!.layers());
    expect(layers).toMatchObject([{ type: 'point', dataId: dataset.id }]);
    // The selectors the viewer check relies on: the owner has kepler's side panel with the layer's settings.
    expect(await a.page.locator('.kepler-box .side-panel--container').count()).toBe(1);
    expect(await a.page.locator('.kepler-box .layer__enable-config').count()).toBe(1);
    await a.page.getByRole('button', { name: 'Save', exact: true }).click();
    await a.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await ann.client.records('maps').get(map.id)).latestState).toMatchObject({ studioVersion: 1, kepler: { version: 'v1' } });

    // (b) The editor while Ann holds the lock: the app opens it read only naming Ann, and a save through
    // the API from Eli's browser session is refused with 409 naming Ann.
    const e = await openStudio(browser(), baseUrl());
    await signInThroughUi(e.page, baseUrl(), eli.email, eli.password);
    await e.page.goto(`${baseUrl()}/${map.id}`);
    await e.page.getByRole('note').filter({ hasText: 'Read only: Ann Author is editing this map.' }).waitFor();
    expect(await e.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    const refused = await e.page.evaluate(async (id) => {
      const token = JSON.parse(localStorage.getItem('studio.session')!).accessToken as string;
      const r = await fetch(`/v1/maps/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Eli was here' }) });
      return { status: r.status, body: await r.json() };
    }, map.id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`This map is being edited by Ann Author (${ann.email})`);
    expect((await ann.client.records('maps').get(map.id)).name).toBe(map.name);
    expect(e.foreign).toEqual([]);
    await e.context.close();

    // (c) Ann clones the map (the workspace list has no clone action: through the API); the clone opens with the same layer.
    const clone = await ann.client.records('maps').clone(map.id);
    expect(clone.id).not.toBe(map.id);
    expect(clone).toMatchObject({ datasets: [{ id: dataset.id }], latestState: { studioVersion: 1 } });
    await a.page.goto(`${baseUrl()}/${clone.id}`);
    await waitMapReady(a.page);
    expect(await a.page.evaluate(() => window.__studioMap!.layers())).toEqual(layers);
    expect(await a.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(1);
    expect(a.foreign).toEqual([]);
    await a.context.close();
  }, 180_000);
});
