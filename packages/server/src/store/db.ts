import fs from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import type { Database } from './tables';
import { migrateToLatest } from './migrate';

export type Db = Kysely<Database>;

export interface CatalogStore {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/**
 * Opens the catalog: a real PostgreSQL when `databaseUrl` is set, otherwise PGlite embedded under
 * `dataDir/catalog` (`memory://` for tests). Migrations run before anything else touches it.
 */
export async function openCatalog(opts: { databaseUrl: string | null; dataDir: string; inMemory?: boolean }): Promise<CatalogStore> {
  let store: CatalogStore;
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    // PostgreSQL returns int8/numeric as strings; counts are normalised where they are read.
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client's error (a database restart, a dropped connection) must not crash the node: the
    // pool replaces the client and the next query reconnects.
    pool.on('error', (err) => console.warn(`catalog connection lost: ${err.message}`));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    store = { db, kind: 'postgres', close: () => db.destroy() };
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    let dir = 'memory://';
    if (!opts.inMemory) {
      dir = path.join(opts.dataDir, 'catalog');
      await fs.mkdir(dir, { recursive: true });
    }
    const pglite = await PGlite.create(dir);
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
    store = { db, kind: 'pglite', close: () => db.destroy() };
  }
  await migrateToLatest(store.db);
  return store;
}

/** PGlite answers count(*) as a number and pg as a string: one place turns both into numbers. */
export const toCount = (v: unknown): number => (v == null ? 0 : Number(v));

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
