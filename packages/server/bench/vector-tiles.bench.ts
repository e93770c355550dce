// Vector tiling of a large point table and of the US counties polygons, straight through the tiler (no
// HTTP). Baselines measured in the same run: time, DuckDB copying the same table Parquet to Parquet; memory,
// the naive tiler: every row read as a GeoJSON feature into one geojson-vt index (what the tiler must not do),
// which for a small table (under 100k rows) also cuts its whole pyramid in memory, as the basemaps do; for a
// large one the index alone is a lower bound of it. #16's target for the points: today's tiler in at most half
// the time of the tiler of the day the issue was filed (baseline-tiler.ts), the two run by turns, twice each.
// VT_BENCH_POINTS sets the point count (default 1,000,000).
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { Engine, parseGeometry } from '@studio/engine';
import { SAMPLE_DATASETS } from '../src/samples/datasets';
import type { Feature } from 'geojson';
import { VT_OPTIONS, buildTiles, type TileJob } from '@studio/tiles';
import geojsonvt from 'geojson-vt';
import { BASELINE_COMMIT, baselineTiler } from './baseline-tiler';

const POINTS = Number(process.env.VT_BENCH_POINTS ?? 1_000_000);
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vt-bench-'));
const engine = await Engine.open({ dataDir: dir, memoryLimit: '1GB' });
const lit = (p: string) => `'${p.replaceAll("'", "''")}'`;

/** Peak heap and RSS above the level when it starts, sampled every 20 ms while `fn` runs. */
async function peak<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; heapMb: number; rssMb: number }> {
  global.gc?.();
  const base = process.memoryUsage();
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed - base.heapUsed);
    rss = Math.max(rss, m.rss - base.rss);
  };
  const timer = setInterval(sample, 20);
  const t0 = performance.now();
  try {
    const value = await fn();
    sample();
    return { value, ms: performance.now() - t0, heapMb: heap / 2 ** 20, rssMb: rss / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

async function bench(label: string, source: string, job: Omit<TileJob, 'file' | 'name' | 'description' | 'zoomLimit'>) {
  const copy = await peak(() => engine.query(`COPY (SELECT * FROM read_parquet(${lit(source)})) TO ${lit(path.join(dir, 'copy.parquet'))} (FORMAT parquet)`));
  const out = path.join(dir, `${label}.pmtiles`);
  const tiled = await peak(() => buildTiles(engine, { ...job, file: source, name: label, description: '', zoomLimit: 14 }, out));
  const s = tiled.value;
  const held = await peak(async () => {
    const rows = await engine.query(`SELECT * FROM read_parquet(${lit(source)})`);
    const loc = job.location;
    const features = rows.map((r): Feature => ({
      type: 'Feature',
      properties: Object.fromEntries(job.properties.map((p) => [p.name, r[p.name]])),
      geometry: loc.kind === 'point' ? { type: 'Point', coordinates: [Number(r[loc.lng]), Number(r[loc.lat])] } : parseGeometry(String(r[loc.column]))!,
    }));
    const whole = rows.length < 100_000;
    const index = geojsonvt({ type: 'FeatureCollection', features }, { ...VT_OPTIONS, maxZoom: s.maxZoom, indexMaxZoom: whole ? s.maxZoom : 0, indexMaxPoints: whole ? 0 : 100_000 });
    index.getTile(0, 0, 0);
    return rows.length;
  });
  console.log(`${label} source: ${held.value} rows, zooms ${s.minZoom}-${s.maxZoom}, ${s.tileCount} tiles, ${(s.byteSize / 2 ** 20).toFixed(1)} MB archive`);
  console.log(`${label} tiling time: ${(tiled.ms / 1000).toFixed(2)} s (ratio ${(tiled.ms / copy.ms).toFixed(1)} vs DuckDB Parquet copy ${(copy.ms / 1000).toFixed(2)} s; target: none, recorded)`);
  console.log(`${label} tiling peak heap: ${tiled.heapMb.toFixed(0)} MB (ratio ${(tiled.heapMb / held.heapMb).toFixed(2)} vs all rows in one geojson-vt index${held.value < 100_000 ? ', whole pyramid cut' : ''} ${held.heapMb.toFixed(0)} MB; target < 1)`);
  console.log(`${label} tiling peak RSS growth: ${tiled.rssMb.toFixed(0)} MB (DuckDB included; all rows in one index: ${held.rssMb.toFixed(0)} MB)`);
}

/** Today's tiler against the baseline's on the same table, by turns (the machine's load changes meanwhile). */
async function againstBaseline(label: string, source: string, job: Omit<TileJob, 'file' | 'name' | 'description' | 'zoomLimit'>) {
  const baseline = await baselineTiler();
  if ('missing' in baseline) return console.log(`${label} tiling vs the baseline: not measured, ${baseline.missing}`);
  const runs = { today: [] as number[], baseline: [] as number[] };
  for (let round = 0; round < 2; round++) {
    for (const [who, build] of [['today', buildTiles], ['baseline', baseline.buildTiles]] as const) {
      const out = path.join(dir, `${label}-${who}.pmtiles`);
      const t0 = performance.now();
      await build(engine, { ...job, file: source, name: label, description: '', zoomLimit: 14 }, out);
      runs[who].push(performance.now() - t0);
      await fs.rm(out, { force: true });
    }
  }
  const best = (ms: number[]) => Math.min(...ms);
  const seconds = (ms: number[]) => ms.map((m) => (m / 1000).toFixed(1)).join(', ');
  console.log(`${label} tiling vs the tiler of ${BASELINE_COMMIT}: ratio ${(best(runs.today) / best(runs.baseline)).toFixed(2)} (best of two each: today ${seconds(runs.today)} s, baseline ${seconds(runs.baseline)} s; target <= 0.5)`);
}

try {
  const points = path.join(dir, 'points.parquet');
  // Clustered like real data: 200 centres, points spread around each by a few kilometres.
  await engine.query(`COPY (
    WITH c AS (SELECT i AS k, random() * 120 - 60 AS clat, random() * 340 - 170 AS clng FROM range(200) t(i))
    SELECT i AS id, 'point ' || i AS name, round(random() * 1000, 2) AS score,
           clat + (random() - 0.5) * 0.2 AS lat, clng + (random() - 0.5) * 0.2 AS lng
    FROM range(${POINTS}) t(i) JOIN c ON c.k = i % 200) TO ${lit(points)} (FORMAT parquet)`);
  const pointJob = { location: { kind: 'point', lat: 'lat', lng: 'lng' }, properties: [{ name: 'name', duckdbType: 'VARCHAR' }, { name: 'score', duckdbType: 'DOUBLE' }], layer: 'points' } as const;
  await bench('points', points, { ...pointJob, properties: [...pointJob.properties] });
  await againstBaseline('points', points, { ...pointJob, properties: [...pointJob.properties] });

  const counties = SAMPLE_DATASETS.find((d) => d.name === 'US counties')!;
  const geojson = path.join(dir, 'counties.json');
  await fs.writeFile(geojson, await counties.build());
  const polygons = path.join(dir, 'counties.parquet');
  await engine.query(`COPY (SELECT f.properties.name AS name, f.properties.fips AS fips, CAST(f.geometry AS VARCHAR) AS geom
    FROM (SELECT unnest(features) AS f FROM read_json(${lit(geojson)}, columns = {features: 'STRUCT(properties STRUCT(name VARCHAR, fips VARCHAR), geometry JSON)[]'}))) TO ${lit(polygons)} (FORMAT parquet)`);
  await bench('counties', polygons, { location: { kind: 'geometry', column: 'geom' }, properties: [{ name: 'name', duckdbType: 'VARCHAR' }, { name: 'fips', duckdbType: 'VARCHAR' }], layer: 'counties' });
  console.log(`load average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
} finally {
  engine.close();
  await fs.rm(dir, { recursive: true, force: true });
}
