/**
 * Buffer and dissolve (issue #46's acceptance line): 10 km buffers of the 3,376 sample airports (vega-datasets)
 * unioned per state, ours (DuckDB: ST_Buffer in metres, ST_Union as the aggregate the sandbox maps it to) against
 * PostGIS on the same machine in the same run (ST_Buffer on geography, ST_Union on geometry). Both sides run GEOS.
 * Rounds alternate, the median is compared, the load printed; each state's area is compared too (within 1%, the
 * buffers' tolerance). Standalone: `npx tsx packages/spatial/bench/buffer-dissolve.bench.ts`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { registerSpatialFunctions } from '../src/index';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.SPATIAL_BENCH_ROUNDS ?? 3);
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
// The server's sample (vega-datasets, a dependency of the server): the package exports no data files, so it is found on disk.
const csv = (() => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const f = path.join(dir, 'node_modules', 'vega-datasets', 'data', 'airports.csv');
    if (existsSync(f)) return f;
  }
  throw new Error('vega-datasets is not installed (npm install at the root)');
})();

const db = await DuckDBInstance.create(':memory:');
const duck = await db.connect();
await registerSpatialFunctions(duck);
await duck.run(`CREATE TABLE airports AS SELECT iata, state, longitude, latitude FROM read_csv('${csv.replace(/'/g, "''")}') WHERE state IS NOT NULL`);
const rows = (await duck.runAndReadAll('SELECT iata, state, longitude, latitude FROM airports')).getRows();

const dbName = `buffer_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const pool = new pg.Pool({ connectionString: PG_URL.replace(/\/postgres$/, `/${dbName}`), max: 1 });
try {
  await pool.query('CREATE EXTENSION postgis');
  await pool.query('CREATE TABLE airports (iata text, state text, geom geometry(Point, 4326))');
  await pool.query('INSERT INTO airports SELECT i, s, ST_SetSRID(ST_Point(x, y), 4326) FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) t(i, s, x, y)', [
    rows.map((r) => String(r[0])), rows.map((r) => String(r[1])), rows.map((r) => Number(r[2])), rows.map((r) => Number(r[3])),
  ]);

  const pgSql = 'SELECT state, ST_Area(ST_Union(ST_Buffer(geom::geography, 10000)::geometry)::geography) FROM airports GROUP BY 1';
  const oursSql = 'SELECT state, ST_Area(st_union_agg(list(ST_Buffer(ST_Point(longitude, latitude), 10000)))) FROM airports GROUP BY 1';
  const runs: Record<string, number[]> = { postgis: [], ours: [] };
  const areas: Record<string, Map<string, number>> = {};
  const time = async (name: string, f: () => Promise<[string, number][]>) => {
    const t = performance.now();
    const got = await f();
    runs[name]!.push((performance.now() - t) / 1000);
    areas[name] = new Map(got);
  };
  for (let r = 0; r < ROUNDS; r++) {
    await time('postgis', async () => (await pool.query({ text: pgSql, rowMode: 'array' })).rows.map(([s, a]) => [s, Number(a)]));
    await time('ours', async () => (await duck.runAndReadAll(oursSql)).getRows().map(([s, a]) => [String(s), Number(a)]));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [base, ours] = [median(runs.postgis!), median(runs.ours!)];
  const states = [...areas.postgis!.keys()];
  const off = states.filter((s) => !(Math.abs((areas.ours!.get(s) ?? 0) - areas.postgis!.get(s)!) <= 0.01 * areas.postgis!.get(s)!)).length;
  console.log(`airports: ${rows.length}, states: ${states.length}, load average ${load()}`);
  console.log(`PostGIS (ST_Buffer on geography, ST_Union): ${base.toFixed(2)} s`);
  console.log(`buffer-dissolve 10 km per state: ${ours.toFixed(2)} s (ratio ${(ours / base).toFixed(2)} vs baseline; target 1.5), states whose area differs from PostGIS's by more than 1%: ${off}`);
  console.log(`load average after: ${load()}`);
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  duck.closeSync();
  db.closeSync();
}
