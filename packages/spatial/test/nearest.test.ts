import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Oracle, relDiff } from './oracle';

/**
 * The nearest functions (nearest.ts) against PostGIS measuring every pair on the spheroid (`ST_Distance` on
 * geography, ordered, not its sphere-ordered KNN): the same k nearest, distances within 1e-6 relative. Sites and
 * query points are spread over the globe with clusters at the antimeridian and near the poles, where great-circle and
 * spheroid rankings part most.
 */
const o = new Oracle();
beforeAll(() => o.start());
afterAll(() => o.stop());

// A fixed pseudo-random sequence (mulberry32): the same cases every run.
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = random(46);
const spread = (n: number, at: () => [number, number]) => Array.from({ length: n }, at);
const sites = [
  ...spread(200, () => [-180 + 360 * r(), -89 + 178 * r()]),
  ...spread(50, () => [179 + 2 * r() > 180 ? -181 + 2 * r() : 179 + r(), -30 + 60 * r()]),
  ...spread(50, () => [-180 + 360 * r(), 80 + 9.5 * r()]),
];
const queries = [
  ...spread(100, () => [-180 + 360 * r(), -89 + 178 * r()]),
  ...spread(30, () => [r() > 0.5 ? 179.5 + 0.5 * r() : -180 + 0.5 * r(), -20 + 40 * r()]),
  ...spread(20, () => [-180 + 360 * r(), 85 + 4.9 * r()]),
];
const values = (pts: number[][]) => pts.map(([x, y], i) => `(${i + 1}, ${x}, ${y})`).join(', ');
const K = 3;
const MAX = 3_000_000;

describe('studio_nearest over studio_nearest_index', () => {
  beforeAll(async () => {
    await o.duck.run(`CREATE TABLE sites AS SELECT * FROM (VALUES ${values(sites)}) t(pos, x, y)`);
    await o.duck.run(`CREATE TABLE queries AS SELECT * FROM (VALUES ${values(queries)}) t(qid, x, y)`);
    await o.pool.query(`CREATE TABLE sites AS SELECT pos, ST_SetSRID(ST_Point(x, y), 4326)::geography AS g FROM (VALUES ${values(sites)}) t(pos, x, y)`);
    await o.pool.query(`CREATE TABLE queries AS SELECT qid, ST_SetSRID(ST_Point(x, y), 4326)::geography AS g FROM (VALUES ${values(queries)}) t(qid, x, y)`);
  });

  it(`answers PostGIS's ${K} nearest sites by spheroid distance within ${MAX} m, nearest first`, async () => {
    const want = new Map<number, [number[], number[]]>(
      (await o.pool.query({
        rowMode: 'array',
        text: `SELECT q.qid, array_agg(s.pos ORDER BY s.d, s.pos), array_agg(s.d ORDER BY s.d, s.pos) FROM queries q
          CROSS JOIN LATERAL (SELECT pos, ST_Distance(q.g, s.g) AS d FROM sites s WHERE ST_Distance(q.g, s.g) <= ${MAX} ORDER BY 2, 1 LIMIT ${K}) s GROUP BY 1`,
      })).rows.map(([q, p, d]) => [Number(q), [p.map(Number), d.map(Number)]]),
    );
    const got = (await o.duck.runAndReadAll(`WITH ix AS (SELECT studio_nearest_index(list(ST_Point(x, y) ORDER BY pos)) AS ix FROM sites)
      SELECT q.qid, studio_nearest(ix.ix, q.x, q.y, ${K}, ${MAX}) FROM queries q, ix ORDER BY 1`)).getRowsJS() as [number, number[]][];
    expect(got).toHaveLength(queries.length);
    let answered = 0;
    for (const [qid, list] of got) {
      const [positions, metres] = want.get(qid) ?? [[], []];
      expect(list.filter((_, i) => i % 2 === 0), `query ${qid}`).toEqual(positions);
      list.filter((_, i) => i % 2 === 1).forEach((m, i) => expect(relDiff(m, metres[i]!)).toBeLessThan(1e-6));
      if (positions.length === K) answered++;
    }
    expect(answered).toBeGreaterThan(queries.length / 2);
  });

  it('answers NULL for a NULL point, nothing for an empty index, and names a non-point in the index', async () => {
    expect(await o.ours(`SELECT studio_nearest(studio_nearest_index(['POINT(1 2)']), NULL::DOUBLE, 1, 1)`)).toBeNull();
    expect(await o.ours(`SELECT len(studio_nearest(studio_nearest_index([NULL::VARCHAR]), 1, 2, 1))`)).toBe(0n);
    await expect(o.ours(`SELECT studio_nearest_index(['POINT(1 2)', 'LINESTRING(0 0, 1 1)'])`)).rejects.toThrow(/position 2 is a LineString, not a point/);
  });
});
