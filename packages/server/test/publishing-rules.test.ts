import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * What readers and administrators of published maps are told, counted and shown (services/publishing.ts):
 * the messages that explain a refusal, the view counter, the sample list and featured-map errors.
 * Written from the mutants the publishing-passwords module's Stryker run left alive (docs/mutation-testing.md).
 */
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\n';
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
const MISSING = '00000000-0000-4000-8000-000000000099';

describe.each(STORES)('published maps, as their readers see them, on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens | 'anonymous', method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...(who === 'anonymous' ? {} : { authorization: cast.tokens[who] }), ...headers } });
  const said = async (res: Promise<{ statusCode: number; json: () => { message?: string } }>) => {
    const r = await res;
    return [r.statusCode, r.json().message];
  };
  let mapId: string;
  let datasetId: string;
  const views = async () => (await as('owner', 'GET', '/v1/maps/published')).json().items.find((i: { mapId: string }) => i.mapId === mapId)?.views as number;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const up = await as('owner', 'POST', '/v1/datasets/data?name=Landmarks', CSV, { 'content-type': 'text/csv' });
    datasetId = up.json().item.id;
    mapId = (await as('owner', 'POST', '/v1/maps', { name: 'Landmarks map', latestState: STATE, datasets: [datasetId] })).json().item.id;
  });
  afterAll(async () => s?.dispose());

  it('an owner with nothing published gets an empty list; an unknown kind is named with the kinds there are', async () => {
    expect((await as('editor', 'GET', '/v1/maps/published')).json()).toEqual({ items: [], total: 0 });
    const bad = await as('owner', 'POST', `/v1/maps/${mapId}/publish/dashboard`, {});
    expect([bad.statusCode, bad.json().message, bad.json().details]).toEqual([422, 'Unknown publication kind: dashboard', expect.stringMatching(/^One of: map/)]);
  });

  it('counts a view for each opening and each unlock, not for the info a list shows', async () => {
    expect((await as('owner', 'POST', `/v1/maps/${mapId}/publish/map`, {})).statusCode).toBe(201);
    expect(await views()).toBe(0);
    await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`);
    await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`);
    await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map?infoOnly=true`);
    expect(await views()).toBe(2);
    await as('owner', 'POST', `/v1/maps/${mapId}/publish/map`, { password: 'open sesame' });
    expect(await said(as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`))).toEqual([401, 'This map is protected by a password']);
    expect(await said(as('anonymous', 'POST', `/v1/maps/${mapId}/published-map/password`, { password: 'not it' }))).toEqual([403, 'Wrong password for this map']);
    const before = await views();
    expect((await as('anonymous', 'POST', `/v1/maps/${mapId}/published-map/password`, { password: 'open sesame' })).statusCode).toBe(200);
    expect(await views()).toBe(before + 1);
    // Refusals count nothing.
    await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`);
    expect(await views()).toBe(before + 1);
  });

  it('publishes with the documented uploadOptions body (CAT-159): title, description and password, and refuses options for another record', async () => {
    const other = (await as('owner', 'POST', '/v1/maps', { name: 'Harbour map', latestState: STATE, datasets: [datasetId] })).json().item.id;
    const res = await as('owner', 'POST', `/v1/maps/${other}/publish/resources`, { uploadOptions: { title: 'The harbour', description: 'Piers and ferries', password: 'tide' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().item).toMatchObject({ mapId: other, name: 'The harbour', description: 'Piers and ferries', passwordProtected: true, datasetIds: [datasetId] });
    expect(await said(as('anonymous', 'GET', `/v1/maps/${other}/published-map`))).toEqual([401, 'This map is protected by a password']);
    // Absent options keep the password; the name falls back to the map's own.
    const again = await as('owner', 'POST', `/v1/maps/${other}/publish/resources`, {});
    expect(again.json().item).toMatchObject({ name: 'Harbour map', passwordProtected: true });
    expect((await as('owner', 'POST', `/v1/maps/${other}/publish/resources`, { uploadOptions: { password: null } })).json().item.passwordProtected).toBe(false);
    expect(await said(as('owner', 'POST', `/v1/maps/${other}/publish/resources`, { uploadOptions: { mapId } }))).toEqual([422, 'uploadOptions.mapId names another map than the path']);
    expect(await said(as('owner', 'POST', `/v1/maps/${other}/publish/resources`, { uploadOptions: { insightId: other } }))).toEqual([422, 'uploadOptions.insightId names an insight: this publishes a map']);
    expect((await as('viewer', 'POST', `/v1/maps/${other}/publish/resources`, { uploadOptions: {} })).statusCode).toBeGreaterThanOrEqual(403);
    expect((await as('anonymous', 'GET', `/v1/maps/${other}/published-map`)).json().item.name).toBe('Harbour map');
  });

  it('a dataset of a map that is not published is not found, and says so', async () => {
    expect(await said(as('anonymous', 'GET', `/v1/maps/${MISSING}/published-map/datasets/${datasetId}`))).toEqual([404, 'Published map not found']);
    expect(await said(as('anonymous', 'GET', `/v1/maps/${MISSING}/published-map`))).toEqual([404, 'Published map not found']);
  });

  it('lists as samples only the publications of sample maps', async () => {
    const sample = (await as('admin', 'POST', '/v1/maps', { name: 'Sample harbor', latestState: STATE })).json().item.id;
    // Published before it became a sample: a sample itself is read-only (publishing it is refused, 403).
    expect((await as('admin', 'POST', `/v1/maps/${sample}/publish/map`, {})).statusCode).toBe(201);
    await s.services.db.updateTable('resources').set({ is_sample: true }).where('id', '=', sample).execute();
    const items = (await as('viewer', 'GET', '/v1/maps/published/samples')).json().items.map((i: { mapId: string }) => i.mapId);
    expect(items).toEqual([sample]);
  });

  it('featured maps: each refusal names what is missing; a feature without texts has empty ones', async () => {
    expect(await said(as('admin', 'POST', '/v1/maps/published/featured', { mapId: MISSING }))).toEqual([404, 'Published map not found']);
    const f = await as('admin', 'POST', '/v1/maps/published/featured', { mapId });
    expect(f.statusCode).toBe(201);
    expect(f.json().item).toMatchObject({ mapId, title: '', description: '', position: 0, highlighted: false });
    expect(await said(as('admin', 'POST', '/v1/maps/published/featured', { mapId }))).toEqual([409, 'This map is already featured']);
    expect(await said(as('admin', 'PUT', `/v1/maps/published/featured/${MISSING}`, { title: 'x' }))).toEqual([404, 'Featured map not found']);
    expect(await said(as('admin', 'PUT', `/v1/maps/published/featured/${MISSING}/highlight`))).toEqual([404, 'Featured map not found']);
    expect(await said(as('admin', 'DELETE', `/v1/maps/published/featured/${MISSING}`))).toEqual([404, 'Featured map not found']);
    expect((await as('admin', 'DELETE', `/v1/maps/published/featured/${f.json().item.id}`)).statusCode).toBe(204);
    expect((await as('viewer', 'GET', '/v1/maps/published/featured')).json().items).toEqual([]);
  });
});
