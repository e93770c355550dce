import { open } from 'node:fs/promises';
import { StudioError, type ConnectionCredentials, type ConnectionType } from '@studio/schema';

/**
 * The one interface every warehouse driver answers (catalog §1 connections). The server keeps one path
 * for all of them: a driver writes the rows of a query as NDJSON objects keyed c0..cN (each value the
 * warehouse's own text, or null) and names the DuckDB type of each column; DuckDB types them once.
 */

/** Decides, right before connecting, which address a host may be reached at (the server's NetworkReach). */
export interface Reach {
  check(host: string, port: number): Promise<string>;
}

/** Limits every driver applies; the server reads them from its configuration. */
export interface DriverSettings {
  /** An unreachable host answers within this, never a hang. Default 5000. */
  connectTimeoutMs: number;
  /** A query running longer is cancelled on the warehouse too. Default 120000. */
  statementTimeoutMs: number;
  /** Rows a result may hold; past it the query fails with a hint to aggregate or LIMIT. Default 2000000. */
  maxRows: number;
  /** Folders whose DuckDB files a `motherduck` connection may open (local-file path). Default none. */
  duckdbFolders: string[];
}

export const DEFAULT_DRIVER_SETTINGS: DriverSettings = {
  connectTimeoutMs: 5000,
  statementTimeoutMs: 120_000,
  maxRows: 2_000_000,
  duckdbFolders: [],
};

/** What a driver is handed for one call: the stored settings of the connection, its opened secrets. */
export interface DriverTarget {
  type: ConnectionType;
  /** The connection's settings as saved (checked again by the driver with its kind's schema). */
  config: Record<string, unknown>;
  credentials: ConnectionCredentials | null;
  reach: Reach;
  settings: DriverSettings;
}

export interface BrowseItem {
  name: string;
  type: 'schema' | 'table' | 'view' | 'column';
  dataType?: string;
  nullable?: boolean;
}

export interface FetchedColumn {
  name: string;
  /** The DuckDB type the column's text is cast to. */
  duckType: string;
}

export interface FetchedResult {
  columns: FetchedColumn[];
  rowCount: number;
  /** How `file` holds the rows: NDJSON objects c0..cN (default), or CSV without a header (PostgreSQL's COPY). */
  format?: 'ndjson' | 'csv';
}

export type ParamValue = string | number | boolean | null | (string | number | boolean | null)[];

export interface WarehouseDriver {
  /** Connects and answers the warehouse's own version string. */
  test(t: DriverTarget): Promise<{ ok: true; serverVersion: string }>;
  /** Schemas (path []), tables of a schema ([schema]) or columns of a table ([schema, table]). */
  browse(t: DriverTarget, path: string[]): Promise<BrowseItem[]>;
  /** The `$name` / `{{name}}` parameters of the user's SQL, in the order they are bound. */
  parameterNames(sql: string): string[];
  /**
   * Runs the user's SELECT on their warehouse (read only where the warehouse has such a mode) and writes
   * its rows to `file` as NDJSON objects keyed c0..cN; an abort cancels the query on the warehouse.
   */
  fetch(t: DriverTarget, sql: string, values: Record<string, ParamValue>, file: string, signal?: AbortSignal): Promise<FetchedResult>;
  /**
   * Drivers whose warehouse streams rows in a form read straight into Arrow (PostgreSQL's COPY):
   * runs the SELECT and hands `sink` the Arrow IPC stream's bytes as rows arrive (awaiting it holds the
   * warehouse back), answering the row count; answers null before sending anything when this statement
   * cannot take that path (parameters, a column type only `fetch` types), and the caller uses `fetch`.
   */
  fetchArrow?(t: DriverTarget, sql: string, values: Record<string, ParamValue>, sink: (bytes: Uint8Array) => Promise<void>, signal?: AbortSignal): Promise<{ rowCount: number } | null>;
}

/** The driver's message, as a 422 the user can act on. */
export function driverError(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  const err = e as { message?: string; code?: string; errors?: { message?: string }[] };
  const message = err?.message || err?.errors?.map((x) => x.message).filter(Boolean).join('; ') || err?.code || String(e);
  return new StudioError(422, `${prefix}${message}`);
}

export const cancelled = () => new StudioError(499, 'The query was cancelled');

export const tooManyRows = (max: number) => new StudioError(422, `The result has more than ${max} rows`, 'Aggregate in the query or add a LIMIT');

/** One NDJSON line of a row: values as text (JSON objects and arrays as their JSON), null as null. */
export function ndjsonRow(row: readonly unknown[]): string {
  return JSON.stringify(
    Object.fromEntries(row.map((v, k) => [`c${k}`, v === null || v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : String(v)])),
  );
}

/** Rejects with `cancelled()` when `signal` fires first; the loser keeps running and is cleaned up by its owner. */
export function raceAbort<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Writes the rows a run hands over to `file` as NDJSON (c0..cN); a result without columns is refused
 * (a statement that answers nothing has no place in a dataset).
 */
export async function writeNdjson(file: string, run: (write: (rows: readonly (readonly unknown[])[]) => Promise<void>) => Promise<{ columns: FetchedColumn[]; rowCount: number }>) {
  const out = await open(file, 'w');
  try {
    const answer = await run(async (rows) => void (await out.write(`${rows.map(ndjsonRow).join('\n')}\n`)));
    if (!answer.columns.length) throw new StudioError(422, 'The query answers no columns');
    return answer;
  } finally {
    await out.close();
  }
}
