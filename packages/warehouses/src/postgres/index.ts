import { createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import pg from 'pg';
import { badInput, bestEffort } from '@studio/schema';
import { cancelled, driverError, ndjsonRow, tooManyRows, type BrowseItem, type FetchedColumn, type FetchedResult, type WarehouseDriver } from '../driver';
import { bindStatement, positionalParameters } from '../parameters';
import { connected, pgTarget, retire, session, type PgTarget } from './sessions';
import { arrowPlan } from './copy-arrow';
import { TextCopyToArrow, textCopySql } from './text-arrow';
import { CopyOutToArrow } from './copy-out';

/**
 * Push-down to a PostgreSQL warehouse the user already runs, and to Amazon Redshift through the same wire
 * protocol: connection tests, information_schema browsing, and running the user's own SQL on their own
 * database with their own credentials. The SQL text of a query is theirs for their database (that is what
 * push-down means), so it is sent as they wrote it, but only inside a READ ONLY transaction, with a
 * statement timeout, as one statement (extended protocol), and their `$name` parameters are bound by value,
 * never pasted.
 */

const FETCH_ROWS = 2000;

/** DuckDB type of a PostgreSQL type oid; anything else stays text. */
const DUCK_TYPE: Record<number, string> = {
  16: 'BOOLEAN', 20: 'BIGINT', 21: 'SMALLINT', 23: 'INTEGER', 26: 'BIGINT', 700: 'FLOAT', 701: 'DOUBLE', 1700: 'DOUBLE',
  1082: 'DATE', 1083: 'TIME', 1114: 'TIMESTAMP', 1184: 'TIMESTAMPTZ', 114: 'JSON', 3802: 'JSON', 2950: 'UUID',
};

/** Counts CSV records in a byte stream (newlines outside quotes), to hold the row limit while streaming. */
class CsvRecords {
  count = 0;
  private quoted = false;
  feed(chunk: Buffer): void {
    // Most chunks have no quote at all: their newlines are found by the native search, not byte by byte.
    if (!this.quoted && chunk.indexOf(0x22) < 0) {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) this.count++;
      return;
    }
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x22) this.quoted = !this.quoted;
      else if (b === 0x0a && !this.quoted) this.count++;
    }
  }
}

/** The query's columns (a plan without rows), then its rows through COPY … TO STDOUT (FORMAT csv) into `file`. */
async function copyCsv(client: pg.ClientBase, sql: string, file: string, maxRows: number, signal?: AbortSignal): Promise<FetchedResult> {
  let described: pg.QueryArrayResult;
  try {
    described = await client.query({ text: `select * from (${sql}) as studio_columns limit 0`, rowMode: 'array' });
  } catch (e) {
    throw driverError(e);
  }
  const columns = columnsOf(described.fields);
  if (!columns.length) throw badInput('The query answers no columns');
  const records = new CsvRecords();
  const source = client.query(copyTo(`COPY (${sql}) TO STDOUT WITH (FORMAT csv)`));
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      records.feed(chunk);
      done(records.count > maxRows ? tooManyRows(maxRows) : signal?.aborted ? cancelled() : null, chunk);
    },
  });
  try {
    await pipeline(source, limit, createWriteStream(file));
  } catch (e) {
    throw signal?.aborted ? cancelled() : driverError(e);
  }
  return { columns, rowCount: records.count, format: 'csv' };
}

/** The columns of an answer, each with the DuckDB type its text is cast to. */
const columnsOf = (fields: readonly { name: string; dataTypeID: number }[]): FetchedColumn[] => fields.map((f) => ({ name: f.name, duckType: DUCK_TYPE[f.dataTypeID] ?? 'VARCHAR' }));

/** Answers PostgreSQL expects to be at most this many rows run whole rather than through a cursor. */
const WHOLE_RESULT_ROWS = 50_000;

/** The planner's estimate of a statement's rows (EXPLAIN; nothing runs). */
async function estimatedRows(client: pg.ClientBase, sql: string, bound: unknown[]): Promise<number> {
  try {
    const r = await client.query({ text: `explain (format json) ${sql}`, values: bound, queryMode: 'extended' } as pg.QueryConfig);
    // Sessions read every value as text (sessions.ts): the plan is JSON text.
    const text = r.rows[0]?.['QUERY PLAN'];
    const plan = (typeof text === 'string' ? (JSON.parse(text) as { Plan?: { 'Plan Rows'?: number } }[]) : undefined)?.[0]?.Plan;
    return Number(plan?.['Plan Rows'] ?? Infinity);
  } catch (e) {
    throw driverError(e);
  }
}

/** The rows of a parametrised statement in one answer (parallel plans allowed), at most the row limit. */
async function wholeRows(client: pg.ClientBase, sql: string, bound: unknown[], out: FileHandle, maxRows: number): Promise<{ columns: FetchedColumn[]; rowCount: number }> {
  let r: pg.QueryArrayResult;
  try {
    r = await client.query({ text: `select * from (${sql}) as studio_whole limit ${maxRows + 1}`, values: bound, rowMode: 'array', queryMode: 'extended' } as pg.QueryArrayConfig);
  } catch (e) {
    throw driverError(e);
  }
  if (r.rows.length > maxRows) throw tooManyRows(maxRows);
  if (r.rows.length) await out.write(`${r.rows.map(ndjsonRow).join('\n')}\n`);
  return { columns: columnsOf(r.fields), rowCount: r.rows.length };
}

/** The rows of a parametrised statement through a cursor, FETCH_ROWS at a time. */
async function cursorRows(client: pg.ClientBase, sql: string, bound: unknown[], out: FileHandle, maxRows: number, signal?: AbortSignal): Promise<{ columns: FetchedColumn[]; rowCount: number }> {
  try {
    // Push-down: the user's own query, on their own database, with their own credentials.
    await client.query({ text: `declare studio_result no scroll cursor for ${sql}`, values: bound, queryMode: 'extended' } as pg.QueryConfig);
  } catch (e) {
    throw driverError(e);
  }
  let columns: FetchedColumn[] | null = null;
  let rowCount = 0;
  for (;;) {
    if (signal?.aborted) throw cancelled();
    let r: pg.QueryArrayResult;
    try {
      r = await client.query({ text: `fetch ${FETCH_ROWS} from studio_result`, rowMode: 'array' });
    } catch (e) {
      throw driverError(e);
    }
    columns ??= columnsOf(r.fields);
    if (!r.rows.length) break;
    rowCount += r.rows.length;
    if (rowCount > maxRows) throw tooManyRows(maxRows);
    await out.write(`${r.rows.map(ndjsonRow).join('\n')}\n`);
  }
  return { columns: columns ?? [], rowCount };
}

/**
 * Runs `fn` on a session in a READ ONLY transaction with the statement timeout; an abort cancels the
 * statement on the server (a closed socket alone is only noticed when PostgreSQL next writes) and the
 * session is not kept.
 */
function readOnlyRun<T>(t: PgTarget, signal: AbortSignal | undefined, fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  return session(t, async (client) => {
    const cancel = () => {
      retire(client);
      const pid = (client as unknown as { processID?: number }).processID;
      if (pid) void bestEffort(connected(t, (c) => c.query('select pg_cancel_backend($1)', [pid])), `Cancelling PostgreSQL backend ${pid}`);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      await client.query('begin read only');
      // ISO dates (DuckDB and the Arrow reader read them) and floats written to round-trip (PostgreSQL < 12
      // wrote 6 and 15 digits by default).
      await client.query("select set_config('statement_timeout', $1, true), set_config('datestyle', 'ISO, MDY', true), set_config('extra_float_digits', '3', true)", [String(t.target.settings.statementTimeoutMs)]);
      return await fn(client);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  });
}

/**
 * The rows of `sql` as Arrow IPC through COPY (text format, read in text-arrow.ts), handed to `sink` as they arrive; null when a
 * column is one the text path types (see copy-arrow.ts). A COPY cut short closes its session (as copyCsv).
 */
async function copyArrow(client: pg.ClientBase, sql: string, sink: (bytes: Uint8Array) => Promise<void>, maxRows: number, signal?: AbortSignal): Promise<{ rowCount: number } | null> {
  let described: pg.QueryArrayResult;
  try {
    described = await client.query({ text: `select * from (${sql}) as studio_columns limit 0`, rowMode: 'array' });
  } catch (e) {
    throw driverError(e);
  }
  if (!described.fields.length) throw badInput('The query answers no columns');
  const plans = arrowPlan(described.fields);
  if (!plans) return null;
  const arrow = new TextCopyToArrow(plans);
  const source = client.query(new CopyOutToArrow(textCopySql(sql, plans), arrow));
  try {
    try {
      for await (const bytes of source) {
        if (signal?.aborted) throw cancelled();
        await sink(bytes as Uint8Array);
        if (arrow.rows > maxRows) throw tooManyRows(maxRows);
      }
    } catch (e) {
      throw signal?.aborted ? cancelled() : driverError(e);
    }
  } catch (e) {
    source.destroy();
    retire(client);
    throw e;
  }
  return { rowCount: arrow.rows };
}

export const postgresDriver: WarehouseDriver = {
  async test(target) {
    const t = pgTarget(target);
    return connected(t, async (c) => {
      // Redshift answers `show server_version` with the PostgreSQL 8.0 it descends from; version() names Redshift's own.
      const r = await c.query<{ server_version: string }>(t.flavor === 'redshift' ? 'select version() as server_version' : 'show server_version');
      return { ok: true as const, serverVersion: String(r.rows[0]?.server_version ?? '') };
    });
  },

  async browse(target, [schema, table]) {
    return session(pgTarget(target), async (c): Promise<BrowseItem[]> => {
      try {
        if (schema === undefined) {
          const r = await c.query(
            `select schema_name as name from information_schema.schemata
             where schema_name not in ('pg_catalog', 'information_schema') and schema_name not like 'pg\\_toast%' and schema_name not like 'pg\\_temp%'
             order by 1`,
          );
          return r.rows.map((row) => ({ name: row.name, type: 'schema' }));
        }
        if (table === undefined) {
          const r = await c.query('select table_name as name, table_type from information_schema.tables where table_schema = $1 order by 1', [schema]);
          return r.rows.map((row) => ({ name: row.name, type: row.table_type === 'VIEW' ? 'view' : 'table' }));
        }
        const r = await c.query(
          `select column_name as name, data_type, is_nullable from information_schema.columns
           where table_schema = $1 and table_name = $2 order by ordinal_position`,
          [schema, table],
        );
        return r.rows.map((row) => ({ name: row.name, type: 'column', dataType: row.data_type, nullable: row.is_nullable === 'YES' }));
      } catch (e) {
        throw driverError(e);
      }
    });
  },

  parameterNames: (sql) => positionalParameters(sql).names,

  async fetch(target, userSql, values, file, signal) {
    const t = pgTarget(target);
    const { maxRows } = target.settings;
    const { sql: positional, bound } = bindStatement(userSql, values, (n) => `$${n}`);
    return readOnlyRun(t, signal, async (client) => {
      // Without parameters the rows come as COPY … TO STDOUT streams them (CSV, about ten times faster than
      // a cursor's text rows); COPY binds no parameters, so those queries keep the cursor, as Redshift,
      // whose COPY only loads tables.
      if (!bound.length && t.flavor !== 'redshift') {
        try {
          return await copyCsv(client, positional, file, maxRows, signal);
        } catch (e) {
          // A COPY cut short (row limit, cancel, a full disk) leaves the session mid-protocol: the server goes
          // on sending rows nobody reads, and a next statement would wait behind them. It is closed, not reset.
          retire(client);
          throw e;
        }
      }
      // A cursor never runs in parallel (PostgreSQL plans no parallel query for what may be suspended): an
      // answer PostgreSQL expects to be small is run whole, bounded by the row limit; Redshift keeps the cursor.
      const whole = t.flavor !== 'redshift' && (await estimatedRows(client, positional, bound)) <= WHOLE_RESULT_ROWS;
      const out = await open(file, 'w');
      try {
        const answer = whole ? await wholeRows(client, positional, bound, out, maxRows) : await cursorRows(client, positional, bound, out, maxRows, signal);
        await bestEffort(client.query('rollback'), 'Ending a read-only PostgreSQL transaction');
        if (!answer.columns.length) throw badInput('The query answers no columns');
        return answer;
      } finally {
        await out.close();
      }
    });
  },

  async fetchArrow(target, userSql, values, sink, signal) {
    const t = pgTarget(target);
    // COPY binds no parameters, and Redshift's COPY only loads tables: those take fetch's path.
    const { sql, bound } = bindStatement(userSql, values, (n) => `$${n}`);
    if (bound.length || t.flavor === 'redshift') return null;
    return readOnlyRun(t, signal, (client) => copyArrow(client, sql, sink, target.settings.maxRows, signal));
  },
};
