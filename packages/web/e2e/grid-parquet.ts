import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

/**
 * `n` points (n, lat, lng) on a grid `columns` points high over San Francisco (where a new map opens), `step` degrees
 * apart, as Parquet made by DuckDB here (5M points in 0.6 s, 20M in 3.6 s): a CSV of five million is 150 MB to send
 * and parse. Used by the browser test of the tile threshold and the map bench.
 */
export async function gridParquet(n: number, { columns = 2000, step = 0.0002 }: { columns?: number; step?: number } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'studio-e2e-grid-')), 'grid.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    await c.run(`COPY (SELECT i::INTEGER AS n, 37.6 + (i % ${columns}) * ${step} AS lat, -122.6 + (i // ${columns}) * ${step} AS lng FROM range(${n}) t(i)) TO '${file}' (FORMAT parquet)`);
  } finally {
    c.closeSync();
    db.closeSync();
  }
  const bytes = new Uint8Array(await fs.readFile(file));
  await fs.rm(path.dirname(file), { recursive: true, force: true });
  return bytes;
}
