import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * The calls kepler.gl's own Foursquare cloud provider makes (createMap, listMaps, downloadMap, updateMap,
 * thumbnail upload), answered by ours: the saved map object goes in and comes back unchanged.
 */

// A 2x1 PNG, so a byte-for-byte comparison means something.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000002000000010806000000f478d4fa0000001049444154785e63f8cfc0f01f8461000ffd03fd6bb5f2490000000049454e44ae426082',
  'hex',
);

/** What kepler's `KeplerGlSchema.save()` produces (datasets with fields and rows, config v1, info). */
function keplerSavedMap() {
  return {
    datasets: [
      {
        version: 'v1',
        data: {
          id: 'sf-points',
          label: 'SF points',
          color: [143, 47, 191],
          allData: [
            ['a', 37.77, -122.42, 1.5],
            ['b', 37.78, -122.41, null],
          ],
          fields: [
            { name: 'name', type: 'string', format: '', analyzerType: 'STRING' },
            { name: 'lat', type: 'real', format: '', analyzerType: 'FLOAT' },
            { name: 'lng', type: 'real', format: '', analyzerType: 'FLOAT' },
            { name: 'value', type: 'real', format: '', analyzerType: 'FLOAT' },
          ],
        },
      },
    ],
    config: {
      version: 'v1',
      config: {
        visState: {
          filters: [],
          layers: [
            {
              id: 'points-1',
              type: 'point',
              config: {
                dataId: 'sf-points',
                label: 'Points',
                color: [18, 147, 154],
                columns: { lat: 'lat', lng: 'lng', altitude: null },
                isVisible: true,
                visConfig: { radius: 10, opacity: 0.8, filled: true, colorRange: { name: 'Global Warming', type: 'sequential', category: 'Uber', colors: ['#5A1846', '#FFC300'] } },
                hidden: false,
                textLabel: [],
              },
              visualChannels: { colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
            },
          ],
          interactionConfig: { tooltip: { fieldsToShow: { 'sf-points': [{ name: 'name', format: null }] }, enabled: true } },
          layerBlending: 'normal',
          splitMaps: [],
          animationConfig: { currentTime: null, speed: 1 },
        },
        mapState: { bearing: 0, dragRotate: false, latitude: 37.775, longitude: -122.415, pitch: 0, zoom: 11.5, isSplit: false },
        mapStyle: { styleType: 'dark', topLayerGroups: {}, visibleLayerGroups: { label: true, road: true, border: false }, threeDBuildingColor: [9.6, 9.6, 9.6], mapStyles: {} },
      },
    },
    info: { app: 'kepler.gl', created_at: 'Sat Nov 21 2026 06:00:00 GMT+0000', title: 'SF points', description: 'From kepler.gl' },
  };
}

describe.each(STORES)('kepler.gl cloud provider calls on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner, ...headers } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('creates, lists, downloads unchanged, updates and takes a thumbnail', async () => {
    const saved = keplerSavedMap();
    const created = await as('POST', '/v1/maps', { name: 'SF points', description: 'From kepler.gl', importSource: 'kepler.gl-raw', latestState: { data: saved } });
    expect(created.statusCode).toBe(201);
    const map = created.json().item;
    expect(map).toMatchObject({ name: 'SF points', description: 'From kepler.gl', importSource: 'kepler.gl-raw' });

    // An ordinary map of the same owner is not listed under kepler's import source.
    const other = (await as('POST', '/v1/maps', { name: 'Studio map' })).json().item;
    const listed = await as('GET', '/v1/maps?importSource=kepler.gl-raw');
    expect(listed.statusCode).toBe(200);
    const ids = listed.json().items.map((m: { id: string }) => m.id);
    expect(ids).toContain(map.id);
    expect(ids).not.toContain(other.id);

    const got = await as('GET', `/v1/maps/${map.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().item.latestState.data).toStrictEqual(saved);

    const changed = keplerSavedMap();
    changed.config.config.mapState.zoom = 8;
    changed.config.config.visState.layers[0]!.config.color = [255, 0, 0];
    const updated = await as('PUT', `/v1/maps/${map.id}`, { name: 'SF points', description: 'From kepler.gl', importSource: 'kepler.gl-raw', latestState: { data: changed } });
    expect(updated.statusCode).toBe(200);
    expect((await as('GET', `/v1/maps/${map.id}`)).json().item.latestState.data).toStrictEqual(changed);

    const put = await as('PUT', `/v1/maps/${map.id}/thumbnail`, PNG, { 'content-type': 'image/png' });
    expect(put.statusCode).toBe(200);
    expect(put.json().item.thumbnailUrl).toMatch(`/v1/maps/${map.id}/thumbnail`);
    const thumb = await as('GET', `/v1/maps/${map.id}/thumbnail`);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(thumb.rawPayload, PNG)).toBe(0);
  });
});
