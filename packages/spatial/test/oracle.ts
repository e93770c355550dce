import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { registerSpatialFunctions } from '../src/index';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The two sides of every spatial test: DuckDB with our functions registered, and PostGIS (the oracle) in a database
 * of the local cluster made for the run and dropped after it. `npm test` installs PostGIS when it is missing
 * (scripts/test.mjs), so nothing here is skipped.
 */
export class Oracle {
  duck!: DuckDBConnection;
  private instance!: DuckDBInstance;
  pool!: pg.Pool;
  private readonly dbName = `spatial_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

  async start(): Promise<void> {
    this.instance = await DuckDBInstance.create(':memory:');
    this.duck = await this.instance.connect();
    await registerSpatialFunctions(this.duck);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${this.dbName}`);
    await admin.end();
    this.pool = new pg.Pool({ connectionString: PG_URL.replace(/\/postgres$/, `/${this.dbName}`), max: 2 });
    await this.pool.query('CREATE EXTENSION postgis');
  }

  async stop(): Promise<void> {
    this.duck?.closeSync();
    this.instance?.closeSync();
    await this.pool?.end();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`);
    await admin.end();
  }

  /** The first column of the first row of our answer (BLOBs as Uint8Array). */
  async ours(sql: string, params: unknown[] = []): Promise<unknown> {
    const r = await this.duck.runAndReadAll(sql, params as never);
    const v = r.getRowsJS()[0]?.[0];
    return v;
  }

  async postgis(sql: string, params: unknown[] = []): Promise<unknown> {
    const r = await this.pool.query({ text: sql, values: params, rowMode: 'array' });
    return (r.rows[0] as unknown[] | undefined)?.[0];
  }
}

/** Relative difference, 0 when both are 0. */
export const relDiff = (a: number, b: number) => (a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b)));
