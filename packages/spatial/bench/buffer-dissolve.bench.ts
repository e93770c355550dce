/**
 * Buffer and dissolve (issue #46's acceptance line): 10 km buffers of the 3,376 sample airports (vega-datasets)
 * unioned per state, ours (DuckDB: ST_Buffer in metres, ST_Union as the aggregate the sandbox maps it to) against
 * PostGIS on the same machine in the same run (ST_Buffer on geography, ST_Union on geometry). Both sides run GEOS.
 * Rounds alternate, the median is compared, the load printed; each state's area is compared too (within 1%, the
 * buffers' tolerance). Standalone: `npx tsx packages/spatial/bench/buffer-dissolve.bench.ts`.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { registerSpatialFunctions } from '../src/index';
import { alternate, load, median, sampleFile, withPostgis } from './util';

const ROUNDS = Number(process.env.SPATIAL_BENCH_ROUNDS ?? 5);
const csv = sampleFile('airports.csv');

const db = await DuckDBInstance.create(':memory:');
const duck = await db.connect();
await registerSpatialFunctions(duck);
await duck.run(`CREATE TABLE airports AS SELECT iata, state, longitude, latitude FROM read_csv('${csv.replace(/'/g, "''")}') WHERE state IS NOT NULL`);
const rows = (await duck.runAndReadAll('SELECT iata, state, longitude, latitude FROM airports')).getRows();

try {
  await withPostgis('buffer_bench', async (pool) => {
    await pool.query('CREATE TABLE airports (iata text, state text, geom geometry(Point, 4326))');
    await pool.query('INSERT INTO airports SELECT i, s, ST_SetSRID(ST_Point(x, y), 4326) FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) t(i, s, x, y)', [
      rows.map((r) => String(r[0])), rows.map((r) => String(r[1])), rows.map((r) => Number(r[2])), rows.map((r) => Number(r[3])),
    ]);
    const pgSql = 'SELECT state, ST_Area(ST_Union(ST_Buffer(geom::geography, 10000)::geometry)::geography) FROM airports GROUP BY 1';
    const oursSql = 'SELECT state, ST_Area(st_union_agg(list(ST_Buffer(ST_Point(longitude, latitude), 10000)))) FROM airports GROUP BY 1';
    const runs = await alternate(ROUNDS, {
      postgis: async () => new Map((await pool.query({ text: pgSql, rowMode: 'array' })).rows.map(([s, a]) => [String(s), Number(a)])),
      ours: async () => new Map((await duck.runAndReadAll(oursSql)).getRows().map(([s, a]) => [String(s), Number(a)])),
    });
    const [base, ours] = [median(runs.postgis!.seconds), median(runs.ours!.seconds)];
    const want = runs.postgis!.last, got = runs.ours!.last;
    const off = [...want.keys()].filter((s) => !(Math.abs((got.get(s) ?? 0) - want.get(s)!) <= 0.01 * want.get(s)!)).length;
    console.log(`airports: ${rows.length}, states: ${want.size}, load average ${load()}`);
    console.log(`PostGIS (ST_Buffer on geography, ST_Union): ${base.toFixed(2)} s`);
    console.log(`buffer-dissolve 10 km per state: ${ours.toFixed(2)} s (ratio ${(ours / base).toFixed(2)} vs baseline; target 1.5), states whose area differs from PostGIS's by more than 1%: ${off}`);
    console.log(`load average after: ${load()}`);
  });
} finally {
  duck.closeSync();
  db.closeSync();
}
