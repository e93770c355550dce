import { randomBytes } from 'node:crypto';
import pg from 'pg';

const PG_URL = process.env.STUDIO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function onServer(sql: string): Promise<void> {
  const c = new pg.Client(PG_URL);
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A bench's catalog: the embedded default (databaseUrl null), or a new database on the local PostgreSQL,
 * dropped by `drop` after the bench.
 */
export async function benchCatalog(kind: 'pglite' | 'postgres'): Promise<{ databaseUrl: string | null; drop: () => Promise<void> }> {
  if (kind === 'pglite') return { databaseUrl: null, drop: async () => undefined };
  const name = `studio_bench_${randomBytes(4).toString('hex')}`;
  await onServer(`create database ${name}`);
  return { databaseUrl: PG_URL.replace(/\/[^/]*$/, `/${name}`), drop: () => onServer(`drop database if exists ${name} with (force)`) };
}
