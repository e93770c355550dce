/**
 * Points in polygons (issue #46's acceptance line): N points uniform in lon −125…−66, lat 24…50 counted per US county
 * (the us-atlas sample's 3,231 counties), ours (DuckDB, the spatial-join planner) against PostGIS on the same machine
 * in the same run: points and counties loaded as geometry beforehand, a GiST index on the counties, PostgreSQL's
 * default parallel workers, `SELECT c.fips, count(*) FROM pts p JOIN counties c ON ST_Contains(c.geom, p.geom) GROUP
 * BY 1`. The points are the same on both sides (an integer hash both engines compute exactly), so the counts are
 * compared too. Loading is not timed. `SPATIAL_BENCH_POINTS` (default 10M) for a quick run. During our joins it prints
 * the event loop's p99 delay (the JS callbacks run on the thread that would answer `/v1/health`: what its p99 waits
 * for in the server) and this process's RSS growth (DuckDB runs in-process, as in the server), against the target
 * STUDIO_DUCKDB_MEMORY + 256 MB (DuckDB's memory_limit is set to it here).
 * Standalone: `npx tsx packages/spatial/bench/points-in-polygons.bench.ts`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { feature } from 'topojson-client';
import { planSpatialJoinSql, registerSpatialFunctions } from '../src/index';
import { hashedLng, hashedLat, load, median, withPostgis } from './util';

const N = Number(process.env.SPATIAL_BENCH_POINTS ?? 10_000_000);

const require = createRequire(import.meta.url);
const topo = JSON.parse(await readFile(require.resolve('us-atlas/counties-10m.json'), 'utf8'));
const counties = (feature(topo, topo.objects.counties) as unknown as { features: { id: string; geometry: unknown }[] }).features
  .filter((f) => f.geometry)
  .map((f) => ({ fips: String(f.id), geojson: JSON.stringify(f.geometry) }));

const [X, Y] = [hashedLng, hashedLat];

const MEMORY = process.env.STUDIO_DUCKDB_MEMORY ?? '512MB'; // the server's default
const db = await DuckDBInstance.create(':memory:', { memory_limit: MEMORY });
const duck = await db.connect();
await registerSpatialFunctions(duck);
await duck.run(`CREATE TABLE pts AS SELECT (${X('i')})::DOUBLE AS lng, (${Y('i')})::DOUBLE AS lat FROM range(1, ${N + 1}) t(i)`);
await duck.run('CREATE TABLE counties (fips VARCHAR, geom VARCHAR)');
const app = await duck.createAppender('counties');
for (const c of counties) { app.appendVarchar(c.fips); app.appendVarchar(c.geojson); app.endRow(); }
app.closeSync();
// Counties as WKB, as ST_GeomFromGeoJSON makes them: the geometry a join reads without parsing text.
await duck.run('CREATE TABLE counties_wkb AS SELECT fips, ST_GeomFromGeoJSON(geom) AS geom FROM counties');

try {
  await withPostgis('pip_bench', async (pool) => {
    await pool.query('CREATE TABLE counties (fips text, geom geometry(Geometry, 4326))');
    for (let i = 0; i < counties.length; i += 500) {
      const part = counties.slice(i, i + 500);
      await pool.query(`INSERT INTO counties SELECT f, ST_SetSRID(ST_GeomFromGeoJSON(g), 4326) FROM unnest($1::text[], $2::text[]) t(f, g)`, [part.map((c) => c.fips), part.map((c) => c.geojson)]);
    }
    await pool.query('CREATE INDEX ON counties USING gist (geom)');
    await pool.query(`CREATE TABLE pts AS SELECT ST_SetSRID(ST_Point(${X('i')}, ${Y('i')}), 4326) AS geom FROM generate_series(1::bigint, ${N}::bigint) i`);
    await pool.query('ANALYZE counties; ANALYZE pts');

    const pgSql = 'SELECT c.fips, count(*) FROM pts p JOIN counties c ON ST_Contains(c.geom, p.geom) GROUP BY 1';
    const oursSql = await planSpatialJoinSql(duck, 'SELECT c.fips, count(*) AS n FROM pts p JOIN counties c ON ST_Contains(c.geom, ST_Point(p.lng, p.lat)) GROUP BY 1');
    const oursWkbSql = oursSql.replace(/\bcounties\b/g, 'counties_wkb');
    const runs: Record<string, number[]> = { postgis: [], ours: [], oursWkb: [] };
    const counts: Record<string, Map<string, number>> = {};
    const delay: Record<string, number> = {};
    const rss: Record<string, number> = {};
    const time = async (name: string, f: () => Promise<[string, number][]>) => {
      const loop = monitorEventLoopDelay({ resolution: 10 });
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const sample = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
      loop.enable();
      const t = performance.now();
      const rows = await f();
      runs[name]!.push((performance.now() - t) / 1000);
      loop.disable();
      clearInterval(sample);
      peak = Math.max(peak, process.memoryUsage().rss);
      delay[name] = Math.max(delay[name] ?? 0, loop.percentile(99) / 1e6);
      rss[name] = Math.max(rss[name] ?? 0, (peak - rss0) / 2 ** 20);
      counts[name] = new Map(rows);
    };
    const rounds = N >= 5_000_000 ? 1 : 3;
    for (let r = 0; r < rounds; r++) {
      await time('postgis', async () => (await pool.query({ text: pgSql, rowMode: 'array' })).rows.map(([f, n]) => [f, Number(n)]));
      await time('ours', async () => (await duck.runAndReadAll(oursSql)).getRows().map(([f, n]) => [String(f), Number(n)]));
      await time('oursWkb', async () => (await duck.runAndReadAll(oursWkbSql)).getRows().map(([f, n]) => [String(f), Number(n)]));
    }
    const base = median(runs.postgis!);
    const differ = (name: string) => [...new Set([...counts.postgis!.keys(), ...counts[name]!.keys()])].filter((k) => counts.postgis!.get(k) !== counts[name]!.get(k)).length;
    console.log(`points: ${N}, counties: ${counties.length}, load average ${load()}`);
    console.log(`PostGIS (GiST, default parallel workers): ${base.toFixed(2)} s`);
    for (const [name, label] of [['ours', 'counties as GeoJSON text'], ['oursWkb', 'counties as WKB']] as const) {
      const s = median(runs[name]!);
      console.log(`points-in-polygons ${label}: ${Math.round(N / s)} points/s (ratio ${(s / base).toFixed(2)} vs baseline; target 0.5) ${s.toFixed(2)} s, counties whose count differs from PostGIS: ${differ(name)}`);
      console.log(`  during it: event-loop p99 delay ${delay[name]!.toFixed(0)} ms (what /v1/health's p99 waits for), RSS growth ${rss[name]!.toFixed(0)} MB (target ≤ ${MEMORY} + 256 MB)`);
    }
    console.log(`load average after: ${load()}`);
  });
} finally {
  duck.closeSync();
  db.closeSync();
}
