import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { ArrowBatcher, castingWrapper } from './arrow';
import type { BufferPool } from './buffers';
import type { PooledConnection } from './pool';
import { quoteLiteral } from './sql';
import { runArgs, type BoundParams } from './params';
import { removeQuietly } from './store';
import { spreadsheetSafeSql } from './spreadsheet';

export interface StreamOptions {
  signal?: AbortSignal;
  /** Rows per Arrow RecordBatch (default 65536). */
  batchRows?: number;
  /** Arrow output buffers come from here; the consumer gives each back once written (see BufferPool). */
  pool?: BufferPool;
  /**
   * CSV only. `exact` (the default): every value as it is stored, for programs. `safe`: for a person opening the
   * file in a spreadsheet, text that starts like a formula gets a leading apostrophe (spreadsheet.ts).
   */
  spreadsheet?: 'exact' | 'safe';
}

export function abortError(): Error {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  return e;
}

/** Borrows a connection whose running statement is interrupted when the signal fires; done() gives it back. */
async function borrow(acquire: () => Promise<PooledConnection>, signal?: AbortSignal) {
  if (signal?.aborted) throw abortError();
  const pooled = await acquire();
  const conn = pooled.connection;
  const stop = () => conn.interrupt();
  signal?.addEventListener('abort', stop, { once: true });
  return {
    conn,
    done() {
      signal?.removeEventListener('abort', stop);
      pooled.release();
    },
  };
}

/** After an abort, DuckDB's "INTERRUPT" error (or any other) surfaces as one AbortError. */
const asAbort = (e: unknown, signal?: AbortSignal) => (signal?.aborted ? abortError() : e);

async function describe(conn: DuckDBConnection, sql: string, params: BoundParams) {
  const prepared = await conn.prepare(sql);
  let names: string[] = [];
  let types: DuckDBType[] = [];
  try {
    for (let i = 0; i < prepared.columnCount; i++) {
      names.push(prepared.columnName(i));
      types.push(prepared.columnType(i));
    }
  } catch {
    // Result columns that depend on parameter values (e.g. VALUES lists of bound parameters) are only
    // known once bound: an empty run of the same statement names and types them.
    const empty = await conn.run(`SELECT * FROM (${sql}) LIMIT 0`, ...runArgs(params));
    names = empty.columnNames();
    types = empty.columnTypes();
  }
  if (params.values.length) prepared.bind(params.values, params.types as DuckDBType[]);
  return { prepared, names, types };
}

/** Arrow IPC stream of a SQL result, one RecordBatch per `batchRows` rows, read as the consumer pulls. */
export async function* arrowIpc(
  acquire: () => Promise<PooledConnection>,
  sql: string,
  params: BoundParams,
  opts: StreamOptions = {},
): AsyncGenerator<Uint8Array> {
  const { signal } = opts;
  const { conn, done } = await borrow(acquire, signal);
  try {
    let d = await describe(conn, sql, params);
    const wrapped = castingWrapper(d.names, d.types, sql);
    if (wrapped) d = await describe(conn, wrapped, params);
    const batcher = new ArrowBatcher(d.names, d.types, opts.batchRows ?? 65536, opts.pool);
    const result = await d.prepared.stream();
    let wroteBatch = false;
    // Ask for the next chunk before copying this one: DuckDB produces it on its own thread meanwhile.
    let next = result.fetchChunk();
    try {
      for (;;) {
        if (signal?.aborted) throw abortError();
        const chunk = await next;
        if (!chunk || chunk.rowCount === 0) break;
        next = result.fetchChunk();
        const bytes = batcher.push(chunk);
        if (bytes) {
          wroteBatch = true;
          for (const b of bytes) {
            if (signal?.aborted) throw abortError();
            yield b;
          }
        }
      }
    } finally {
      // A prefetch still in flight on early exit: let it settle (errors ignored) before the connection goes
      // back to the pool, so the next borrower never shares it with a running fetch.
      await next.catch(() => undefined);
    }
    if (batcher.pending > 0 || !wroteBatch) yield* batcher.flush();
    yield* batcher.end();
  } catch (e) {
    throw asAbort(e, signal);
  } finally {
    done();
  }
}

/**
 * The whole Arrow IPC stream of a small result, read on a connection the caller already holds (a hex tile's
 * entry encoded while its tileset is built: the build keeps one connection for all of its work).
 */
export async function arrowIpcOn(connection: DuckDBConnection, sql: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of arrowIpc(async () => ({ connection, release() {} }), sql, { values: [], types: [] })) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * CSV text of a SQL result: DuckDB's own COPY writes a temp file (faster than formatting in JS), which is then
 * streamed and removed. The spreadsheet-safe form is the same COPY of a select that neutralises text cells
 * and column names, so it stays in DuckDB too.
 */
export async function* csvText(
  acquire: () => Promise<PooledConnection>,
  tmpDir: string,
  sql: string,
  params: BoundParams,
  opts: StreamOptions = {},
): AsyncGenerator<Uint8Array> {
  const { signal } = opts;
  const file = path.join(tmpDir, `export-${randomUUID()}.csv`);
  try {
    const { conn, done } = await borrow(acquire, signal);
    try {
      let rows = sql;
      if (opts.spreadsheet === 'safe') {
        const { names, types } = await describe(conn, sql, params);
        rows = spreadsheetSafeSql(sql, names, types);
      }
      await conn.run(`COPY (${rows}) TO ${quoteLiteral(file)} (FORMAT csv, HEADER true)`, ...runArgs(params));
    } catch (e) {
      throw asAbort(e, signal);
    } finally {
      done();
    }
    const stream = createReadStream(file, { highWaterMark: 1 << 20 });
    try {
      for await (const buf of stream) {
        if (signal?.aborted) throw abortError();
        yield buf as Uint8Array;
      }
    } finally {
      stream.destroy();
    }
  } finally {
    await removeQuietly(file);
  }
}
