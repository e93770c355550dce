import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Oracle } from '../../spatial/test/oracle';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * Spatial SQL over datasets as they were uploaded: a polygon GeoJSON (geometry as GeoJSON text in `_geojson`) and a
 * CSV of longitudes and latitudes, joined by ST_Contains in user SQL — the counts PostGIS gives on the same shapes.
 */
const POLYGONS = {
  square: { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]]] },
  holed: { type: 'Polygon', coordinates: [[[10, 10], [20, 10], [20, 20], [10, 20], [10, 10]], [[13, 13], [13, 17], [17, 17], [17, 13], [13, 13]]] },
  islands: { type: 'MultiPolygon', coordinates: [[[[30, 0], [31, 0], [31, 1], [30, 1], [30, 0]]], [[[35, 5], [36, 5], [36, 6], [35, 6], [35, 5]]]] },
};
// A grid from -1 to 37 by 0.5 east and -1 to 21 north: points inside, in the hole, on edges and outside.
const POINTS = Array.from({ length: 77 }, (_, i) => Array.from({ length: 45 }, (_, j) => [-1 + i * 0.5, -1 + j * 0.5] as const)).flat();

const oracle = new Oracle();
let want: [string, number][];
beforeAll(async () => {
  await oracle.start();
  const rows = (await oracle.pool.query({
    text: `SELECT c.name, count(*)::int FROM unnest($1::float8[], $2::float8[]) p(lng, lat)
      JOIN (SELECT key AS name, ST_GeomFromGeoJSON(value) AS g FROM json_each($3::json)) c ON ST_Contains(c.g, ST_SetSRID(ST_Point(p.lng, p.lat), 4326))
      GROUP BY 1 ORDER BY 1`,
    values: [POINTS.map((p) => p[0]), POINTS.map((p) => p[1]), JSON.stringify(POLYGONS)],
    rowMode: 'array',
  })).rows as [string, number][];
  want = rows;
});
afterAll(() => oracle.stop());

describe.each(STORES)('spatial SQL over datasets on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const post = (url: string, payload: unknown) => s.app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: cast.tokens.owner } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const up = (name: string, body: string, type: string) =>
      s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: body, headers: { authorization: cast.tokens.owner, 'content-type': type } });
    const features = Object.entries(POLYGONS).map(([name, geometry]) => ({ type: 'Feature', properties: { name }, geometry }));
    expect((await up('polygons', JSON.stringify({ type: 'FeatureCollection', features }), 'application/geo+json')).statusCode).toBe(201);
    expect((await up('points', `lng,lat\n${POINTS.map((p) => p.join(',')).join('\n')}\n`, 'text/csv')).statusCode).toBe(201);
  });
  afterAll(async () => s?.dispose());

  it('counts points in polygons as PostGIS does, reading the geometry column as it stands', async () => {
    const res = await post('/v1/datasets/query', {
      name: 'Points per polygon',
      query: 'SELECT c.name, count(*) AS n FROM points p JOIN polygons c ON ST_Contains(c._geojson, ST_Point(p.lng, p.lat)) GROUP BY 1 ORDER BY 1',
    });
    expect(res.statusCode).toBe(201);
    const csv = await s.app.inject({ method: 'GET', url: `/v1/datasets/${res.json().item.id}/data`, headers: { authorization: cast.tokens.owner } });
    const [header, ...lines] = csv.body.trim().split('\n');
    expect(header).toBe('name,n');
    expect(lines.map((l) => l.split(',')).map(([n, c]) => [n, Number(c)])).toEqual(want);
    expect(want.map(([n]) => n)).toEqual(['holed', 'islands', 'square']);
  });

  it('unions polygons over rows and measures them in square metres (ST_Union as an aggregate)', async () => {
    const res = await post('/v1/datasets/query', { query: 'SELECT round(ST_Area(ST_Union(_geojson)) / 1000000)::BIGINT AS km2, ST_GeometryType(ST_Union(_geojson)) AS type FROM polygons' });
    expect(res.statusCode).toBe(201);
    const csv = await s.app.inject({ method: 'GET', url: `/v1/datasets/${res.json().item.id}/data`, headers: { authorization: cast.tokens.owner } });
    const area = Number(await oracle.postgis(`SELECT round(ST_Area(ST_Union(ST_GeomFromGeoJSON(value))::geography) / 1e6) FROM json_each($1::json)`, [JSON.stringify(POLYGONS)]));
    expect(csv.body.trim().split('\n')[1]).toBe(`${area},ST_MultiPolygon`);
  });

  it.each([
    ["SELECT ST_Area('POLYGON((0 0, 1 1') AS a", /^The query failed: .*ST_Area: argument 1 is not a geometry \("POLYGON\(\(0 0, 1 1"\)/],
    ['SELECT ST_Contains(c._geojson, ST_Point(p.lat, p.lng, 3857)) FROM points p, polygons c', /ST_Point: SRID 3857 is not supported/],
    ['SELECT ST_Length(lng) FROM points', /ST_Length: argument 1 is not a geometry: it is DOUBLE/],
    ["SELECT ST_GeomFromWKB(from_hex('01020000')) AS g", /ST_GeomFromWKB: argument 1 is not a geometry .*WKB ends early/],
    ["SELECT ST_Transform(_geojson, 'EPSG:3857') FROM polygons", /^ST_TRANSFORM is not one of the studio's spatial functions/],
  ])('%s answers 422 naming the function and the argument', async (query, message) => {
    const res = await post('/v1/datasets/query', { query });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(message);
    expect(res.json().message).not.toMatch(/extension/i);
  });
});
