import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSpatialFunctions } from '@studio/spatial';
import { duckdbSql } from '../src/execute';
import { compilePipeline, executeDuckDB, executePostgres, validatePipeline, type Row } from '../src/index';
import { ds } from './fixtures';

/**
 * The spatial steps as tables of cases. Expected rows come from PostGIS on the same rows (a query written here in
 * PostGIS's own terms, never our compiler's SQL); each pipeline runs on DuckDB with the studio's functions and, pushed
 * down, on the same PostGIS database. Geometry results are compared by PostGIS: symmetric-difference area (points:
 * distance), buffers by area within 1%, measures within 1e-6 relative (1e-4 for distances to polygons).
 */

const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `pipeline_spatial_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

type Col = 'BIGINT' | 'DOUBLE' | 'VARCHAR' | 'GEOM';
const TABLES: { name: string; columns: Record<string, Col>; rows: unknown[][] }[] = [
  {
    name: 'polys',
    columns: { id: 'BIGINT', name: 'VARCHAR', region: 'VARCHAR', geom: 'GEOM' },
    rows: [
      [1, 'holed', 'r1', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))'],
      [2, 'overlap', 'r1', 'POLYGON((3 3, 6 3, 6 6, 3 6, 3 3))'],
      [3, 'multi', 'r2', 'MULTIPOLYGON(((10 10, 11 10, 11 11, 10 11, 10 10)), ((12 10, 13 10, 13 11, 12 11, 12 10)))'],
      [4, 'antimeridian', 'r2', 'POLYGON((179 -1, 179.9 -1, 179.9 1, 179 1, 179 -1))'],
      [5, 'north', null, 'POLYGON((-10 84, 10 84, 10 86, -10 86, -10 84))'],
    ],
  },
  {
    name: 'pts',
    columns: { pid: 'BIGINT', mag: 'DOUBLE', pgeom: 'GEOM' },
    rows: [
      [1, 1.5, 'POINT(0.5 0.5)'],
      [2, 2.5, 'POINT(1.5 1.5)'], // in the hole
      [3, 4, 'POINT(3.5 3.5)'], // in two polygons
      [4, 0.5, 'POINT(5 5)'],
      [5, 3, 'POINT(4 2)'], // on polygon 1's edge: covered, intersected, not contained
      [6, 7, 'POINT(20 20)'],
      [7, 6, 'POINT(179.5 0)'],
      [8, null, null],
      [9, 2, 'POINT(0 85)'],
    ],
  },
  {
    name: 'cities',
    columns: { cid: 'BIGINT', cgeom: 'GEOM' },
    rows: [[1, 'POINT(0 0)'], [2, 'POINT(1.1 1.3)'], [3, 'POINT(5 5.1)'], [4, 'POINT(179.9 0.1)'], [5, 'POINT(-179.9 0)'], [6, 'POINT(3 85.5)']],
  },
  { name: 'lines', columns: { lid: 'BIGINT', lgeom: 'GEOM' }, rows: [[1, 'LINESTRING(0 0, 1 1, 2 0)'], [2, 'LINESTRING(10 80, 20 81)'], [3, 'POINT(1 1)']] },
  {
    name: 'zones',
    columns: { zid: 'BIGINT', zgeom: 'GEOM' },
    rows: [[1, 'POLYGON((2 -1, 5 -1, 5 5, 2 5, 2 -1))'], [2, 'POLYGON((4 4, 7 4, 7 7, 4 7, 4 4))'], [3, 'POLYGON((179.5 -2, 181 -2, 181 2, 179.5 2, 179.5 -2))']],
  },
];

/** How a result column is compared: a value, a geometry (shape), a buffer (area within 1%). */
type Check = 'value' | 'shape' | 'buffer';
type Case = { name: string; pipeline: unknown; oracle: string; cols: Record<string, Check>; key: string[]; tol?: number };

const polys = ds('polys');
const pts = ds('pts');
const V = 'value' as const;

const cases: Case[] = [
  {
    name: 'spatialJoin contains, INNER (the hole and the edge excluded)',
    pipeline: { type: 'spatialJoin', predicate: 'contains', leftGeometry: 'geom', rightGeometry: 'pgeom', columns: ['pid', 'mag'], input: [polys, pts] },
    oracle: 'SELECT c.id, p.pid, p.mag FROM polys c JOIN pts p ON ST_Contains(c.geom, p.pgeom)',
    cols: { id: V, pid: V, mag: V }, key: ['id', 'pid'],
  },
  {
    name: 'spatialJoin intersects, LEFT (polygons with none kept)',
    pipeline: { type: 'spatialJoin', predicate: 'intersects', join: 'LEFT', leftGeometry: 'geom', rightGeometry: 'pgeom', columns: ['pid'], input: [polys, pts] },
    oracle: 'SELECT c.id, c.name, p.pid FROM polys c LEFT JOIN pts p ON ST_Intersects(c.geom, p.pgeom)',
    cols: { id: V, name: V, pid: V }, key: ['id', 'pid'],
  },
  {
    name: 'spatialJoin covers (the edge point counts)',
    pipeline: { type: 'spatialJoin', predicate: 'covers', leftGeometry: 'geom', rightGeometry: 'pgeom', columns: ['pid'], input: [polys, pts] },
    oracle: 'SELECT c.id, p.pid FROM polys c JOIN pts p ON ST_Covers(c.geom, p.pgeom)',
    cols: { id: V, pid: V }, key: ['id', 'pid'],
  },
  {
    name: 'spatialJoin within: points within polygons',
    pipeline: { type: 'spatialJoin', predicate: 'within', leftGeometry: 'pgeom', rightGeometry: 'geom', columns: ['id'], input: [pts, polys] },
    oracle: 'SELECT p.pid, c.id FROM pts p JOIN polys c ON ST_Within(p.pgeom, c.geom)',
    cols: { pid: V, id: V }, key: ['pid', 'id'],
  },
  {
    name: 'spatialJoin dwithin 60 km (metres on the spheroid; across the antimeridian)',
    pipeline: { type: 'spatialJoin', predicate: 'dwithin', distance: 60000, leftGeometry: 'pgeom', rightGeometry: 'cgeom', columns: ['cid'], input: [pts, ds('cities')] },
    oracle: 'SELECT p.pid, c.cid FROM pts p JOIN cities c ON ST_DWithin(p.pgeom::geography, c.cgeom::geography, 60000)',
    cols: { pid: V, cid: V }, key: ['pid', 'cid'],
  },
  {
    name: 'aggregateInPolygons: count, sum, avg, min, max (no features: 0 and NULLs)',
    pipeline: {
      type: 'aggregateInPolygons', polygonGeometry: 'geom', featureGeometry: 'pgeom',
      aggregates: [{ op: 'count', as: 'n' }, { op: 'sum', column: 'mag', as: 's' }, { op: 'avg', column: 'mag', as: 'a' }, { op: 'min', column: 'mag', as: 'lo' }, { op: 'max', column: 'mag', as: 'hi' }],
      input: [polys, pts],
    },
    oracle: 'SELECT c.id, c.name, count(p.pgeom) AS n, sum(p.mag) AS s, avg(p.mag) AS a, min(p.mag) AS lo, max(p.mag) AS hi FROM polys c LEFT JOIN pts p ON ST_Contains(c.geom, p.pgeom) GROUP BY c.id, c.name',
    cols: { id: V, name: V, n: V, s: V, a: V, lo: V, hi: V }, key: ['id'],
  },
  {
    name: 'aggregateInPolygons with intersects: count of a column skips its NULLs',
    pipeline: { type: 'aggregateInPolygons', polygonGeometry: 'geom', featureGeometry: 'pgeom', predicate: 'intersects', aggregates: [{ op: 'count', column: 'mag', as: 'n' }], input: [polys, pts] },
    oracle: 'SELECT c.id, count(p.mag) AS n FROM polys c LEFT JOIN pts p ON ST_Intersects(c.geom, p.pgeom) GROUP BY c.id',
    cols: { id: V, n: V }, key: ['id'],
  },
  {
    name: 'nearest: the 2 nearest cities within 300 km, with the distance',
    pipeline: { type: 'nearest', leftGeometry: 'pgeom', rightGeometry: 'cgeom', k: 2, maxDistance: 300000, columns: ['cid'], input: [pts, ds('cities')] },
    oracle: `SELECT p.pid, x.cid, x.distance FROM pts p CROSS JOIN LATERAL (SELECT c.cid, ST_Distance(p.pgeom::geography, c.cgeom::geography) AS distance
      FROM cities c WHERE ST_DWithin(p.pgeom::geography, c.cgeom::geography, 300000) ORDER BY 2 LIMIT 2) x`,
    cols: { pid: V, cid: V, distance: V }, key: ['pid', 'cid'],
  },
  {
    name: 'nearest LEFT k=1: rows with none kept, distance named',
    pipeline: { type: 'nearest', leftGeometry: 'pgeom', rightGeometry: 'cgeom', maxDistance: 100000, join: 'LEFT', columns: ['cid'], distanceColumn: 'metres', input: [pts, ds('cities')] },
    oracle: `SELECT p.pid, x.cid, x.metres FROM pts p LEFT JOIN LATERAL (SELECT c.cid, ST_Distance(p.pgeom::geography, c.cgeom::geography) AS metres
      FROM cities c WHERE ST_DWithin(p.pgeom::geography, c.cgeom::geography, 100000) ORDER BY 2 LIMIT 1) x ON true`,
    cols: { pid: V, cid: V, metres: V }, key: ['pid'],
  },
  {
    name: 'nearest from polygons: distance to a polygon on the sphere',
    pipeline: { type: 'nearest', leftGeometry: 'cgeom', rightGeometry: 'geom', maxDistance: 500000, columns: ['id'], input: [ds('cities'), polys] },
    oracle: `SELECT c.cid, x.id, x.distance FROM cities c CROSS JOIN LATERAL (SELECT p.id, ST_Distance(c.cgeom::geography, p.geom::geography) AS distance
      FROM polys p WHERE ST_DWithin(c.cgeom::geography, p.geom::geography, 500000) ORDER BY 2 LIMIT 1) x`,
    cols: { cid: V, id: V, distance: V }, key: ['cid'], tol: 1e-4,
  },
  {
    name: 'buffer 50 km (area within 1%)',
    pipeline: { type: 'buffer', geometry: 'pgeom', distance: 50000, input: [pts] },
    oracle: 'SELECT pid, ST_Buffer(pgeom::geography, 50000)::geometry AS buffer FROM pts',
    cols: { pid: V, buffer: 'buffer' }, key: ['pid'],
  },
  {
    name: 'buffer of polygons by 20 km, named',
    pipeline: { type: 'buffer', geometry: 'geom', distance: 20000, as: 'grown', input: [polys] },
    oracle: 'SELECT id, ST_Buffer(geom::geography, 20000)::geometry AS grown FROM polys',
    cols: { id: V, grown: 'buffer' }, key: ['id'],
  },
  {
    name: 'centroid (planar, of a holed polygon and a multipolygon)',
    pipeline: { type: 'centroid', geometry: 'geom', input: [polys] },
    oracle: 'SELECT id, ST_Centroid(geom) AS centroid FROM polys',
    cols: { id: V, centroid: 'shape' }, key: ['id'],
  },
  {
    name: 'measure area (m², spheroid; holes subtracted)',
    pipeline: { type: 'measure', geometry: 'geom', measure: 'area', input: [polys] },
    oracle: 'SELECT id, ST_Area(geom::geography) AS area FROM polys',
    cols: { id: V, area: V }, key: ['id'],
  },
  {
    name: 'measure length (m; a point is 0)',
    pipeline: { type: 'measure', geometry: 'lgeom', measure: 'length', as: 'len', input: [ds('lines')] },
    oracle: 'SELECT lid, ST_Length(lgeom::geography) AS len FROM lines',
    cols: { lid: V, len: V }, key: ['lid'],
  },
  {
    name: 'dissolve by region (NULL region its own group)',
    pipeline: { type: 'dissolve', geometry: 'geom', by: ['region'], input: [polys] },
    oracle: 'SELECT region, ST_Union(geom) AS geom FROM polys GROUP BY region',
    cols: { region: V, geom: 'shape' }, key: ['region'],
  },
  {
    name: 'dissolve everything into one row',
    pipeline: { type: 'dissolve', geometry: 'zgeom', as: 'all', input: [ds('zones')] },
    oracle: 'SELECT ST_Union(zgeom) AS "all" FROM zones',
    cols: { all: 'shape' }, key: [],
  },
  {
    name: 'clip by overlapping zones, with the area share',
    pipeline: { type: 'clip', geometry: 'geom', clipGeometry: 'zgeom', input: [polys, ds('zones')] },
    oracle: `WITH u AS (SELECT ST_Union(zgeom) AS g FROM zones)
      SELECT c.id, ST_Intersection(c.geom, u.g) AS clipped, ST_Area(ST_Intersection(c.geom, u.g)::geography) / ST_Area(c.geom::geography) AS area_share
      FROM polys c JOIN u ON ST_Intersects(c.geom, u.g)`,
    cols: { id: V, clipped: 'shape', area_share: V }, key: ['id'],
  },
  {
    name: 'a chain: points buffered by 100 km, counted per polygon they intersect',
    pipeline: {
      type: 'aggregateInPolygons', polygonGeometry: 'geom', featureGeometry: 'pgeom', predicate: 'intersects', aggregates: [{ op: 'count', as: 'n' }],
      input: [{ type: 'measure', geometry: 'geom', measure: 'area', input: [polys] }, { type: 'filter', expression: 'mag > 1', input: [pts] }],
    },
    oracle: 'SELECT c.id, ST_Area(c.geom::geography) AS area, count(p.pid) AS n FROM polys c LEFT JOIN pts p ON ST_Intersects(c.geom, p.pgeom) AND p.mag > 1 GROUP BY c.id, c.geom',
    cols: { id: V, area: V, n: V }, key: ['id'],
  },
];

let duck: DuckDBConnection;
let instance: DuckDBInstance;
let pool: pg.Pool;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  duck = await instance.connect();
  await registerSpatialFunctions(duck);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  pool = new pg.Pool({ connectionString: PG_URL.replace(/\/postgres$/, `/${dbName}`), max: 2 });
  await pool.query('CREATE EXTENSION postgis');
  for (const t of TABLES) {
    const cols = Object.entries(t.columns);
    const pgType = (ty: Col) => (ty === 'GEOM' ? 'geometry(Geometry, 4326)' : ty === 'DOUBLE' ? 'DOUBLE PRECISION' : ty === 'VARCHAR' ? 'TEXT' : ty);
    // DuckDB keeps geometry as WKT text, as a CSV or GeoParquet upload does; PostGIS as geometry.
    await duck.run(`CREATE TABLE ${t.name} (${cols.map(([c, ty]) => `"${c}" ${ty === 'GEOM' ? 'VARCHAR' : ty}`).join(', ')})`);
    await pool.query(`CREATE TABLE ${t.name} (${cols.map(([c, ty]) => `"${c}" ${pgType(ty)}`).join(', ')})`);
    for (const r of t.rows) {
      await duck.run(`INSERT INTO ${t.name} VALUES (${cols.map(([, ty], i) => `CAST($${i + 1} AS ${ty === 'GEOM' ? 'VARCHAR' : ty})`).join(', ')})`, r as never);
      await pool.query(`INSERT INTO ${t.name} VALUES (${cols.map(([, ty], i) => (ty === 'GEOM' ? `ST_GeomFromText($${i + 1}, 4326)` : `$${i + 1}`)).join(', ')})`, r);
    }
  }
}, 120_000);

afterAll(async () => {
  duck?.closeSync();
  instance?.closeSync();
  await pool?.end();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

const resolveDataset = (uuid: string) => ({ relationSql: `"${uuid.replace(/"/g, '""')}"` });
/** pg's int8 and numeric as numbers in the value columns (geometry's hex EWKB can look like a number: 0000…0040). */
const pgNumbers = (c: Case, rows: Row[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, c.cols[k] === 'value' && typeof v === 'string' && /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v) && k !== 'name' ? Number(v) : v])));

async function run(engine: 'duckdb' | 'postgres', pipeline: unknown): Promise<Row[]> {
  const q = compilePipeline(pipeline, { dialect: engine, resolveDataset });
  return engine === 'duckdb' ? executeDuckDB(duck, q) : executePostgres(pool, q);
}

/**
 * Either side's geometry (GeoJSON text from DuckDB, hex EWKB from PostGIS) as a PostGIS geometry; picked here, not in a
 * CASE, since PostgreSQL may fold both branches of a CASE over bound values.
 */
const asGeom = (v: unknown, p: string) => `ST_SetSRID(${String(v).startsWith('{') ? `ST_GeomFromGeoJSON(${p}::text)` : `${p}::text::geometry`}, 4326)`;

async function sameShape(check: Check, got: unknown, want: unknown): Promise<string | null> {
  if (got === null || want === null) return got === want ? null : `got ${String(got)}, PostGIS ${String(want)}`;
  const [a, b] = [asGeom(got, '$1'), asGeom(want, '$2')];
  const r = await pool.query(
    // A buffer is compared by area only: PostGIS's own geography buffer across the antimeridian is not a valid polygon.
    check === 'buffer'
      ? `SELECT ST_Area(${a}::geography) AS got, ST_Area(${b}::geography) AS want`
      : `SELECT ST_Area(${a}::geography) AS got, ST_Area(${b}::geography) AS want,
            ST_Area(ST_SymDifference(${a}, ${b})::geography) AS diff, ST_Distance(${a}::geography, ${b}::geography) AS apart`,
    [got, want],
  );
  const { got: ga, want: wa, diff, apart } = r.rows[0] as { got: number; want: number; diff: number; apart: number };
  if (check === 'buffer') return Math.abs(ga - wa) <= 0.01 * wa ? null : `buffer area ${ga} m², PostGIS ${wa} m²`;
  if (wa > 0) return diff <= 1e-6 * wa ? null : `symmetric difference ${diff} m² of ${wa} m²`;
  return apart <= 1e-3 ? null : `${apart} m from PostGIS's`;
}

const keyOf = (r: Row, key: string[]) => JSON.stringify(key.map((k) => r[k] ?? null));

async function compare(c: Case, got: Row[], want: Row[]): Promise<void> {
  expect(got.length, 'row count').toBe(want.length);
  const sorted = (rows: Row[]) => [...rows].sort((x, y) => (keyOf(x, c.key) < keyOf(y, c.key) ? -1 : 1));
  const [g, w] = [sorted(got), sorted(want)];
  const problems: string[] = [];
  for (const [i, wr] of w.entries()) {
    const gr = g[i]!;
    for (const [col, check] of Object.entries(c.cols)) {
      const [a, b] = [gr[col] ?? null, wr[col] ?? null];
      let problem: string | null = null;
      if (check !== 'value') problem = await sameShape(check, a, b);
      else if (typeof a === 'number' && typeof b === 'number') problem = Math.abs(a - b) <= (c.tol ?? 1e-6) * Math.max(Math.abs(a), Math.abs(b)) ? null : `${a} vs PostGIS ${b}`;
      else if (a !== b) problem = `${JSON.stringify(a)} vs PostGIS ${JSON.stringify(b)}`;
      if (problem) problems.push(`row ${keyOf(wr, c.key)} ${col}: ${problem}`);
    }
  }
  expect(problems).toEqual([]);
}

describe.each(['duckdb', 'postgres'] as const)('spatial steps on %s against PostGIS', (engine) => {
  it.each(cases)('$name', async (c) => {
    const want = pgNumbers(c, (await pool.query(c.oracle)).rows as Row[]);
    const got = engine === 'postgres' ? pgNumbers(c, await run(engine, c.pipeline)) : await run(engine, c.pipeline);
    await compare(c, got, want);
  });
});

/** The steps that join on a spatial predicate; on DuckDB each join is planned (packages/spatial) into a hash join. */
const JOINING = ['spatialJoin contains, INNER (the hole and the edge excluded)', 'spatialJoin within: points within polygons',
  'spatialJoin dwithin 60 km (metres on the spheroid; across the antimeridian)', 'aggregateInPolygons: count, sum, avg, min, max (no features: 0 and NULLs)',
  'nearest: the 2 nearest cities within 300 km, with the distance', 'nearest from polygons: distance to a polygon on the sphere', 'clip by overlapping zones, with the area share'];

describe('spatial steps on duckdb: joins are planned, not nested loops', () => {
  it.each(JOINING)('%s', async (name) => {
    const q = compilePipeline(cases.find((c) => c.name === name)!.pipeline, { dialect: 'duckdb', resolveDataset });
    expect(q.spatialJoins).toBe(true);
    const sql = await duckdbSql(duck, q);
    const prepared = await duck.prepare(`EXPLAIN ${sql}`);
    prepared.bind(q.params as never);
    const plan = (await prepared.runAndReadAll()).getRows().map((r) => String(r[1])).join('\n');
    expect(plan).toContain('HASH_JOIN');
    expect(plan).not.toMatch(/NESTED_LOOP|BLOCKWISE_NL|PIECEWISE/);
  });

  it.each([['no join', { type: 'buffer', geometry: 'pgeom', distance: 10, input: [pts] }]])('%s: run as compiled', async (_what, pipeline) => {
    const q = compilePipeline(pipeline, { dialect: 'duckdb', resolveDataset });
    expect(q.spatialJoins).toBeUndefined();
    expect(await duckdbSql(duck, q)).toBe(q.sql);
  });
});

const bad: [string, unknown, RegExp][] = [
  ['unknown predicate', { type: 'spatialJoin', predicate: 'near', leftGeometry: 'g', rightGeometry: 'h', input: [pts, pts] }, /spatialJoin node: predicate must be one of intersects, contains, within, covers, dwithin/],
  ['dwithin without distance', { type: 'spatialJoin', predicate: 'dwithin', leftGeometry: 'g', rightGeometry: 'h', input: [pts, pts] }, /distance \(metres\) is required with predicate dwithin/],
  ['negative distance', { type: 'spatialJoin', predicate: 'dwithin', distance: -1, leftGeometry: 'g', rightGeometry: 'h', input: [pts, pts] }, /distance must be a number of metres \(0 or more\)/],
  ['one input to a join', { type: 'spatialJoin', predicate: 'intersects', leftGeometry: 'g', rightGeometry: 'h', input: [pts] }, /spatialJoin node: exactly two inputs are required/],
  ['sum without a column', { type: 'aggregateInPolygons', polygonGeometry: 'g', featureGeometry: 'h', aggregates: [{ op: 'sum', as: 's' }], input: [polys, pts] }, /sum, avg, min and max need a column/],
  ['no aggregates', { type: 'aggregateInPolygons', polygonGeometry: 'g', featureGeometry: 'h', aggregates: [], input: [polys, pts] }, /aggregates must not be empty/],
  ['median is not offered', { type: 'aggregateInPolygons', polygonGeometry: 'g', featureGeometry: 'h', aggregates: [{ op: 'median', column: 'x', as: 'm' }], input: [polys, pts] }, /op must be one of count, sum, avg, min, max/],
  ['twice the same name', { type: 'aggregateInPolygons', polygonGeometry: 'g', featureGeometry: 'h', aggregates: [{ op: 'count', as: 'n' }, { op: 'max', column: 'x', as: 'n' }], input: [polys, pts] }, /each as must be a different name/],
  ['k of 0', { type: 'nearest', leftGeometry: 'g', rightGeometry: 'h', k: 0, maxDistance: 10, input: [pts, pts] }, /k must be an integer from 1 to 100/],
  ['no max distance', { type: 'nearest', leftGeometry: 'g', rightGeometry: 'h', input: [pts, pts] }, /maxDistance must be a number of metres greater than 0/],
  ['buffer radius as text', { type: 'buffer', geometry: 'g', distance: '5 km', input: [pts] }, /buffer node: distance must be a number of metres/],
  ['measure perimeter', { type: 'measure', geometry: 'g', measure: 'volume', input: [pts] }, /measure must be area or length/],
  ['empty geometry column', { type: 'centroid', geometry: '', input: [pts] }, /centroid node: geometry must not be empty/],
  ['clip with one input', { type: 'clip', geometry: 'g', clipGeometry: 'h', input: [pts] }, /clip node: exactly two inputs are required/],
];

describe('spatial steps: bad input', () => {
  it.each(bad)('%s answers 422', (_what, pipeline, message) => {
    expect(() => validatePipeline(pipeline)).toThrow(expect.objectContaining({ status: 422, message: expect.stringMatching(message) }));
  });

  it('a column that is not geometry answers 422 naming the function', async () => {
    await expect(run('duckdb', { type: 'measure', geometry: 'name', measure: 'area', input: [polys] })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/ST_Area: argument 1 is not a geometry/) });
  });
});
