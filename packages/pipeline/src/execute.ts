import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { bindable } from '@studio/engine';
import { StudioError } from '@studio/schema';
import { planSpatialJoinSql } from '@studio/spatial';
import type { Pool } from 'pg';
import { compilePipeline, type CompiledQuery, type DatasetResolver } from './compile/pipeline';
import type { TileResolver } from './compile/tiles';
import { forgetPrepared, preparedFor } from './prepared';

export type Row = Record<string, unknown>;

/** Engine values to plain JSON-ish JS: integers as numbers, timestamps as ISO strings. */
export function normalizeValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(normalizeValue);
  return v;
}

/** DuckDB error classes a pipeline's content can cause (unknown column, bad cast, ...): a 422, not a 500. */
const DUCK_USER_ERROR = /^(Binder|Conversion|Parser|Invalid Input|Catalog|Out of Range|Mismatch Type|Invalid) Error/;
/** PostgreSQL SQLSTATE classes 22 (data exception) and 42 (syntax error or access rule violation). */
const PG_USER_ERROR = /^(22|42)/;

const queryFailed = (e: unknown) => new StudioError(422, `The query failed: ${(e as Error).message}`);

/**
 * Runs a compiled query on DuckDB as a prepared statement with bound parameters. Text run once (it names a
 * file of its own) says `keepPrepared: false`, so it does not push kept statements out.
 */
export async function executeDuckDB(connection: DuckDBConnection, q: CompiledQuery, opts: { keepPrepared?: boolean } = {}): Promise<Row[]> {
  try {
    return await runDuckDB(connection, q, opts.keepPrepared ?? true);
  } catch (e) {
    if (e instanceof Error && DUCK_USER_ERROR.test(e.message)) throw queryFailed(e);
    throw e;
  }
}

/** Planned texts by compiled text: the plan depends on the text alone, and planning costs two DuckDB calls (~30-50 ms). */
const planned = new Map<string, string>();
const MAX_PLANNED = 200;

/**
 * The SQL DuckDB runs for a compiled query: a spatial step's `JOIN … ON ST_…()` rewritten by packages/spatial's
 * planner into a hash join on grid keys (the exact predicate kept on boundary cells), other SQL as it is.
 */
export async function duckdbSql(connection: DuckDBConnection, q: CompiledQuery): Promise<string> {
  if (!q.spatialJoins) return q.sql;
  const hit = planned.get(q.sql);
  if (hit !== undefined) return hit;
  const sql = await planSpatialJoinSql(connection, q.sql);
  if (planned.size >= MAX_PLANNED) planned.delete(planned.keys().next().value!);
  planned.set(q.sql, sql);
  return sql;
}

/** `keep`: the statement is kept on the connection for the next run of the same text (see prepared.ts). */
async function runDuckDB(connection: DuckDBConnection, q: CompiledQuery, keep: boolean): Promise<Row[]> {
  const bound = bindable(q.params);
  const sql = await duckdbSql(connection, q);
  const prepared = keep ? await preparedFor(connection, sql) : await connection.prepare(sql);
  try {
    if (bound.values.length) prepared.bind(bound.values, bound.types as DuckDBType[]);
    const reader = await prepared.runAndReadAll();
    return reader.getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, normalizeValue(v)])));
  } catch (e) {
    if (keep) forgetPrepared(connection, sql);
    throw e;
  } finally {
    if (!keep) prepared.destroySync();
  }
}

/** Runs a compiled query on PostgreSQL; int8/numeric come back as numbers, timestamps as ISO strings. */
export async function executePostgres(pool: Pool, q: CompiledQuery): Promise<Row[]> {
  try {
    const res = await pool.query({ text: q.sql, values: q.params, types: { getTypeParser: pgTypeParser } as never });
    return res.rows as Row[];
  } catch (e) {
    if (PG_USER_ERROR.test(String((e as { code?: unknown }).code ?? ''))) throw queryFailed(e);
    throw e;
  }
}

const identity = (s: string) => s;
function pgTypeParser(oid: number): (s: string) => unknown {
  switch (oid) {
    case 20: case 21: case 23: case 700: case 701: case 1700: return (s) => Number(s);
    case 16: return (s) => s === 't';
    case 1114: return (s) => new Date(`${s.replace(' ', 'T')}Z`).toISOString();
    case 1184: return (s) => new Date(s).toISOString();
    default: return identity;
  }
}

export type ExecuteTarget =
  | { engine: 'duckdb'; connection: DuckDBConnection }
  | { engine: 'postgres'; pool: Pool };

/** Validates, compiles for the target's dialect and runs a pipeline (tests, scripts, the server). */
export async function executePipeline(node: unknown, target: ExecuteTarget, resolveDataset: DatasetResolver, resolveTiles?: TileResolver): Promise<Row[]> {
  const q = compilePipeline(node, { dialect: target.engine, resolveDataset, ...(resolveTiles && { resolveTiles }) });
  return target.engine === 'duckdb' ? executeDuckDB(target.connection, q) : executePostgres(target.pool, q);
}

/** A DuckDB error a pipeline's content caused, as the 422 the caller should see; anything else unchanged. */
export const duckdbQueryError = (e: unknown): unknown => (e instanceof Error && DUCK_USER_ERROR.test(e.message) ? queryFailed(e) : e);
