import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\nCoit Tower,37.8024,-122.4058\n';
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 }, mapStyle: { styleType: 'blank' } } };

describe.each(STORES)('map publishing on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens | 'anonymous', method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...(who === 'anonymous' ? {} : { authorization: cast.tokens[who] }), ...headers } });
  let mapId: string;
  let datasetId: string;
  let otherDatasetId: string;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const upload = async () =>
      (await s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Landmarks', payload: CSV, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } })).json().item.id as string;
    datasetId = await upload();
    otherDatasetId = await upload();
    const created = await as('owner', 'POST', '/v1/maps', { name: 'Landmarks map', latestState: STATE, datasets: [datasetId] });
    expect(created.statusCode).toBe(201);
    mapId = created.json().item.id;
  });
  afterAll(async () => s?.dispose());

  it('refuses an unknown kind, non-owners, and unsaved maps', async () => {
    expect((await as('owner', 'POST', `/v1/maps/${mapId}/publish/dashboard`, {})).statusCode).toBe(422);
    expect((await as('outsider', 'POST', `/v1/maps/${mapId}/publish/map`, {})).statusCode).toBe(404);
    const empty = (await as('owner', 'POST', '/v1/maps', { name: 'empty' })).json().item.id;
    expect((await as('owner', 'POST', `/v1/maps/${empty}/publish/map`, {})).json().message).toBe('Save the map before publishing it');
  });

  it('publishes without a password: anonymous callers read the map and its datasets, not other data', async () => {
    const pub = await as('owner', 'POST', `/v1/maps/${mapId}/publish/map`, {});
    expect(pub.statusCode).toBe(201);
    expect(pub.json().item).toMatchObject({ mapId, kind: 'map', passwordProtected: false, datasetIds: [datasetId] });
    const open = await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`);
    expect(open.json().item).toMatchObject({ name: 'Landmarks map', latestState: STATE });
    const data = await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map/datasets/${datasetId}`);
    expect([data.statusCode, data.headers['content-type']]).toEqual([200, 'application/vnd.apache.arrow.stream']);
    expect(data.rawPayload.length).toBeGreaterThan(100);
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map/datasets/${otherDatasetId}`)).statusCode).toBe(404);
    expect((await as('owner', 'GET', '/v1/maps/published')).json().items.map((i: { mapId: string }) => i.mapId)).toEqual([mapId]);
    expect((await as('viewer', 'GET', `/v1/maps/published/list?maps=${mapId},${otherDatasetId}`)).json().items).toHaveLength(1);
  });

  it('asks for the password of a protected map, except from people who can read the map', async () => {
    await as('owner', 'POST', `/v1/maps/${mapId}/publish/map`, { password: 'open sesame' });
    const refused = await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`);
    expect([refused.statusCode, refused.json().details]).toEqual([401, 'passwordRequired']);
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map?infoOnly=true`)).json().item).toMatchObject({ passwordProtected: true });
    expect((await as('anonymous', 'POST', `/v1/maps/${mapId}/published-map/password`, { password: 'wrong' })).statusCode).toBe(403);
    const ok = await as('anonymous', 'POST', `/v1/maps/${mapId}/published-map/password`, { password: 'open sesame' });
    expect(ok.json().item.latestState).toEqual(STATE);
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map/datasets/${datasetId}`)).statusCode).toBe(401);
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map/datasets/${datasetId}`, undefined, { 'x-map-password': 'open sesame' })).statusCode).toBe(200);
    expect((await as('owner', 'GET', `/v1/maps/${mapId}/published-map`)).statusCode).toBe(200);
    // Publishing again without a password field keeps the password.
    await as('owner', 'POST', `/v1/maps/${mapId}/publish/map`, {});
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`)).statusCode).toBe(401);
  });

  it('features maps (administrators), highlights one at a time, and unpublishing removes them', async () => {
    expect((await as('owner', 'POST', '/v1/maps/published/featured', { mapId })).statusCode).toBe(403);
    const f = await as('admin', 'POST', '/v1/maps/published/featured', { mapId, title: 'Landmarks' });
    expect(f.statusCode).toBe(201);
    const id = f.json().item.id;
    expect((await as('admin', 'POST', '/v1/maps/published/featured', { mapId })).statusCode).toBe(409);
    expect((await as('admin', 'PUT', `/v1/maps/published/featured/${id}`, { title: 'SF landmarks' })).json().item.title).toBe('SF landmarks');
    expect((await as('admin', 'PUT', `/v1/maps/published/featured/${id}/highlight`)).json().item.highlighted).toBe(true);
    const list = (await as('viewer', 'GET', '/v1/maps/published/featured')).json().items;
    expect(list).toMatchObject([{ id, mapId, title: 'SF landmarks', highlighted: true, map: { mapId } }]);
    expect((await as('owner', 'DELETE', `/v1/maps/${mapId}/unpublish`)).statusCode).toBe(204);
    expect((await as('anonymous', 'GET', `/v1/maps/${mapId}/published-map`)).statusCode).toBe(404);
    expect((await as('viewer', 'GET', '/v1/maps/published/featured')).json().items).toEqual([]);
    expect((await as('owner', 'DELETE', `/v1/maps/${mapId}/unpublish`)).statusCode).toBe(404);
  });
});
