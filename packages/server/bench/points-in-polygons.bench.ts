// #46: the points-in-polygons join as a user runs it, through a real studio server (npm start's bundle, its own process,
// on 127.0.0.1): N points and the us-atlas sample's 3,231 counties as catalog datasets, and the join as the user's SQL over
// them (POST /v1/datasets/query: the SQL sandbox's rewrite, its spatial-join planner, run in its worker processes).
// Meanwhile a second loop asks GET /v1/health at a steady rate (one every 20 ms, one at a time) and its p50/p99 are
// printed, with the resident memory of the server and its sandbox worker processes before, at peak and after (the
// target: ≤ STUDIO_DUCKDB_MEMORY + 256 MB), the load average, and the ratio to PostGIS on the same points (the same
// hash as packages/spatial/bench/points-in-polygons.bench.ts; its counts are compared). Loading is not timed.
// SPATIAL_BENCH_POINTS (default 10M); STUDIO_DUCKDB_MEMORY (default 512MB, the server's).
// Standalone: `npx tsx packages/server/bench/points-in-polygons.bench.ts`.
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import { feature } from 'topojson-client';
import { hashedLat, hashedLng, load, withPostgis } from '../../spatial/bench/util';
import { serverBundle } from '../test/cluster';
import { memoryOf, startServer } from './server-process';

const N = Number(process.env.SPATIAL_BENCH_POINTS ?? 10_000_000);
const MEMORY = process.env.STUDIO_DUCKDB_MEMORY ?? '512MB';
const HEALTH_EVERY_MS = 20;
// The join at 10M takes seconds in-process; the sandbox's default 60 s timeout is not what this bench measures.
process.env.STUDIO_SQL_TIMEOUT_MS ??= '900000';

const require = createRequire(import.meta.url);
const topo = JSON.parse(await fs.readFile(require.resolve('us-atlas/counties-10m.json'), 'utf8'));
const counties = (feature(topo, topo.objects.counties) as unknown as { features: { id: string; geometry: unknown }[] }).features
  .filter((f) => f.geometry)
  .map((f) => ({ fips: String(f.id), geometry: f.geometry }));

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

/** The server's process and its children (the sandbox's worker processes), from /proc. */
async function tree(pid: number): Promise<number[]> {
  const kids = await fs.readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').then((s) => s.split(/\s+/).filter(Boolean).map(Number), () => [] as number[]);
  return [pid, ...(await Promise.all(kids.map(tree))).flat()];
}

async function rssOf(pid: number): Promise<{ server: number; total: number }> {
  const pids = await tree(pid);
  const mems = await Promise.all(pids.map((p) => memoryOf(p).then((m) => m.rss, () => 0)));
  return { server: mems[0]!, total: mems.reduce((a, b) => a + b, 0) };
}

/** Health latencies (ms) and the peak RSS (server alone, server + workers; sampled every 50 ms) while `work` runs. */
async function watch<T>(base: string, pid: number, work: () => Promise<T>) {
  const health: number[] = [];
  let stop = false;
  const healthLoop = (async () => {
    while (!stop) {
      const t = performance.now();
      const res = await fetch(`${base}/v1/health`);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`/v1/health answered ${res.status}`);
      health.push(performance.now() - t);
      const wait = HEALTH_EVERY_MS - (performance.now() - t);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  const peak = { server: 0, total: 0 };
  const sampler = setInterval(() => rssOf(pid).then((m) => { peak.server = Math.max(peak.server, m.server); peak.total = Math.max(peak.total, m.total); }, () => {}), 50);
  const t = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - t) / 1000, health, peak };
  } finally {
    clearInterval(sampler);
    stop = true;
    await healthLoop;
  }
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-pipbench-'));
  const bundle = await serverBundle('pip-bench');
  const s = await startServer(bundle.main, dir, null);
  try {
    const api = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${s.base}${url}`, { ...init, headers: { authorization: `Bearer ${s.token}`, ...(init.headers ?? {}) } });
      if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return res;
    };
    const query = async (name: string, sql: string) =>
      ((await (await api('/v1/datasets/query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, query: sql }) })).json()) as { item: { id: string } }).item.id;
    // The points uploaded as Parquet (written here with the hash PostGIS computes too), the counties as GeoJSON.
    const ptsFile = path.join(dir, 'pts.parquet');
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    await c.run(`COPY (SELECT (${hashedLng('i')})::DOUBLE AS lng, (${hashedLat('i')})::DOUBLE AS lat FROM range(1, ${N + 1}) t(i)) TO '${ptsFile}' (FORMAT parquet)`);
    c.closeSync();
    duck.closeSync();
    await api('/v1/datasets/data?name=pts', { method: 'POST', headers: { 'content-type': 'application/vnd.apache.parquet' }, body: Readable.toWeb(createReadStream(ptsFile)) as ReadableStream, duplex: 'half' } as RequestInit);
    const fc = { type: 'FeatureCollection', features: counties.map((c) => ({ type: 'Feature', properties: { fips: c.fips }, geometry: c.geometry })) };
    const upload = (await (await api('/v1/datasets/data?name=counties', { method: 'POST', headers: { 'content-type': 'application/geo+json' }, body: JSON.stringify(fc) })).json()) as { item: { id: string; metadata: { detected: { geometry: string } } } };
    // The column the upload detected as the geometry (a GeoJSON upload keeps it as `_geojson`).
    const geomColumn = upload.item.metadata.detected.geometry;

    const userSql = `SELECT c.fips, count(*) AS n FROM pts p JOIN counties c ON ST_Contains(c.${geomColumn}, ST_Point(p.lng, p.lat)) GROUP BY 1`;
    const idle = await watch(s.base, s.pid, async () => new Promise((r) => setTimeout(r, 2000)));
    const before = await rssOf(s.pid);
    const ours = await watch(s.base, s.pid, async () => {
      const id = await query('pip', userSql);
      return (await (await api(`/v1/datasets/${id}/data`)).text()).trim().split('\n').slice(1);
    });
    const after = await rssOf(s.pid);
    const oursCounts = new Map(ours.result.map((l) => l.split(',')).map(([f, n]) => [f!.replace(/"/g, ''), Number(n)]));

    const pg = await withPostgis('pip_server_bench', async (pool) => {
      await pool.query('CREATE TABLE counties (fips text, geom geometry(Geometry, 4326))');
      for (let i = 0; i < counties.length; i += 500) {
        const part = counties.slice(i, i + 500);
        await pool.query(`INSERT INTO counties SELECT f, ST_SetSRID(ST_GeomFromGeoJSON(g), 4326) FROM unnest($1::text[], $2::text[]) t(f, g)`, [part.map((c) => c.fips), part.map((c) => JSON.stringify(c.geometry))]);
      }
      await pool.query('CREATE INDEX ON counties USING gist (geom)');
      await pool.query(`CREATE TABLE pts AS SELECT ST_SetSRID(ST_Point(${hashedLng('i')}, ${hashedLat('i')}), 4326) AS geom FROM generate_series(1::bigint, ${N}::bigint) i`);
      await pool.query('ANALYZE counties; ANALYZE pts');
      const t = performance.now();
      const rows = (await pool.query({ text: 'SELECT c.fips, count(*) FROM pts p JOIN counties c ON ST_Contains(c.geom, p.geom) GROUP BY 1', rowMode: 'array' })).rows as [string, string][];
      return { seconds: (performance.now() - t) / 1000, counts: new Map(rows.map(([f, n]) => [f, Number(n)])) };
    });
    const differ = [...new Set([...pg.counts.keys(), ...oursCounts.keys()])].filter((k) => pg.counts.get(k) !== oursCounts.get(k)).length;
    const mb = (x: number) => `${x.toFixed(0)} MB`;
    console.log(`points: ${N}, counties: ${counties.length} (geometry column ${geomColumn}), STUDIO_DUCKDB_MEMORY ${MEMORY}, load average ${load()}`);
    console.log(`PostGIS (GiST, default parallel workers): ${pg.seconds.toFixed(2)} s`);
    console.log(`points-in-polygons through the server (POST /v1/datasets/query, user SQL): ${ours.seconds.toFixed(2)} s, ${Math.round(N / ours.seconds)} points/s (ratio ${(ours.seconds / pg.seconds).toFixed(3)} vs PostGIS; target 0.5), counties whose count differs from PostGIS: ${differ}`);
    console.log(`  /v1/health during it: p50 ${pct(ours.health, 0.5).toFixed(1)} ms, p99 ${pct(ours.health, 0.99).toFixed(1)} ms, max ${Math.max(...ours.health).toFixed(0)} ms over ${ours.health.length} requests (idle server: p50 ${pct(idle.health, 0.5).toFixed(1)} ms, p99 ${pct(idle.health, 0.99).toFixed(1)} ms)`);
    console.log(`  RSS, server process: before ${mb(before.server)}, peak ${mb(ours.peak.server)}, after ${mb(after.server)}; growth ${mb(ours.peak.server - before.server)}`);
    console.log(`  RSS, server + sandbox worker processes: before ${mb(before.total)}, peak ${mb(ours.peak.total)}, after ${mb(after.total)}; growth ${mb(ours.peak.total - before.total)} (target ≤ ${MEMORY} + 256 MB)`);
    console.log(`load average after: ${load()}`);
  } finally {
    await s.stop();
    bundle.remove();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
