import { DuckDBInstance } from '@duckdb/node-api';
import { registerH3Functions } from './src/index';
import { cellsFn } from './src/h3/raw';
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
registerH3Functions(conn);
const N = 2_000_000;
await conn.run(`CREATE TABLE p AS SELECT 25 + random() * 24 AS lat, -124 + random() * 57 AS lng FROM range(${N})`);
const la = new Float64Array(N), ln = new Float64Array(N), lo = new Uint32Array(N), hi = new Uint32Array(N);
for (let i = 0; i < N; i++) { la[i] = 25 + Math.random() * 24; ln[i] = -124 + Math.random() * 57; }
const f = cellsFn();
for (let rep = 0; rep < 2; rep++) {
  let t = performance.now(); f(la, ln, 9, 0, N, lo, hi); console.log('kernel', Math.round(N / ((performance.now() - t) / 1000)));
  for (const q of ['max(h3_latlng_to_cell_u64(lat, lng, 9))', 'max(lower(hex(h3_latlng_to_cell_u64(lat, lng, 9))))', 'max(h3_latlng_to_cell(lat, lng, 9))']) {
    const c0 = process.cpuUsage(); t = performance.now();
    await conn.run(`SELECT ${q} FROM p`);
    const s = (performance.now() - t) / 1000; const cpu = process.cpuUsage(c0);
    console.log(q, Math.round(N / s), 'pts/s wall; cpu s', ((cpu.user + cpu.system) / 1e6).toFixed(2), 'wall', s.toFixed(2));
  }
}
