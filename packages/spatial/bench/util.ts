/**
 * What the spatial benches share: a PostGIS database of their own on the local cluster (created, dropped after), the
 * vega-datasets sample files, the load average and the median of alternating rounds.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import pg from 'pg';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A vega-datasets file (a dependency of the server): the package exports no data files, so it is found on disk. */
export function sampleFile(name: string): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const f = path.join(dir, 'node_modules', 'vega-datasets', 'data', name);
    if (existsSync(f)) return f;
  }
  throw new Error('vega-datasets is not installed (npm install at the root)');
}

/** Runs `work` with a one-connection pool on a fresh database with PostGIS; the database is dropped after. */
export async function withPostgis<T>(prefix: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const dbName = `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const pool = new pg.Pool({ connectionString: PG_URL.replace(/\/postgres$/, `/${dbName}`), max: 1 });
  // DROP … WITH (FORCE) ends a connection the pool may still hold idle: not an error of the bench.
  pool.on('error', () => {});
  try {
    await pool.query('CREATE EXTENSION postgis');
    return await work(pool);
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

/** Times `rounds` alternating rounds of each entry; answers each one's seconds per round and its last answer. */
export async function alternate<T>(rounds: number, entries: Record<string, () => Promise<T>>): Promise<Record<string, { seconds: number[]; last: T }>> {
  const out: Record<string, { seconds: number[]; last: T }> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, f] of Object.entries(entries)) {
      const t = performance.now();
      const last = await f();
      (out[name] ??= { seconds: [], last }).seconds.push((performance.now() - t) / 1000);
      out[name]!.last = last;
    }
  }
  return out;
}

/**
 * Points uniform in lon −125…−66, lat 24…50, the same on both sides: a multiplicative hash of the row number `i` (SQL),
 * exact in BIGINT arithmetic and one division in DuckDB and PostgreSQL alike.
 */
export const hashedLng = (i: string) => `-125 + 59 * (((${i} * 2654435761) % 4294967296) / 4294967296.0)`;
export const hashedLat = (i: string) => `24 + 26 * (((${i} * 2246822519) % 4294967296) / 4294967296.0)`;
