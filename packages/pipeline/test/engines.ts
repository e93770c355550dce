import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import pg from 'pg';
import { executePipeline, registerH3Functions, type Row } from '../src/index';

export type Engine = 'duckdb' | 'postgres';
export type Table = { name: string; columns: Record<string, 'BIGINT' | 'DOUBLE' | 'VARCHAR' | 'TIMESTAMP'>; rows: Row[] };

const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** One DuckDB in-memory database and one throwaway PostgreSQL database, loaded with the same tables. */
export class Engines {
  duck!: DuckDBConnection;
  private duckInstance!: DuckDBInstance;
  pool!: pg.Pool;
  private dbName = `pipeline_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

  async start(tables: Table[]): Promise<void> {
    this.duckInstance = await DuckDBInstance.create(':memory:');
    this.duck = await this.duckInstance.connect();
    registerH3Functions(this.duck);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${this.dbName}`);
    await admin.end();
    this.pool = new pg.Pool({ connectionString: PG_URL.replace(/\/postgres$/, `/${this.dbName}`), max: 2 });
    for (const t of tables) {
      const cols = Object.entries(t.columns);
      const pgType = (ty: string) => (ty === 'DOUBLE' ? 'DOUBLE PRECISION' : ty === 'VARCHAR' ? 'TEXT' : ty);
      await this.duck.run(`CREATE TABLE "${t.name}" (${cols.map(([c, ty]) => `"${c}" ${ty}`).join(', ')})`);
      await this.pool.query(`CREATE TABLE "${t.name}" (${cols.map(([c, ty]) => `"${c}" ${pgType(ty)}`).join(', ')})`);
      for (const r of t.rows) {
        const vals = cols.map(([c, ty]) => (r[c] === undefined || r[c] === null ? null : ty === 'TIMESTAMP' ? String(r[c]).replace('T', ' ').replace('Z', '') : r[c]));
        const ph = (f: (i: number) => string) => cols.map(([, ty], i) => `CAST(${f(i)} AS ${pgType(ty)})`).join(', ');
        await this.pool.query(`INSERT INTO "${t.name}" VALUES (${ph((i) => `$${i + 1}`)})`, vals);
        await this.duck.run(`INSERT INTO "${t.name}" VALUES (${ph((i) => `$${i + 1}`).replace(/DOUBLE PRECISION/g, 'DOUBLE')})`, vals as never);
      }
    }
  }

  async stop(): Promise<void> {
    this.duck?.closeSync();
    this.duckInstance?.closeSync();
    await this.pool?.end();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`);
    await admin.end();
  }

  /** Datasets resolve to the test tables by name (the resolver is trusted server code). */
  async run(engine: Engine, pipeline: unknown): Promise<Row[]> {
    const resolve = (uuid: string) => ({ relationSql: `"${uuid.replace(/"/g, '""')}"` });
    const target = engine === 'duckdb' ? { engine, connection: this.duck } as const : { engine, pool: this.pool } as const;
    return executePipeline(pipeline, target, resolve);
  }
}

/** Rounds doubles so both engines' float noise compares equal. */
export const canon = (rows: Row[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v])));

const sortKeys = (r: Row) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
/** Rows as a sorted list of key-sorted JSON: compares results whose row order is unspecified. */
export const unordered = (rows: Row[]) => canon(rows).map(sortKeys).sort();
/** Same, keeping the row order (for sorted results). */
export const ordered = (rows: Row[]) => canon(rows).map(sortKeys);
