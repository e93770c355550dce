import fs from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';
import type { DriverTarget, ParamValue, WarehouseDriver } from '@studio/warehouses';

/** Reaches 127.0.0.1 only, as the server's rule does for a listed test host; anything else is refused. */
export const loopbackOnly = { check: async (host: string) => (host === '127.0.0.1' ? host : Promise.reject(new Error(`not allowed: ${host}`))) };

/** A driver's fetch, read back: its columns and row count, and each NDJSON row as an object. */
export function rowFetcher(driver: WarehouseDriver, dir: () => string) {
  return async (t: DriverTarget, sql: string, values: Record<string, ParamValue> = {}, signal?: AbortSignal) => {
    const file = path.join(dir(), `${Math.random().toString(36).slice(2)}.ndjson`);
    const answer = await driver.fetch(t, sql, values, file, signal);
    const rows = answer.format === 'csv' ? await csvRows(file, answer.columns.length) : (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string | null>);
    return { ...answer, rows };
  };
}

/** A COPY CSV file read as the server reads it (unquoted empty = NULL, quoted empty = empty text). */
async function csvRows(file: string, width: number): Promise<Record<string, string | null>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const struct = Array.from({ length: width }, (_x, k) => `c${k}: 'VARCHAR'`).join(', ');
    const r = await c.runAndReadAll(`SELECT * FROM read_csv('${file.replaceAll("'", "''")}', header = false, auto_detect = false, delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, columns = {${struct}})`);
    return r.getRowObjectsJS() as Record<string, string | null>[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/**
 * A scratch database on the test warehouse server for a file's tests, owned by its non-superuser role and
 * set up by `setup` (run as that role); dropped after. Answers its name and an admin URL to it.
 */
export function useScratchDatabase(prefix: string, setup: string) {
  const database = `${prefix}_${Math.random().toString(36).slice(2, 8)}`;
  const adminUrl = () => inject('warehouseServer').adminUrl;
  const admin = async (sql: string) => {
    const a = new pg.Client({ connectionString: adminUrl() });
    await a.connect();
    try {
      await a.query(sql);
    } finally {
      await a.end();
    }
  };
  beforeAll(async () => {
    await admin(`create database ${database} owner ${inject('warehouseServer').user}`);
    const c = new pg.Client({ connectionString: adminUrl().replace(/\/[^/]*$/, `/${database}`) });
    await c.connect();
    try {
      await c.query(`set role ${inject('warehouseServer').user}`);
      await c.query(setup);
    } finally {
      await c.end();
    }
  });
  afterAll(() => admin(`drop database if exists ${database} with (force)`));
  return { database, url: () => adminUrl().replace(/\/[^/]*$/, `/${database}`) };
}
