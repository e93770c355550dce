import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSpatialJoinSql } from '../src/index';
import { Oracle } from './oracle';

/**
 * The spatial-join planner: each join, planned (a hash join on grid keys, checked in the SQL), answers the same pairs
 * PostGIS answers on the same rows — points on edges, vertices and hole boundaries, holes, multipolygons, a polygon by
 * the antimeridian, empty and NULL geometries, lines and polygons as probes, extra AND conditions, ST_DWithin in metres
 * (PostGIS geography), and LEFT / RIGHT joins keeping unmatched rows, planned too.
 */
const o = new Oracle();

const POLYS: [number, string | null][] = [
  [1, 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))'],
  [2, 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 8, 8 8, 8 2, 2 2))'],
  [3, 'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)), ((5 5, 6 5, 6 6, 5 6, 5 5)))'],
  [4, 'POLYGON((1.3 0.7, 9.1 3.3, 4.2 9.7, 1.3 0.7))'],
  [5, 'POLYGON((179 -17, 179.9 -17, 179.9 -16, 179 -16, 179 -17))'],
  [6, 'POLYGON EMPTY'],
  [7, null],
  [8, 'POLYGON((2.25 2.25, 2.75 2.25, 2.75 2.75, 2.25 2.75, 2.25 2.25))'],
];
const SHAPES: [number, string | null][] = [
  [1, 'LINESTRING(-1 2, 5 2)'],
  [2, 'LINESTRING(3 3, 3.5 3.5)'],
  [3, 'POLYGON((2.5 2.5, 3 2.5, 3 3, 2.5 3, 2.5 2.5))'],
  [4, 'POLYGON((-5 -5, 20 -5, 20 20, -5 20, -5 -5))'],
  [5, 'POINT(5.5 5.5)'],
  [6, 'LINESTRING(179.5 -16.5, 179.95 -16.5)'],
  [7, 'LINESTRING EMPTY'],
  [8, null],
];

beforeAll(async () => {
  await o.start();
  // Points on a 0.25-degree lattice over the shapes (edges, vertices, hole boundaries) and near the antimeridian.
  const grid = (x0: number, n: number, y0: number, m: number, step: number) =>
    Array.from({ length: n * m }, (_, k) => [x0 + (k % n) * step, y0 + Math.floor(k / n) * step] as const);
  const pts = [...grid(-1, 49, -1, 49, 0.25), ...grid(178.8, 13, -17.2, 8, 0.1)].map(([x, y], i) => [i + 1, x, y] as const);
  await o.duck.run('CREATE TABLE polys (id INTEGER, geom VARCHAR); CREATE TABLE shapes (id INTEGER, g VARCHAR); CREATE TABLE pts (id INTEGER, x DOUBLE, y DOUBLE)');
  await o.pool.query('CREATE TABLE polys (id int, geom geometry); CREATE TABLE shapes (id int, g geometry); CREATE TABLE pts (id int, x float8, y float8)');
  for (const [table, rows] of [['polys', POLYS], ['shapes', SHAPES]] as const) {
    for (const [id, wkt] of rows) {
      await o.duck.run(`INSERT INTO ${table} VALUES ($1, $2)`, [id, wkt] as never);
      await o.pool.query(`INSERT INTO ${table} VALUES ($1, ST_GeomFromText($2, 4326))`, [id, wkt]);
    }
  }
  const values = pts.map(([i, x, y]) => `(${i}, ${x}, ${y})`).join(',');
  await o.duck.run(`INSERT INTO pts VALUES ${values}, (0, NULL, NULL)`);
  await o.pool.query(`INSERT INTO pts VALUES ${values}, (0, NULL, NULL)`);
});
afterAll(() => o.stop());

const pt = { ours: 'ST_Point(p.x, p.y)', pg: 'ST_SetSRID(ST_Point(p.x, p.y), 4326)' };
const CASES: [string, string, string][] = [
  // [name, FROM ... (with {pt} for the point), SELECT list]
  ['ST_Contains(polygon, point)', 'pts p JOIN polys c ON ST_Contains(c.geom, {pt})', 'c.id, p.id'],
  ['ST_Within(point, polygon)', 'pts p JOIN polys c ON ST_Within({pt}, c.geom)', 'c.id, p.id'],
  ['ST_Covers(polygon, point)', 'pts p JOIN polys c ON ST_Covers(c.geom, {pt})', 'c.id, p.id'],
  ['ST_Intersects(point, polygon)', 'pts p JOIN polys c ON ST_Intersects({pt}, c.geom)', 'c.id, p.id'],
  ['ST_Intersects(polygon, point), polygons on the left', 'polys c JOIN pts p ON ST_Intersects(c.geom, {pt})', 'c.id, p.id'],
  ['extra AND conditions', 'pts p JOIN polys c ON c.id <> 2 AND ST_Contains(c.geom, {pt}) AND p.x < 3', 'c.id, p.id'],
  ['ST_Intersects(polygon, lines and polygons)', 'shapes s JOIN polys c ON ST_Intersects(c.geom, s.g)', 'c.id, s.id'],
  ['ST_Contains(polygon, lines and polygons)', 'shapes s JOIN polys c ON ST_Contains(c.geom, s.g)', 'c.id, s.id'],
  ['ST_Within(polygon, shapes): the probe contains', 'shapes s JOIN polys c ON ST_Within(c.geom, s.g)', 'c.id, s.id'],
  ['ST_Contains(shape, point): a reversed container', 'pts p JOIN shapes s ON ST_Covers(s.g, {pt})', 's.id, p.id'],
];

async function pairs(sql: string, pgSql: string) {
  const ours = (await o.duck.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (v === null ? null : Number(v))));
  const want = (await o.pool.query({ text: pgSql, rowMode: 'array' })).rows as unknown[][];
  return { ours, want: want.map((r) => r.map((v) => (v === null ? null : Number(v)))) };
}

describe('spatial joins planned as hash joins answer what PostGIS answers', () => {
  it.each(CASES)('%s', async (_name, from, list) => {
    const q = (p: string) => `SELECT ${list} FROM ${from.replace('{pt}', p)} ORDER BY 1, 2`;
    const planned = await planSpatialJoinSql(o.duck, q(pt.ours));
    expect(planned).toContain('studio_sj_cover');
    const plan = (await o.duck.runAndReadAll(`EXPLAIN ${planned}`)).getRows().map((r) => String(r[1])).join('\n');
    expect(plan).toContain('HASH_JOIN');
    expect(plan).not.toMatch(/NESTED_LOOP|BLOCKWISE_NL|PIECEWISE/);
    const { ours, want } = await pairs(planned, q(pt.pg));
    expect(want.length).toBeGreaterThan(0);
    expect(ours).toEqual(want);
  });

  it.each([50_000, 1_000_000])('ST_DWithin(polygon, point, %d m) as PostGIS geography', async (metres) => {
    const q = (p: string, g: string) => `SELECT c.id, p.id FROM pts p JOIN polys c ON ST_DWithin(${g}, ${p}, ${metres}) ORDER BY 1, 2`;
    const planned = await planSpatialJoinSql(o.duck, q(pt.ours, 'c.geom'));
    expect(planned).toContain('studio_sj_cover');
    const { ours, want } = await pairs(planned, q(`${pt.pg}::geography`, 'c.geom::geography'));
    expect(ours).toEqual(want);
  });

  it('ST_DWithin between points (a build of points: the grid is sized from the distance, not from their zero extent)', async () => {
    const q = (a: string, b: string) => `SELECT a.id, b.id FROM pts a JOIN pts b ON ST_DWithin(${b}, ${a}, 30000) AND a.id < b.id AND a.x > 9 ORDER BY 1, 2`;
    const planned = await planSpatialJoinSql(o.duck, q('ST_Point(a.x, a.y)', 'ST_Point(b.x, b.y)'));
    expect(planned).toContain('studio_sj_cover');
    const { ours, want } = await pairs(planned, q('ST_SetSRID(ST_Point(a.x, a.y), 4326)::geography', 'ST_SetSRID(ST_Point(b.x, b.y), 4326)::geography'));
    expect(want.length).toBeGreaterThan(0);
    expect(ours).toEqual(want);
  });

  const OUTER: [string, string, string][] = [
    // [name, FROM ... (with {pt}), SELECT list]: unmatched rows kept, as PostGIS keeps them
    ['points LEFT JOIN polygons (the probe kept)', 'pts p LEFT JOIN polys c ON ST_Contains(c.geom, {pt})', 'p.id, c.id'],
    ['polygons LEFT JOIN points (the build side kept)', 'polys c LEFT JOIN pts p ON ST_Contains(c.geom, {pt}) AND p.x < 3', 'c.id, p.id'],
    ['points RIGHT JOIN polygons', 'pts p RIGHT JOIN polys c ON ST_Within({pt}, c.geom)', 'c.id, p.id'],
    ['shapes LEFT JOIN polygons on ST_Intersects', 'shapes s LEFT JOIN polys c ON ST_Intersects(c.geom, s.g)', 's.id, c.id'],
  ];

  it.each(OUTER)('%s: a hash join, PostGIS\'s rows', async (_name, from, list) => {
    const q = (p: string) => `SELECT ${list} FROM ${from.replace('{pt}', p)} ORDER BY 1 NULLS FIRST, 2 NULLS FIRST`;
    const planned = await planSpatialJoinSql(o.duck, q(pt.ours));
    expect(planned).toContain('studio_sj_cover');
    const plan = (await o.duck.runAndReadAll(`EXPLAIN ${planned}`)).getRows().map((r) => String(r[1])).join('\n');
    expect(plan).toContain('HASH_JOIN');
    expect(plan).not.toMatch(/NESTED_LOOP|BLOCKWISE_NL|PIECEWISE/);
    const { ours, want } = await pairs(planned, q(pt.pg));
    expect(want.filter((r) => r[1] === null).length).toBeGreaterThan(0);
    expect(ours).toEqual(want);
  });

  it('a LEFT JOIN counts points per polygon with the empty ones at 0, and SELECT * shows no helper column', async () => {
    const q = (p: string) => `SELECT c.id, count(p.id) FROM polys c LEFT JOIN pts p ON ST_Covers(c.geom, ${p}) GROUP BY 1 ORDER BY 1`;
    const { ours, want } = await pairs(await planSpatialJoinSql(o.duck, q(pt.ours)), q(pt.pg));
    expect(ours).toEqual(want);
    expect(ours.some((r) => r[1] === 0)).toBe(true);
    const star = await planSpatialJoinSql(o.duck, `SELECT * FROM pts p LEFT JOIN polys c ON ST_Contains(c.geom, ${pt.ours}) LIMIT 1`);
    expect((await o.duck.runAndReadAll(star)).columnNames()).toEqual(['id', 'x', 'y', 'id', 'geom']);
  });

  it('an exact test on a build geometry the join no longer holds is an error, never a wrong answer', async () => {
    await expect(o.ours(`SELECT studio_sj_xy(0, 987654321, 1.0, 1.0)`)).rejects.toThrow(/spatial join: the polygons' side holds more geometry than a join keeps \(256 MB of WKB\)/);
  });

  it('a join on a column that is no geometry answers a message naming the spatial join and the argument', async () => {
    const planned = await planSpatialJoinSql(o.duck, `SELECT count(*) FROM pts p JOIN polys c ON ST_Contains(c.id, ${pt.ours})`);
    await expect(o.duck.runAndReadAll(planned)).rejects.toThrow(/spatial join: argument 1 is not a geometry: it is INTEGER/);
  });

  it('SELECT * shows the tables\' own columns, not the plan\'s', async () => {
    const planned = await planSpatialJoinSql(o.duck, `SELECT *, c.* FROM pts p JOIN polys c ON ST_Contains(c.geom, ${pt.ours}) LIMIT 1`);
    expect((await o.duck.runAndReadAll(planned)).columnNames()).toEqual(['id', 'x', 'y', 'id', 'geom', 'id', 'geom']);
  });
});
