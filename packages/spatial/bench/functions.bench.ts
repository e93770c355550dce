/**
 * Throughput of the spatial SQL functions in DuckDB (one connection, the JS thread): rows a second for the calls a
 * points-in-polygons query makes, and for the spheroid measures. Standalone: `npx tsx packages/spatial/bench/functions.bench.ts`.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { registerSpatialFunctions } from '../src/index';

const N = Number(process.env.SPATIAL_BENCH_ROWS ?? 200_000);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const t0 = performance.now();
await registerSpatialFunctions(c);
console.log(`register (GEOS load): ${(performance.now() - t0).toFixed(0)} ms`);
// A 64-vertex polygon as GeoJSON text, as a dataset's _geojson column holds it.
const ring = Array.from({ length: 64 }, (_, i) => [Math.cos((i / 64) * 2 * Math.PI) * (1 + 0.2 * (i % 2)), Math.sin((i / 64) * 2 * Math.PI) * (1 + 0.2 * (i % 2))]);
ring.push(ring[0]!);
const poly = JSON.stringify({ type: 'Polygon', coordinates: [ring] });
await c.run(`CREATE TABLE pts AS SELECT random() * 3 - 1.5 AS lng, random() * 3 - 1.5 AS lat FROM range(${N})`);
await c.run(`CREATE TABLE polys AS SELECT '${poly}' AS g`);

async function time(name: string, sql: string, rows = N) {
  const t = performance.now();
  await c.runAndReadAll(sql);
  const s = (performance.now() - t) / 1000;
  console.log(`${name}: ${(rows / s / 1000).toFixed(1)} k rows/s (${s.toFixed(2)} s for ${rows} rows)`);
}
await time('ST_Point', 'SELECT count(ST_Point(lng, lat)) FROM pts');
await time('ST_Contains(polygon GeoJSON, ST_Point)', 'SELECT count(*) FROM pts, polys WHERE ST_Contains(polys.g, ST_Point(lng, lat))');
await time('ST_Intersects(polygon GeoJSON, ST_Point)', 'SELECT count(*) FROM pts, polys WHERE ST_Intersects(polys.g, ST_Point(lng, lat))');
await time('ST_Distance(point, point) m', 'SELECT sum(ST_Distance(ST_Point(lng, lat), ST_Point(0, 0))) FROM pts');
await time('ST_Distance(point, polygon) m', `SELECT sum(ST_Distance(ST_Point(lng, lat), polys.g)) FROM (SELECT * FROM pts LIMIT ${N / 10}) p, polys`, N / 10);
await time('ST_Area(one polygon GeoJSON, repeated) m2', `SELECT sum(ST_Area(polys.g)) FROM (SELECT * FROM pts LIMIT ${N / 10}) p, polys`, N / 10);
await time('ST_Area(distinct 64-vertex polygons) m2', `SELECT sum(ST_Area(ST_Buffer(ST_Point(lng, lat), 1000, 16))) FROM (SELECT * FROM pts LIMIT ${N / 100}) p`, N / 100);
await time('ST_Buffer(point, 1 km)', `SELECT count(ST_Buffer(ST_Point(lng, lat), 1000)) FROM (SELECT * FROM pts LIMIT ${N / 100}) p`, N / 100);
