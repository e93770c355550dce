import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

export const BENCH_ROWS = Number(process.env.BENCH_ROWS ?? 0) || 0;

export async function tempDir(prefix: string) {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** lat, lng, timestamp, category and four numerics, written by DuckDB (fast, deterministic). */
export async function writeCsv(file: string, rows: number): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (SELECT
      40 + (hash(i) % 100000) / 100000.0 AS lat,
      -74 + (hash(i + 1) % 100000) / 100000.0 AS lng,
      TIMESTAMP '2024-01-01' + INTERVAL (i % 31536000) SECOND AS ts,
      'cat_' || (i % 12) AS category,
      i AS n1,
      (hash(i) % 1000) / 10.0 AS n2,
      i % 97 AS n3,
      sqrt(i) AS n4
    FROM range(${rows}) t(i)) TO '${file}' (FORMAT csv, HEADER true)`);
  c.closeSync();
  db.closeSync();
}

export async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const r = await fn();
  return [(performance.now() - t0) / 1000, r];
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** 1000000 -> "1M", 5000 -> "5k": for bench names. */
export const short = (n: number) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : String(n));

/** The CONVENTIONS.md line: `name: value unit (ratio R vs baseline; target T)`, value as a plain number. */
export function line(name: string, value: number, unit: string, ratio: number, target: string): void {
  console.log(`${name}: ${Math.round(value)} ${unit} (ratio ${ratio.toFixed(2)} vs baseline; target ${target})`);
}
