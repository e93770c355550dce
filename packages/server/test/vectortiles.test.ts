import { VectorTile } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_DATASETS } from '../src/samples/datasets';
import { STORES, jobEnded, useStudio, useWarehouse, warehouseConnection } from './harness';

const CSV = 'name,lat,lng,visits\nFerry Building,37.7955,-122.3937,10\nCoit Tower,37.8024,-122.4058,\nPainted Ladies,37.7763,-122.4328,7\n';
/** Two lines across the Golden Gate and the Bay Bridge, as WKT. */
const WKT = 'name,shape\nGolden Gate,"LINESTRING (-122.4783 37.8199, -122.4783 37.8080)"\nBay Bridge,"LINESTRING Z (-122.3880 37.7880 0, -122.3000 37.8150 0)"\nbroken,not a geometry\n';

/** The tile containing lng/lat at zoom z. */
function tileOf(lng: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return [Math.floor(((lng + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)];
}

/** The decoded features of one tile's layer, as GeoJSON in degrees. */
function featuresOf(bytes: Buffer, layer: string, z: number, x: number, y: number) {
  const l = new VectorTile(new Pbf(bytes)).layers[layer];
  if (!l) return [];
  return Array.from({ length: l.length }, (_, i) => {
    const f = l.feature(i).toGeoJSON(x, y, z);
    return { properties: (f.properties ?? {}) as Record<string, unknown>, geometry: f.geometry as { type: string; coordinates: number[] } };
  });
}

/** A scratch warehouse on the local PostgreSQL for the data-gateway route. */
const WAREHOUSE = useWarehouse('studio_vt', `create table stations (code text, lat double precision, lon double precision, docks int);
  insert into stations values ('EMB', 37.7929, -122.3971, 20), ('CIV', 37.7797, -122.4139, 15), ('XXX', null, null, 1)`);

describe.each(STORES)('vector-tile datasets on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const upload = async (body: string, contentType: string, name: string) => {
    const res = await ctx.s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${encodeURIComponent(name)}`, payload: body, headers: { authorization: ctx.cast.tokens.owner, 'content-type': contentType } });
    expect(res.statusCode).toBe(201);
    return res.json().item as { id: string };
  };
  const datasetCount = async () => Number((await ctx.s.services.db.selectFrom('resources').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 'dataset').executeTakeFirstOrThrow()).n);
  /** A tiling call's answer: 201 at once with the dataset pending and its job; then the dataset as the job left it, ready. */
  const built = async (res: Awaited<ReturnType<typeof as>>) => {
    expect(res.statusCode, res.body).toBe(201);
    const { item, job } = res.json();
    expect([item.status, job.kind, job.resourceId]).toEqual(['pending', 'vector-tiles', item.id]);
    const ended = await jobEnded((url) => as('owner', 'GET', url), job.id);
    expect([ended.status, ended.message]).toEqual(['succeeded', null]);
    return (await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item;
  };
  let points: { id: string };
  let tiled: { id: string; metadata: { vectorTile: { maxZoom: number; layer: string } } };

  beforeAll(async () => {
    points = await upload(CSV, 'text/csv', 'Landmarks');
    tiled = await built(await as('owner', 'POST', '/v1/datasets/vectortile', { datasetId: points.id, name: 'Landmark tiles' }));
  });

  it('tiles a point dataset: a ready vector-tile dataset with its zoom range, fields and tile URLs', () => {
    expect(tiled).toMatchObject({
      name: 'Landmark tiles',
      type: 'vector-tile',
      status: 'ready',
      metadata: {
        rowCount: 3,
        pipelineType: 'managed',
        vectorTile: {
          format: 'pmtiles',
          tileFormat: 'mvt',
          layer: 'features',
          geometryType: 'Point',
          minZoom: 0,
          fields: { name: 'String', visits: 'Number' },
          featureCount: 3,
          tileUrl: `/v1/datasets/${tiled.id}/tiles/{z}/{x}/{y}`,
        },
      },
    });
    // Three landmarks a kilometre or two apart stand apart in 4-pixel cells from zoom 9.
    expect(tiled.metadata.vectorTile.maxZoom).toBe(9);
  });

  it('answers tiles whose features sit at the landmarks with their properties', async () => {
    const z = tiled.metadata.vectorTile.maxZoom;
    const [x, y] = tileOf(-122.3937, 37.7955, z);
    const res = await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/${z}/${x}/${y}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    const ferry = featuresOf(res.rawPayload, 'features', z, x, y).find((f) => f.properties.name === 'Ferry Building');
    expect(ferry).toBeDefined();
    expect(ferry!.properties.visits).toBe(10);
    const [lng, lat] = ferry!.geometry.coordinates;
    expect(lng).toBeCloseTo(-122.3937, 3);
    expect(lat).toBeCloseTo(37.7955, 3);
    // The deepest tile holds all three (a null value is left out of the properties); the world tile one,
    // the first of their shared 4-pixel cell.
    const all = featuresOf(res.rawPayload, 'features', z, x, y);
    expect(all.map((f) => f.properties.name).sort()).toEqual(['Coit Tower', 'Ferry Building', 'Painted Ladies']);
    expect(all.find((f) => f.properties.name === 'Coit Tower')!.properties).not.toHaveProperty('visits');
    const world = featuresOf((await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/0/0/0`)).rawPayload, 'features', 0, 0, 0);
    expect(world.map((f) => f.properties.name)).toEqual(['Ferry Building']);
  });

  it('answers 204 for a tile with no feature (the Atlantic)', async () => {
    const [x, y] = tileOf(-30, 30, 6);
    expect((await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/6/${x}/${y}`)).statusCode).toBe(204);
  });

  it('answers TileJSON with tile URLs on the caller’s host, bounds and the layer’s fields', async () => {
    const res = await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles.json`, undefined, { host: 'maps.example:8443' });
    expect(res.statusCode).toBe(200);
    const tj = res.json();
    expect(tj).toMatchObject({ tilejson: '3.0.0', minzoom: 0, maxzoom: tiled.metadata.vectorTile.maxZoom, vector_layers: [{ id: 'features', fields: { name: 'String', visits: 'Number' } }] });
    expect(tj.tiles).toEqual([expect.stringMatching(new RegExp(`^http://maps\\.example:8443/v1/datasets/${tiled.id}/tiles/\\{z\\}/\\{x\\}/\\{y\\}\\?v=[\\w-]{16}$`))]);
    const [w, s, e, n] = tj.bounds as number[];
    expect([w!, s!, e!, n!].map((v) => Math.round(v * 1000) / 1000)).toEqual([-122.433, 37.776, -122.394, 37.802]);
  });

  it('tiles a sample dataset of polygons (World countries): Paris lies inside France at every zoom', async () => {
    const sample = SAMPLE_DATASETS.find((d) => d.name === 'World countries')!;
    const countries = await upload(String(await sample.build()), sample.contentType, sample.name);
    const item = await built(await as('owner', 'POST', '/v1/datasets/vectortile', { datasetId: countries.id, layerName: 'countries', columns: ['name'] }));
    const vt = item.metadata.vectorTile;
    expect(vt).toMatchObject({ geometryType: 'Polygon', layer: 'countries', fields: { name: 'String' }, featureCount: 177, minZoom: 0 });
    expect(vt.maxZoom).toBeGreaterThanOrEqual(4);
    for (const z of [0, 3, vt.maxZoom]) {
      const [x, y] = tileOf(2.35, 48.85, z);
      const tile = await as('owner', 'GET', `/v1/datasets/${item.id}/tiles/${z}/${x}/${y}`);
      const names = featuresOf(tile.rawPayload, 'countries', z, x, y).map((f) => f.properties.name);
      expect(names).toContain('France');
    }
    const [x, y] = tileOf(2.35, 48.85, 3);
    const layer = new VectorTile(new Pbf((await as('owner', 'GET', `/v1/datasets/${item.id}/tiles/3/${x}/${y}`)).rawPayload)).layers.countries!;
    expect(layer.feature(0).type).toBe(3);
  });

  it('tiles WKT lines named by geometryColumn, skipping text that is no geometry', async () => {
    const lines = await upload(WKT, 'text/csv', 'Bridges');
    const item = await built(await as('owner', 'POST', '/v1/datasets/vectortile', { datasetId: lines.id, geometryColumn: 'shape', maxZoom: 12 }));
    expect(item.metadata.vectorTile).toMatchObject({ geometryType: 'LineString', featureCount: 2, maxZoom: 12, fields: { name: 'String' } });
    const [x, y] = tileOf(-122.4783, 37.815, 12);
    const gg = featuresOf((await as('owner', 'GET', `/v1/datasets/${item.id}/tiles/12/${x}/${y}`)).rawPayload, 'features', 12, x, y);
    expect(gg.map((f) => [f.properties.name, f.geometry.type])).toEqual([['Golden Gate', 'LineString']]);
  });

  it.each([
    ['no datasetId', () => ({}), /datasetId/],
    ['a bad id', () => ({ datasetId: 'nope' }), /datasetId/],
    ['minZoom above maxZoom', () => ({ datasetId: points.id, minZoom: 9, maxZoom: 3 }), /minZoom must not be above maxZoom/],
    ['a zoom past 14', () => ({ datasetId: points.id, maxZoom: 15 }), /maxZoom/],
    ['latColumn alone', () => ({ datasetId: points.id, latColumn: 'lat' }), /latColumn and lngColumn together/],
    ['an unknown column', () => ({ datasetId: points.id, columns: ['nope'] }), /^Unknown column nope$/],
    ['a bad layer name', () => ({ datasetId: points.id, layerName: 'a b' }), /Layer names/],
  ])('refuses %s with 422 and creates nothing', async (_label, body, message) => {
    const before = await datasetCount();
    const res = await as('owner', 'POST', '/v1/datasets/vectortile', body());
    expect([res.statusCode, res.json().message]).toEqual([422, expect.stringMatching(message)]);
    expect(await datasetCount()).toBe(before);
  });

  it('refuses a dataset with no location (422) and creates nothing', async () => {
    const plain = await upload('name,visits\na,1\n', 'text/csv', 'No location');
    const before = await datasetCount();
    const res = await as('owner', 'POST', '/v1/datasets/vectortile', { datasetId: plain.id });
    expect([res.statusCode, res.json().message]).toEqual([422, 'The data has no location to tile']);
    expect(await datasetCount()).toBe(before);
  });

  it('lets only callers who read the source tile it, and only readers of the tiles read them', async () => {
    const refused = await as('outsider', 'POST', '/v1/datasets/vectortile', { datasetId: points.id });
    expect([refused.statusCode, refused.json().message]).toEqual([404, 'Dataset not found']);
    const tile = `/v1/datasets/${tiled.id}/tiles/0/0/0`;
    expect((await as('outsider', 'GET', tile)).statusCode).toBe(404);
    expect((await as('outsider', 'GET', `/v1/datasets/${tiled.id}/tiles.json`)).statusCode).toBe(404);
    expect((await as('colleague', 'GET', tile)).statusCode).toBe(200); // same organization: viewer
  });

  it('hands readers signed links that map renderers fetch without the session, refusing forged and expired ones', async () => {
    const res = await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/link`);
    expect(res.statusCode).toBe(200);
    const { tileJsonUrl, tileUrl, expiresAt } = res.json().item as { tileJsonUrl: string; tileUrl: string; expiresAt: string };
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(11 * 3600_000);
    const anonymous = (url: string) => ctx.s.app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') });
    const tj = await anonymous(tileJsonUrl);
    expect(tj.statusCode).toBe(200);
    expect(tj.json().tiles).toEqual([tileUrl]);
    const tile = await anonymous(tileUrl.replace('{z}/{x}/{y}', '0/0/0'));
    expect(tile.statusCode).toBe(200);
    expect(featuresOf(tile.rawPayload, 'features', 0, 0, 0)).toHaveLength(1);
    const sig = new URL(tileJsonUrl).searchParams.get('sig')!;
    const forged = tileJsonUrl.replace(`sig=${sig}`, `sig=${sig.slice(1)}A`);
    expect([(await anonymous(forged)).statusCode, (await anonymous(forged)).json().message]).toEqual([403, 'Invalid tile link signature']);
    // Another dataset's id under the same signature, and a link past its expiry.
    expect((await anonymous(tileJsonUrl.replace(tiled.id, points.id))).statusCode).toBe(403);
    const { signTileLink } = await import('@studio/tiles');
    const old = signTileLink(ctx.s.services.secrets, tiled.id, Date.now() - 13 * 3600_000);
    const expired = await anonymous(`/v1/vector-tiles/${tiled.id}/tiles.json?${old.query}`);
    expect([expired.statusCode, expired.json().message]).toEqual([403, 'Tile link has expired']);
    expect((await as('outsider', 'GET', `/v1/datasets/${tiled.id}/tiles/link`)).statusCode).toBe(404);
  });

  it('hands anonymous viewers of a published map tile links for its vector-tile datasets, behind the map’s password', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Tiles map', latestState: { kepler: {} }, datasets: [tiled.id, points.id] })).json().item;
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/publish/map`, { password: 'open sesame' })).statusCode).toBeLessThan(300);
    const anonymous = (datasetId: string, password?: string) =>
      ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${map.id}/published-map/datasets/${datasetId}/tiles/link`, headers: password ? { 'x-map-password': password } : {} });
    expect((await anonymous(tiled.id)).statusCode).toBe(401);
    const link = await anonymous(tiled.id, 'open sesame');
    expect(link.statusCode).toBe(200);
    const tile = await ctx.s.app.inject({ method: 'GET', url: link.json().item.tileUrl.replace(/^https?:\/\/[^/]+/, '').replace('{z}/{x}/{y}', '0/0/0') });
    expect(tile.statusCode).toBe(200);
    // A managed dataset of the map answers no links; one the map does not use is not found.
    expect((await anonymous(points.id, 'open sesame')).json()).toEqual({ item: null });
    const other = await upload(CSV, 'text/csv', 'Elsewhere');
    expect((await anonymous(other.id, 'open sesame')).statusCode).toBe(404);
  });

  it('gives a copy of a vector-tile dataset its own tile URLs and the same tiles as its source', async () => {
    const copy = (await as('owner', 'POST', `/v1/datasets/${tiled.id}/clone`)).json().item;
    expect(copy.type).toBe('vector-tile');
    const tj = await as('owner', 'GET', `/v1/datasets/${copy.id}/tiles.json`);
    expect(tj.json().tiles[0]).toContain(`/v1/datasets/${copy.id}/tiles/`);
    const [mine, theirs] = [await as('owner', 'GET', `/v1/datasets/${copy.id}/tiles/0/0/0`), await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/0/0/0`)];
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.rawPayload.equals(theirs.rawPayload)).toBe(true);
  });

  it.each([
    ['a zoom past the dataset’s maximum', (max: number) => `${max + 1}/0/0`],
    ['x past the zoom level', () => '1/2/0'],
    ['y past the zoom level', () => '3/0/8'],
    ['a negative coordinate', () => '2/-1/0'],
    ['a non-number', () => 'a/0/0'],
  ])('refuses %s with 422', async (_label, path) => {
    const res = await as('owner', 'GET', `/v1/datasets/${tiled.id}/tiles/${path(tiled.metadata.vectorTile.maxZoom)}`);
    expect(res.statusCode).toBe(422);
  });

  it('answers 422 for tiles of a dataset that is not a vector-tile dataset', async () => {
    const res = await as('owner', 'GET', `/v1/datasets/${points.id}/tiles/0/0/0`);
    expect([res.statusCode, res.json().message]).toEqual([422, 'Dataset Landmarks is not a vector-tile dataset (type: managed)']);
  });

  it('vector-tiles a query over datasets on the embedded engine (DQ-022)', async () => {
    const item = await built(await as('owner', 'PUT', '/v1/data-queries/vector-tiling', { query: `select name, lat, lng from "${points.id}" where visits is not null`, name: 'Visited' }));
    expect(item).toMatchObject({ name: 'Visited', type: 'vector-tile', status: 'ready', metadata: { pipelineType: 'pipeline', vectorTile: { featureCount: 2, pipelineType: 'pipeline' } } });
    const z = item.metadata.vectorTile.maxZoom;
    const [x, y] = tileOf(-122.4, 37.79, z);
    const features = featuresOf((await as('owner', 'GET', `/v1/datasets/${item.id}/tiles/${z}/${x}/${y}`)).rawPayload, 'features', z, x, y);
    expect(features.map((f) => f.properties.name).sort()).toEqual(['Ferry Building', 'Painted Ladies']);
  });

  it('refuses a query that fails while it runs (422) and creates nothing (DQ-022)', async () => {
    const before = await datasetCount();
    const res = await as('owner', 'PUT', '/v1/data-queries/vector-tiling', { query: `select cast(name as integer) as lat, lng from "${points.id}"` });
    expect([res.statusCode, res.json().message]).toEqual([422, expect.stringMatching(/Could not convert|Conversion Error/i)]);
    expect(await datasetCount()).toBe(before);
  });

  it('vector-tiles a query pushed down to a PostgreSQL connection (DQ-022)', async () => {
    const conn = (await as('owner', 'POST', '/v1/data-connections', { ...warehouseConnection(WAREHOUSE), name: 'Warehouse' })).json().item;
    const body = { connectionId: conn.id, query: 'select code, docks, lat, lon from stations where docks >= $min', parameters: { min: 2 }, latColumn: 'lat', lngColumn: 'lon' };
    const item = await built(await as('owner', 'PUT', '/v1/data-queries/vector-tiling', body));
    expect(item.metadata.vectorTile).toMatchObject({ featureCount: 2, fields: { code: 'String', docks: 'Number' } });
    const z = item.metadata.vectorTile.maxZoom;
    const [x, y] = tileOf(-122.3971, 37.7929, z);
    const emb = featuresOf((await as('owner', 'GET', `/v1/datasets/${item.id}/tiles/${z}/${x}/${y}`)).rawPayload, 'features', z, x, y).find((f) => f.properties.code === 'EMB');
    expect(emb?.properties.docks).toBe(20);
    // Someone who cannot read the connection cannot tile through it; a broken query is bad input.
    const before = await datasetCount();
    expect((await as('outsider', 'PUT', '/v1/data-queries/vector-tiling', body)).statusCode).toBe(404);
    const broken = await as('owner', 'PUT', '/v1/data-queries/vector-tiling', { ...body, query: 'select * from no_such_table' });
    expect([broken.statusCode, broken.json().message]).toEqual([422, expect.stringMatching(/no_such_table/)]);
    expect(await datasetCount()).toBe(before);
  });
});
