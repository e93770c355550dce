import fs from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import type { JobDatabase } from '@studio/jobs';
import type { Database } from './tables';
import { migrateToLatest } from './migrate';

export type Db = Kysely<Database>;

export interface CatalogStore {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Where background jobs queue: the same database, so every node sharing the catalog shares the jobs. */
  jobDatabase: JobDatabase;
  close(): Promise<void>;
}

/**
 * Opens the catalog: a real PostgreSQL when `databaseUrl` is set, otherwise PGlite embedded under
 * `dataDir/catalog` (`memory://` for tests). Migrations run before anything else touches it.
 */
export async function openCatalog(opts: { databaseUrl: string | null; dataDir: string; inMemory?: boolean; /** PGlite's folder when not `dataDir/catalog` (a restore checks one beside it). */ folder?: string }): Promise<CatalogStore> {
  let store: CatalogStore;
  /** The first in-memory catalog of the process, kept as the image the next start from (below). */
  let imageSource: import('@electric-sql/pglite').PGlite | null = null;
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    // PostgreSQL returns int8/numeric as strings; counts are normalised where they are read.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client's error (a database restart, a dropped connection) must not crash the node: the
    // pool replaces the client and the next query reconnects.
    pool.on('error', (err) => console.warn(`catalog connection lost: ${err.message}`));
    pool.on('connect', preparePerConnection);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    store = { db, kind: 'postgres', jobDatabase: { kind: 'postgres', connectionString: opts.databaseUrl }, close: () => db.destroy() };
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    let dir = 'memory://';
    if (!opts.inMemory) {
      dir = opts.folder ?? path.join(opts.dataDir, 'catalog');
      await fs.mkdir(dir, { recursive: true });
      await initCatalogDir(dir);
    }
    // PostgreSQL's default 128 MB of shared buffers live in PGlite's WASM heap, resident once touched; the
    // catalog is small and its files sit in the OS page cache anyway (measured: ~340 -> ~220 MB RSS on open).
    const options = { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] };
    const image = opts.inMemory ? memoryImage : null;
    const pglite = image ? await PGlite.create(dir, { ...options, loadDataDir: await image }) : await PGlite.create(dir, options);
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
    store = { db, kind: 'pglite', jobDatabase: { kind: 'pglite', pglite }, close: () => db.destroy() };
    if (opts.inMemory && !image) imageSource = pglite;
  }
  await migrateToLatest(store.db);
  if (imageSource) {
    // Taken before the caller writes anything: the image is the empty, migrated catalog.
    memoryImage = imageSource.dumpDataDir('none').then((dump) => dump as Blob);
    await memoryImage.catch(() => (memoryImage = null));
  }
  return store;
}

/**
 * Every in-memory catalog starts alike, empty and migrated, so the first one in a process is kept as an image
 * and the next start from it: PGlite's initdb and the migrations cost ~3 s of CPU a catalog, loading the
 * image ~0.8 s (measured 2026-11-27). In-memory catalogs are the API tests' (one or more per test file).
 */
let memoryImage: Promise<Blob> | null = null;

/**
 * Creates a new PGlite catalog folder in a short-lived child process: initdb leaves 100-300 MB of WASM
 * heap resident in the process that runs it, which the server would otherwise carry for its lifetime.
 */
async function initCatalogDir(dir: string): Promise<void> {
  if (await fs.stat(path.join(dir, 'PG_VERSION')).then(() => true, () => false)) return;
  const module = import.meta.resolve('@electric-sql/pglite');
  const script = `const { PGlite } = await import(${JSON.stringify(module)}); const db = await PGlite.create(${JSON.stringify(dir)}); await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
}

/**
 * Turns every parameterized catalog query into a named prepared statement on its connection, so
 * PostgreSQL plans each query shape once per connection instead of on every call (planning cost more
 * than running the record list). Names are a hash of the SQL text; the set is bounded by the number
 * of query shapes the server has.
 */
function preparePerConnection(client: import('pg').PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(text);
      return query({ name, text, values }, ...rest);
    }
    return query(text, values, ...rest);
  };
}

/** Statement names by SQL text, hashed once per query shape rather than on every query (SHA-1 of a 2 KB list query showed in its profile). */
const statementNames = new Map<string, string>();
const STATEMENT_NAMES_KEPT = 5_000;
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `k${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    // Query shapes are bounded (an IN list's length makes a shape): past the bound the names are computed again.
    if (statementNames.size >= STATEMENT_NAMES_KEPT) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

/** PGlite answers count(*) as a number and pg as a string: one place turns both into numbers. */
export const toCount = (v: unknown): number => (v == null ? 0 : Number(v));

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
