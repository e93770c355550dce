import { cellToLatLng } from 'h3-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Oracle, relDiff } from './oracle';

/**
 * Every spatial function against PostGIS on the same WKT: predicates and counts exactly, measures within the issue's
 * tolerances (metres on the spheroid: PostGIS's `geography`), constructions compared inside PostGIS by ST_Equals or
 * the area of the symmetric difference — never as text.
 */
const o = new Oracle();
beforeAll(() => o.start());
afterAll(() => o.stop());

const S = {
  point: 'POINT(10 20)',
  nyc: 'POINT(-73.98 40.75)',
  inside: 'POINT(1 1)',
  onEdge: 'POINT(0 2)',
  line: 'LINESTRING(0 0, 1 1, 2 0)',
  crossing: 'LINESTRING(-1 2, 5 2)',
  square: 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))',
  holed: 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))',
  inHole: 'POINT(5 5)',
  multi: 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((5 5, 6 5, 6 6, 5 6, 5 5)))',
  far: 'POLYGON((20 20, 21 20, 21 21, 20 21, 20 20))',
  fiji: 'POLYGON((179 -17, 179.9 -17, 179.9 -16, 179 -16, 179 -17))',
  dateLine: 'LINESTRING(179.5 10, -179.5 10)',
  polar: 'POLYGON((0 85, 90 85, 180 85, -90 85, 0 85))',
  northPole: 'POINT(45 89.9)',
  multiLine: 'MULTILINESTRING((0 0, 0 1), (1 1, 2 2, 3 1))',
  emptyPolygon: 'POLYGON EMPTY',
  emptyPoint: 'POINT EMPTY',
  bowtie: 'POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))',
  star: 'POLYGON((0 0, 2 0.2, 4 0, 3.8 2, 4 4, 2 3.7, 0 4, 0.3 2, 0 0))',
} as const;
type Name = keyof typeof S;

const pgGeom = (i: number) => `ST_GeomFromText($${i}, 4326)`;
const pgGeog = (i: number) => `ST_GeomFromText($${i}, 4326)::geography`;

describe('predicates: the answers of PostGIS on geometry', () => {
  const pairs: [Name, Name][] = [
    ['square', 'inside'], ['square', 'onEdge'], ['square', 'point'], ['holed', 'inHole'], ['holed', 'inside'], ['multi', 'inside'],
    ['square', 'line'], ['square', 'crossing'], ['line', 'crossing'], ['square', 'far'], ['square', 'holed'], ['holed', 'square'],
    ['multi', 'square'], ['fiji', 'fiji'], ['square', 'emptyPolygon'], ['emptyPoint', 'square'], ['polar', 'northPole'],
  ];
  const preds = ['ST_Intersects', 'ST_Contains', 'ST_Within', 'ST_Covers', 'ST_Touches', 'ST_Disjoint'];
  it.each(pairs.flatMap(([a, b]) => preds.map((p) => [p, a, b] as const)))('%s(%s, %s)', async (p, a, b) => {
    const want = await o.postgis(`SELECT ${p}(${pgGeom(1)}, ${pgGeom(2)})`, [S[a], S[b]]);
    expect(await o.ours(`SELECT ${p}($1, $2)`, [S[a], S[b]])).toBe(want);
  });

  it.each(['ST_Contains', 'ST_Intersects', 'ST_Covers', 'ST_Within'])('%s over a grid of points counts as PostGIS (the prepared fast path)', async (p) => {
    // 41 x 41 points from -1 to 11 against the holed square: inside, in the hole, on edges and outside.
    const grid = `SELECT x * 0.3 - 1 AS x, y * 0.3 - 1 AS y FROM generate_series(0, 40) a(x), generate_series(0, 40) b(y)`;
    const args = p === 'ST_Within' ? (pt: string, poly: string) => `${pt}, ${poly}` : (pt: string, poly: string) => `${poly}, ${pt}`;
    const want = await o.postgis(`SELECT count(*)::int FROM (${grid}) g WHERE ${p}(${args('ST_SetSRID(ST_Point(x, y), 4326)', pgGeom(1))})`, [S.holed]);
    const got = await o.ours(`SELECT count(*)::INTEGER FROM (${grid.replace(/generate_series/g, 'range').replace(/\(0, 40\)/g, '(0, 41)')}) g WHERE ${p}(${args('ST_Point(x, y)', '$1')})`, [S.holed]);
    expect(got).toBe(want);
    expect(want).toBeGreaterThan(0);
  });
});

describe('measures: metres and square metres on the WGS 84 spheroid, as PostGIS geography', () => {
  it.each<[string, Name]>([
    ['ST_Area', 'square'], ['ST_Area', 'holed'], ['ST_Area', 'multi'], ['ST_Area', 'fiji'], ['ST_Area', 'polar'], ['ST_Area', 'line'],
    ['ST_Area', 'point'], ['ST_Area', 'emptyPolygon'],
    ['ST_Length', 'line'], ['ST_Length', 'dateLine'], ['ST_Length', 'multiLine'], ['ST_Length', 'square'], ['ST_Length', 'point'],
    ['ST_Perimeter', 'square'], ['ST_Perimeter', 'holed'], ['ST_Perimeter', 'multi'], ['ST_Perimeter', 'polar'], ['ST_Perimeter', 'line'],
  ])('%s(%s) within 1e-6', async (f, a) => {
    const want = Number(await o.postgis(`SELECT ${f}(${pgGeog(1)})`, [S[a]]));
    const got = Number(await o.ours(`SELECT ${f}($1)`, [S[a]]));
    expect(relDiff(got, want)).toBeLessThan(1e-6);
  });

  // Rings of short edges take ST_Area's authalic-sphere path (area.test.ts): PostGIS's own 10 km buffers (32 vertices,
  // edges of ~2 km) at several latitudes and across 180°, a dissolve of overlapping ones; a county-sized ring with a hole
  // (edges of 25-33 km) is declined and measured by GeographicLib.
  it.each([
    ['SELECT ST_AsText(ST_Buffer(ST_Point(-100, 40, 4326)::geography, 10000)::geometry)'],
    ['SELECT ST_AsText(ST_Buffer(ST_Point(30, -70, 4326)::geography, 10000)::geometry)'],
    ['SELECT ST_AsText(ST_Buffer(ST_Point(179.99, 5, 4326)::geography, 10000)::geometry)'],
    ['SELECT ST_AsText(ST_Union(ST_Buffer(ST_Point(-100 + i * 0.1, 40, 4326)::geography, 10000)::geometry)) FROM generate_series(0, 9) i'],
    ["SELECT 'POLYGON((-100 40, -99.7 40, -99.7 40.3, -100 40.3, -100 40), (-99.9 40.1, -99.9 40.2, -99.8 40.2, -99.8 40.1, -99.9 40.1))'"],
  ])('ST_Area of short-edged rings within 1e-6: %s', async (sql) => {
    const wkt = String(await o.postgis(sql));
    const want = Number(await o.postgis(`SELECT ST_Area(${pgGeog(1)})`, [wkt]));
    expect(relDiff(Number(await o.ours('SELECT ST_Area($1)', [wkt])), want)).toBeLessThan(1e-6);
  });

  const distances: [Name | string, Name | string, number][] = [
    ['point', 'nyc', 1e-6], ['POINT(179.9 0)', 'POINT(-179.9 0.1)', 1e-6], ['northPole', 'POINT(-135 89.9)', 1e-6], ['POINT(0 0)', 'POINT(0.00001 0)', 1e-6],
    ['point', 'line', 1e-6], ['point', 'square', 1e-6], ['inHole', 'holed', 1e-6], ['far', 'square', 1e-6], ['line', 'far', 1e-6],
    ['POINT(-179.5 -16.5)', 'fiji', 1e-6], ['northPole', 'polar', 1e-6], ['nyc', 'multiLine', 1e-6], ['POINT(30 61)', 'LINESTRING(0 60, 60 60)', 1e-6],
  ];
  const wkt = (k: string) => (k in S ? S[k as Name] : k);
  it.each(distances)('ST_Distance(%s, %s) within %s', async (a, b, tol) => {
    const want = Number(await o.postgis(`SELECT ST_Distance(${pgGeog(1)}, ${pgGeog(2)})`, [wkt(a), wkt(b)]));
    const got = Number(await o.ours('SELECT ST_Distance($1, $2)', [wkt(a), wkt(b)]));
    expect(relDiff(got, want)).toBeLessThan(tol);
  });

  it.each<[Name, Name]>([['square', 'inside'], ['holed', 'square'], ['square', 'crossing']])('ST_Distance(%s, %s) is 0 as in PostGIS', async (a, b) => {
    expect(Number(await o.postgis(`SELECT ST_Distance(${pgGeog(1)}, ${pgGeog(2)})`, [S[a], S[b]]))).toBe(0);
    expect(await o.ours('SELECT ST_Distance($1, $2)', [S[a], S[b]])).toBe(0);
  });

  it.each<[Name, Name]>([['emptyPoint', 'point'], ['square', 'emptyPolygon']])('ST_Distance and ST_DWithin with an empty geometry (%s, %s) answer as PostGIS', async (a, b) => {
    expect(await o.ours('SELECT ST_Distance($1, $2)', [S[a], S[b]])).toBe(await o.postgis(`SELECT ST_Distance(${pgGeog(1)}, ${pgGeog(2)})`, [S[a], S[b]]));
    expect(await o.ours('SELECT ST_DWithin($1, $2, 1e9)', [S[a], S[b]])).toBe(await o.postgis(`SELECT ST_DWithin(${pgGeog(1)}, ${pgGeog(2)}, 1e9)`, [S[a], S[b]]));
  });

  it.each<[Name, Name]>([['point', 'nyc'], ['point', 'square'], ['far', 'square'], ['inHole', 'holed']])('ST_DWithin(%s, %s, d) just past and short of PostGIS distance', async (a, b) => {
    const d = Number(await o.postgis(`SELECT ST_Distance(${pgGeog(1)}, ${pgGeog(2)})`, [S[a], S[b]]));
    for (const [k, want] of [[1.001, true], [0.999, false]] as const) {
      expect(await o.postgis(`SELECT ST_DWithin(${pgGeog(1)}, ${pgGeog(2)}, $3)`, [S[a], S[b], d * k])).toBe(want);
      expect(await o.ours('SELECT ST_DWithin($1, $2, $3::DOUBLE)', [S[a], S[b], d * k])).toBe(want);
    }
  });
});

/** True when PostGIS finds our WKB equal to its geometry (ST_Equals; both empty counts as equal). */
async function sameAsPostgis(oursWkb: unknown, postgisExpr: string, params: unknown[]): Promise<boolean> {
  const hex = Buffer.from(oursWkb as Uint8Array).toString('hex');
  const n = params.length + 1;
  return (await o.postgis(
    `SELECT CASE WHEN ST_IsEmpty(a) OR ST_IsEmpty(b) THEN ST_IsEmpty(a) AND ST_IsEmpty(b)
      ELSE ST_Equals(a, b) OR ST_Area(ST_SymDifference(a, b)) <= 1e-9 * greatest(ST_Area(b), 1e-9) END
     FROM (SELECT ST_SetSRID(ST_GeomFromWKB(decode($${n}, 'hex')), 4326) AS a, (${postgisExpr}) AS b) t`,
    [...params, hex],
  )) as boolean;
}

describe('constructions: equal to PostGIS geometry by ST_Equals or the symmetric difference', () => {
  const unaryCases: [string, Name][] = [
    ['ST_Centroid', 'square'], ['ST_Centroid', 'holed'], ['ST_Centroid', 'multi'], ['ST_Centroid', 'line'], ['ST_Centroid', 'point'],
    ['ST_PointOnSurface', 'holed'], ['ST_PointOnSurface', 'multi'], ['ST_PointOnSurface', 'line'],
    ['ST_ConvexHull', 'holed'], ['ST_ConvexHull', 'multi'], ['ST_ConvexHull', 'line'], ['ST_ConvexHull', 'emptyPolygon'],
    ['ST_Envelope', 'line'], ['ST_Envelope', 'multi'], ['ST_Envelope', 'point'], ['ST_Envelope', 'polar'],
    ['ST_MakeValid', 'bowtie'], ['ST_MakeValid', 'holed'],
  ];
  it.each(unaryCases)('%s(%s)', async (f, a) => {
    expect(await sameAsPostgis(await o.ours(`SELECT ${f}($1)`, [S[a]]), `SELECT ${f}(${pgGeom(1)})`, [S[a]])).toBe(true);
  });

  const binaryCases: [string, Name, Name][] = [
    ['ST_Intersection', 'square', 'holed'], ['ST_Intersection', 'multi', 'square'], ['ST_Intersection', 'square', 'far'], ['ST_Intersection', 'square', 'crossing'],
    ['ST_Difference', 'square', 'holed'], ['ST_Difference', 'holed', 'multi'], ['ST_Difference', 'square', 'emptyPolygon'],
    ['ST_Union', 'square', 'far'], ['ST_Union', 'holed', 'square'], ['ST_Union', 'multi', 'square'],
  ];
  it.each(binaryCases)('%s(%s, %s)', async (f, a, b) => {
    expect(await sameAsPostgis(await o.ours(`SELECT ${f}($1, $2)`, [S[a], S[b]]), `SELECT ${f}(${pgGeom(1)}, ${pgGeom(2)})`, [S[a], S[b]])).toBe(true);
  });

  it('ST_Union over rows (st_union_agg of a list) is PostGIS aggregate ST_Union', async () => {
    const shapes = [S.square, S.holed, S.multi, S.far, null];
    const ours = await o.ours(`SELECT st_union_agg(list(g)) FROM (VALUES ${shapes.map((s) => (s ? `('${s}')` : '(NULL)')).join(', ')}) t(g)`);
    expect(await sameAsPostgis(ours, 'SELECT ST_Union(ST_GeomFromText(g, 4326)) FROM unnest($1::text[]) g', [shapes.filter(Boolean)])).toBe(true);
  });

  it('ST_Union over buffers (polygons read as bytes): overlapping chains and lone ones, as PostGIS unions the same polygons', async () => {
    const points = [[-100, 40], [-99.9, 40], [-99.8, 40.05], [-95, 30], [-90, 35], [-90.1, 35.1], [10, 60]];
    const values = points.map(([x, y]) => `(${x}, ${y})`).join(', ');
    const buffers = await o.duck.runAndReadAll(`SELECT ST_Buffer(ST_Point(x, y), 10000) FROM (VALUES ${values}) t(x, y)`);
    const hexes = buffers.getRows().map(([b]) => Buffer.from((b as { bytes: Uint8Array }).bytes).toString('hex'));
    const ours = await o.ours(`SELECT st_union_agg(list(ST_Buffer(ST_Point(x, y), 10000))) FROM (VALUES ${values}) t(x, y)`);
    expect(await sameAsPostgis(ours, "SELECT ST_Union(ST_GeomFromWKB(decode(h, 'hex'), 4326)) FROM unnest($1::text[]) h", [hexes])).toBe(true);
    expect(await o.postgis("SELECT ST_NumGeometries(ST_SetSRID(ST_GeomFromWKB(decode($1, 'hex')), 4326))", [Buffer.from(ours as Uint8Array).toString('hex')])).toBe(4);
  });

  it('ST_Union over rows with an invalid polygon alone in its box answers as PostGIS (its error)', async () => {
    const shapes = [S.bowtie, S.far];
    const want = await o.postgis('SELECT ST_AsText(ST_Union(ST_GeomFromText(g, 4326))) FROM unnest($1::text[]) g', [shapes]).then(() => 'answer', () => 'error');
    const got = await o.ours(`SELECT st_union_agg(list(g)) FROM (VALUES ${shapes.map((s) => `('${s}')`).join(', ')}) t(g)`).then(() => 'answer', () => 'error');
    expect(got).toBe(want);
  });

  it.each<[Name, number]>([['line', 0.5], ['holed', 3], ['star', 0.6], ['multiLine', 0.7]])('ST_Simplify(%s, %s) (planar tolerance, degrees)', async (a, tol) => {
    expect(await sameAsPostgis(await o.ours('SELECT ST_Simplify($1, $2::DOUBLE)', [S[a], tol]), `SELECT ST_Simplify(${pgGeom(1)}, $2)`, [S[a], tol])).toBe(true);
  });

  it.each<[string, number]>([
    [S.nyc, 1000], [S.point, 25_000], [S.line, 500], [S.square, 2000], [S.holed, -20_000], ['POINT(10 80)', 10_000], ['POINT(179.95 10)', 10_000], [S.multi, 5000],
  ])('ST_Buffer(%s, %s m) has the area of PostGIS geography buffer within 1%', async (g, r) => {
    const want = Number(await o.postgis(`SELECT ST_Area(ST_Buffer(${pgGeog(1)}, $2))`, [g, r]));
    const wkb = Buffer.from((await o.ours('SELECT ST_Buffer($1, $2::DOUBLE)', [g, r])) as Uint8Array).toString('hex');
    const got = Number(await o.postgis(`SELECT ST_Area(ST_SetSRID(ST_GeomFromWKB(decode($1, 'hex')), 4326)::geography)`, [wkb]));
    expect(relDiff(got, want)).toBeLessThan(0.01);
  });
});

describe('constructors, outputs and accessors', () => {
  it.each(Object.keys(S) as Name[])('%s read back through ST_AsText, ST_AsGeoJSON and ST_AsWKB equals the original', async (a) => {
    const text = await o.ours('SELECT ST_AsText($1)', [S[a]]);
    // ST_OrderingEquals: the same vertices in the same order (it also holds for the invalid bowtie, unlike ST_Equals).
    expect(await o.postgis('SELECT ST_OrderingEquals(ST_GeomFromText($1), ST_GeomFromText($2))', [text, S[a]])).toBe(true);
    const json = String(await o.ours('SELECT ST_AsGeoJSON($1)', [S[a]]));
    if (!a.startsWith('empty')) expect(await o.postgis(`SELECT ST_OrderingEquals(ST_GeomFromGeoJSON($1), ${pgGeom(2)})`, [json, S[a]])).toBe(true);
    const wkb = Buffer.from((await o.ours('SELECT ST_AsWKB($1)', [S[a]])) as Uint8Array).toString('hex');
    expect(await o.postgis(`SELECT ST_OrderingEquals(ST_GeomFromWKB(decode($1, 'hex')), ST_GeomFromText($2))`, [wkb, S[a]])).toBe(true);
  });

  it.each(Object.keys(S).filter((k) => !k.startsWith('empty')) as Name[])('ST_GeomFromGeoJSON of PostGIS ST_AsGeoJSON(%s)', async (a) => {
    const json = await o.postgis(`SELECT ST_AsGeoJSON(${pgGeom(1)})`, [S[a]]);
    expect(await sameAsPostgis(await o.ours('SELECT ST_GeomFromGeoJSON($1)', [json]), `SELECT ${pgGeom(1)}`, [S[a]])).toBe(true);
    expect(await sameAsPostgis(await o.ours('SELECT ST_GeomFromText($1, 4326)', [S[a]]), `SELECT ${pgGeom(1)}`, [S[a]])).toBe(true);
    const wkb = await o.postgis(`SELECT encode(ST_AsBinary(${pgGeom(1)}), 'hex')`, [S[a]]);
    expect(await sameAsPostgis(await o.ours('SELECT studio_st_geomfromwkb(from_hex($1))', [wkb]), `SELECT ${pgGeom(1)}`, [S[a]])).toBe(true);
  });

  it.each([
    ['SELECT ST_Point(-73.98, 40.75)', 'SELECT ST_SetSRID(ST_Point(-73.98, 40.75), 4326)'],
    ['SELECT ST_Point(1, 2, 4326)', 'SELECT ST_SetSRID(ST_Point(1, 2), 4326)'],
    ['SELECT ST_MakeEnvelope(-10, -5, 20, 15)', 'SELECT ST_MakeEnvelope(-10, -5, 20, 15, 4326)'],
    ['SELECT ST_MakeEnvelope(170, -20, 179.5, -10, 4326)', 'SELECT ST_MakeEnvelope(170, -20, 179.5, -10, 4326)'],
  ])('%s', async (ours, postgis) => {
    expect(await sameAsPostgis(await o.ours(ours), postgis, [])).toBe(true);
  });

  const accessors = ['ST_X', 'ST_Y', 'ST_XMin', 'ST_XMax', 'ST_YMin', 'ST_YMax', 'ST_GeometryType', 'ST_NPoints', 'ST_IsValid', 'ST_IsEmpty'];
  const pointOnly = new Set(['ST_X', 'ST_Y']);
  it.each(accessors.flatMap((f) => (Object.keys(S) as Name[]).filter((a) => !pointOnly.has(f) || /^POINT/.test(S[a])).map((a) => [f, a] as const)))('%s(%s)', async (f, a) => {
    const want = await o.postgis(`SELECT ${f}(${pgGeom(1)})`, [S[a]]);
    const got = await o.ours(`SELECT ${f}($1)`, [S[a]]);
    expect(got).toEqual(want);
  });

  it('a geometry reads the same as WKT, GeoJSON, EWKT, hex WKB, WKB BLOB and core GEOMETRY', async () => {
    const json = JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[2, 2], [2, 8], [8, 8], [8, 2], [2, 2]]] });
    const hex = String(await o.postgis(`SELECT encode(ST_AsBinary(${pgGeom(1)}), 'hex')`, [S.holed]));
    const want = Number(await o.postgis(`SELECT ST_Area(${pgGeog(1)})`, [S.holed]));
    for (const [expr, p] of [['$1', S.holed], ['$1', json], ['$1', `SRID=4326;${S.holed}`], ['$1', hex], ['from_hex($1)', hex], ['ST_GeomFromWKB(from_hex($1))', hex]] as const) {
      expect(relDiff(Number(await o.ours(`SELECT ST_Area(${expr})`, [p])), want)).toBeLessThan(1e-6);
    }
  });

  it.each(['ST_Area(NULL::VARCHAR)', 'ST_Contains(NULL::VARCHAR, ST_Point(1, 2))', 'ST_Point(NULL::DOUBLE, 1)', 'ST_Buffer(NULL::BLOB, 10)', 'ST_AsText(NULL::VARCHAR)', 'ST_X(NULL::BLOB)'])('%s is NULL', async (e) => {
    expect(await o.ours(`SELECT ${e}`)).toBeNull();
  });
});

describe('H3 bridges', () => {
  it('h3_polygon_to_cells answers the cells whose centres PostGIS finds inside the polygon', async () => {
    const cells = (await o.ours('SELECT h3_polygon_to_cells($1, 5)', [S.holed])) as string[];
    expect(cells.length).toBeGreaterThan(100);
    const centres = cells.map((c) => { const [lat, lng] = cellToLatLng(c); return `POINT(${lng} ${lat})`; });
    expect(await o.postgis(`SELECT count(*)::int FROM unnest($1::text[]) c WHERE ST_Contains(${pgGeom(2)}, ST_GeomFromText(c, 4326))`, [centres, S.holed])).toBe(cells.length);
  });

  it('h3_cell_to_boundary is a valid polygon covering the cell centre (PostGIS)', async () => {
    const cell = '85754e67fffffff';
    const [lat, lng] = cellToLatLng(cell);
    const hex = Buffer.from((await o.ours('SELECT h3_cell_to_boundary($1)', [cell])) as Uint8Array).toString('hex');
    expect(await o.postgis(`SELECT ST_IsValid(g) AND ST_Covers(g, ST_SetSRID(ST_Point($2, $3), 4326)) AND ST_NPoints(g) = 7 FROM (SELECT ST_SetSRID(ST_GeomFromWKB(decode($1, 'hex')), 4326) g) t`, [hex, lng, lat])).toBe(true);
  });
});

describe('bad input names the function and the argument', () => {
  it.each([
    ["SELECT ST_Area('POLYGON((0 0, 1')", /^Invalid Input Error: ST_Area: argument 1 is not a geometry \("POLYGON\(\(0 0, 1"\): ParseException/],
    ["SELECT ST_Contains('{\"type\":\"Polygon\"}', ST_Point(1, 2))", /ST_Contains: argument 1 is not a geometry/],
    ["SELECT ST_Contains(ST_Point(1, 2), 'banana')", /ST_Contains: argument 2 is not a geometry \("banana"\): ParseException: Unknown type: 'BANANA'/],
    ["SELECT ST_Length(from_hex('0102000000'))", /ST_Length: argument 1 is not a geometry .*WKB ends early/],
    ['SELECT ST_Area(42)', /ST_Area: argument 1 is not a geometry: it is INTEGER/],
    ["SELECT ST_Buffer('POINT(1 2)', 'far')", /ST_Buffer: argument 2 must be a number, not VARCHAR/],
    ["SELECT ST_Point(1, 2, 3857)", /ST_Point: SRID 3857 is not supported/],
    ["SELECT ST_Intersection('POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))', 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))')", /ST_Intersection: GEOS could not compute it: TopologyException.*ST_MakeValid/],
    // An invalid polygon alone in its box is still unioned by GEOS (PostGIS refuses this too), not passed through.
    ["SELECT st_union_agg(list(g)) FROM (VALUES ('POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))'), ('POLYGON((20 20, 21 20, 21 21, 20 21, 20 20))')) t(g)", /ST_Union_Agg: GEOS could not compute it: TopologyException.*ST_MakeValid/],
    ["SELECT ST_GeomFromText('{\"type\":\"Point\",\"coordinates\":[1,2]}')", /ST_GeomFromText: argument 1 is not WKT/],
    ["SELECT ST_DWithin('POINT(0 0)', 'POINT(1 1)', -5)", /ST_DWithin: argument 3 .* must be 0 or more/],
    ["SELECT h3_polygon_to_cells('POLYGON((0 0, 1 0, 1 1, 0 0))', 16)", /h3_polygon_to_cells: resolution 16 is outside 0..15/],
    ["SELECT ST_X('LINESTRING(0 0, 1 1)')", /ST_X: argument 1 is a LineString, not a point/],
  ])('%s', async (sql, message) => {
    const err = await o.ours(sql).then(() => null, (e: Error) => e.message);
    expect(err).toMatch(message);
    expect(err).not.toMatch(/extension/i);
  });
});
