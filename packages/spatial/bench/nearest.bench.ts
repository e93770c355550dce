/**
 * Nearest (issue #46's acceptance line): the nearest of the 3,376 sample airports (vega-datasets) for N points uniform
 * in lon −125…−66, lat 24…50 (default 1M; `SPATIAL_BENCH_POINTS`), by spheroid distance, ours (DuckDB:
 * studio_nearest over studio_nearest_index, nearest.ts) against PostGIS's KNN on geography (a GiST index, `ORDER BY
 * a.geog <-> p.geog LIMIT 1` per point) on the same machine in the same run; loading not timed. The answers are
 * compared: the same airport, or one at the same spheroid distance within 1e-9 m (a tie). PostGIS's KNN on geography
 * orders by the sphere, so where it names a farther airport on the spheroid that is counted apart.
 * Standalone: `npx tsx packages/spatial/bench/nearest.bench.ts`.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { registerSpatialFunctions } from '../src/index';
import { alternate, hashedLat, hashedLng, load, median, sampleFile, withPostgis } from './util';

const N = Number(process.env.SPATIAL_BENCH_POINTS ?? 1_000_000);
const ROUNDS = Number(process.env.SPATIAL_BENCH_ROUNDS ?? 1);
const csv = sampleFile('airports.csv');

const db = await DuckDBInstance.create(':memory:');
const duck = await db.connect();
await registerSpatialFunctions(duck);
await duck.run(`CREATE TABLE airports AS SELECT iata, longitude, latitude FROM read_csv('${csv.replace(/'/g, "''")}')`);
await duck.run(`CREATE TABLE pts AS SELECT i, (${hashedLng('i')})::DOUBLE AS lng, (${hashedLat('i')})::DOUBLE AS lat FROM range(1, ${N + 1}) t(i)`);
const airports = (await duck.runAndReadAll('SELECT iata, longitude, latitude FROM airports')).getRows();

type Answer = Map<number, [string, number]>;
try {
  await withPostgis('nearest_bench', async (pool) => {
    await pool.query('CREATE TABLE airports (iata text, geog geography(Point, 4326))');
    await pool.query('INSERT INTO airports SELECT i, ST_SetSRID(ST_Point(x, y), 4326)::geography FROM unnest($1::text[], $2::float8[], $3::float8[]) t(i, x, y)', [
      airports.map((r) => String(r[0])), airports.map((r) => Number(r[1])), airports.map((r) => Number(r[2])),
    ]);
    await pool.query('CREATE INDEX ON airports USING gist (geog)');
    await pool.query(`CREATE TABLE pts AS SELECT i, ST_SetSRID(ST_Point(${hashedLng('i')}, ${hashedLat('i')}), 4326)::geography AS geog FROM generate_series(1::bigint, ${N}::bigint) i`);
    await pool.query('ANALYZE airports; ANALYZE pts');

    const pgSql = `SELECT p.i, a.iata, ST_Distance(p.geog, a.geog) FROM pts p
      CROSS JOIN LATERAL (SELECT iata, geog FROM airports ORDER BY airports.geog <-> p.geog LIMIT 1) a`;
    const oursSql = `WITH a AS (SELECT list(iata ORDER BY iata) AS iatas, studio_nearest_index(list(ST_Point(longitude, latitude) ORDER BY iata)) AS ix FROM airports)
      SELECT i, a.iatas[CAST(n[1] AS BIGINT)], n[2] FROM (SELECT p.i, studio_nearest(a.ix, p.lng, p.lat, 1) AS n FROM pts p, a) CROSS JOIN a`;
    const runs = await alternate<Answer>(ROUNDS, {
      postgis: async () => new Map((await pool.query({ text: pgSql, rowMode: 'array' })).rows.map(([i, a, d]) => [Number(i), [String(a), Number(d)]])),
      ours: async () => new Map((await duck.runAndReadAll(oursSql)).getRows().map(([i, a, d]) => [Number(i), [String(a), Number(d)]])),
    });
    const [base, ours] = [median(runs.postgis!.seconds), median(runs.ours!.seconds)];
    let same = 0, ties = 0, nearer = 0, wrong = 0;
    for (const [i, [pa, pd]] of runs.postgis!.last) {
      const [oa, od] = runs.ours!.last.get(i) ?? ['', Infinity];
      if (oa === pa) same++;
      else if (Math.abs(od - pd) <= 1e-9) ties++;
      else if (od < pd) nearer++;
      else wrong++;
    }
    console.log(`points: ${N}, airports: ${airports.length}, load average ${load()}`);
    console.log(`PostGIS (KNN on geography, GiST): ${base.toFixed(2)} s`);
    console.log(`nearest airport: ${Math.round(N / ours)} points/s (ratio ${(ours / base).toFixed(2)} vs baseline; target 1.0) ${ours.toFixed(2)} s`);
    console.log(`  answers: ${same} the same airport, ${ties} ties within 1e-9 m, ${nearer} nearer on the spheroid than PostGIS's (its KNN orders by the sphere), ${wrong} wrong`);
    console.log(`load average after: ${load()}`);
  });
} finally {
  duck.closeSync();
  db.closeSync();
}
