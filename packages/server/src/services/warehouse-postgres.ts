import { open } from 'node:fs/promises';
import { isIP } from 'node:net';
import pg from 'pg';
import type { NetworkReach } from './network-reach';
import { DRIVER_CONNECTION_TYPES, StudioError, badInput } from '@studio/schema';

/**
 * Push-down to a PostgreSQL warehouse the user already runs: connection tests, information_schema
 * browsing, and running the user's own SQL on their own database with their own credentials. The SQL
 * text of a query is theirs for their database (that is what push-down means), so it is sent as they
 * wrote it, but only inside a READ ONLY transaction, with a statement timeout, as one statement
 * (extended protocol), and their `$name` parameters are bound by value, never pasted.
 */

/**
 * Warehouses that speak PostgreSQL's wire protocol, driven by `pg`: PostgreSQL itself and Amazon Redshift
 * (a PostgreSQL 8.0 dialect: no pg_read_server_files roles, its own version string).
 */
export const PG_WIRE_TYPES = DRIVER_CONNECTION_TYPES;
export type PgWireType = (typeof PG_WIRE_TYPES)[number];
export const isPgWireType = (t: string): t is PgWireType => (PG_WIRE_TYPES as readonly string[]).includes(t);

export interface PostgresTarget {
  /** Which of the wire-compatible warehouses this is (default postgres). */
  flavor?: PgWireType;
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: boolean;
  password?: string;
  /** Decides, right before connecting, which address `host` may be reached at. */
  reach: NetworkReach;
}

export const CONNECT_TIMEOUT_MS = 5000;
export const STATEMENT_TIMEOUT_MS = Number(process.env.STUDIO_WAREHOUSE_STATEMENT_TIMEOUT_MS ?? 120_000);
/** Rows a push-down result may hold; past it the query fails with a hint to aggregate or LIMIT. */
export const MAX_WAREHOUSE_ROWS = Number(process.env.STUDIO_WAREHOUSE_MAX_ROWS ?? 2_000_000);
const FETCH_ROWS = 2000;

/** The target of a stored connection's config (validated by CONNECTION_CONFIGS.postgres on save). */
export function postgresTarget(config: Record<string, unknown>, password: string | undefined, reach: NetworkReach, flavor: PgWireType = 'postgres'): PostgresTarget {
  const host = config.host;
  const database = config.database;
  const user = config.user;
  if (typeof host !== 'string' || typeof database !== 'string' || typeof user !== 'string') throw badInput('Could not parse data connection');
  const defaultPort = flavor === 'redshift' ? 5439 : 5432;
  return { flavor, host, port: Number(config.port ?? defaultPort) || defaultPort, database, user, ssl: config.ssl !== false, password, reach };
}

/** Every value as PostgreSQL's own text: typing happens once, in DuckDB (see columnsOf). */
const asText = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

function clientFor(t: PostgresTarget, address: string): pg.Client {
  return new pg.Client({
    // The checked address, not the name: a second DNS answer must not lead somewhere else.
    host: address,
    port: t.port,
    database: t.database,
    user: t.user,
    password: t.password,
    ssl: t.ssl ? { rejectUnauthorized: true, ...(isIP(t.host) ? {} : { servername: t.host }) } : false,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'studio',
    types: asText,
  });
}

/** The driver's message, as a 422 the user can act on. */
export function driverError(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  const err = e as { message?: string; code?: string; errors?: { message?: string }[] };
  const message = err?.message || err?.errors?.map((x) => x.message).filter(Boolean).join('; ') || err?.code || String(e);
  return new StudioError(422, `${prefix}${message}`);
}

/**
 * A role that can read or write the server's files or run programs on it (superusers, members of
 * pg_read_server_files, pg_write_server_files or pg_execute_server_program) would turn a data connection
 * into a way onto the database's machine: such sessions are refused before any user query.
 */
const PRIVILEGED_ROLE = `select r.rolsuper
    or pg_has_role(current_user, 'pg_read_server_files', 'member')
    or pg_has_role(current_user, 'pg_write_server_files', 'member')
    or pg_has_role(current_user, 'pg_execute_server_program', 'member') as privileged
  from pg_roles r where r.rolname = current_user`;

/** Redshift has no server-file roles; a superuser is what it refuses (pg_user exists in both). */
const REDSHIFT_SUPERUSER = `select usesuper as privileged from pg_user where usename = current_user`;

async function connected<T>(t: PostgresTarget, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const address = await t.reach.check(t.host, t.port);
  const client = clientFor(t, address);
  // A broken socket after connect surfaces as an 'error' event; without a listener it would crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw driverError(e, 'Could not connect: ');
  }
  try {
    const role = await client.query<{ privileged: string }>(t.flavor === 'redshift' ? REDSHIFT_SUPERUSER : PRIVILEGED_ROLE).catch((e: unknown) => {
      throw driverError(e, 'Could not check the role of this connection: ');
    });
    // Values arrive as PostgreSQL's text (asText): 'f' is the one answer that lets the session through.
    if (role.rows[0]?.privileged !== 'f') {
      throw new StudioError(422, `The role ${t.user} may read the server's files or run programs on it (a superuser, or a member of pg_read_server_files, pg_write_server_files or pg_execute_server_program): connect with a role without those rights`);
    }
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function testPostgres(t: PostgresTarget): Promise<{ ok: true; serverVersion: string }> {
  return connected(t, async (c) => {
    // Redshift answers `show server_version` with the PostgreSQL 8.0 it descends from; version() names Redshift's own.
    const r = await c.query<{ server_version: string }>(t.flavor === 'redshift' ? 'select version() as server_version' : 'show server_version');
    return { ok: true, serverVersion: String(r.rows[0]?.server_version ?? '') };
  });
}

/** Schemas; tables of a schema; or columns of schema/table; from information_schema, bound parameters only. */
export async function browsePostgres(t: PostgresTarget, schema?: string, table?: string): Promise<Record<string, unknown>[]> {
  return connected(t, async (c) => {
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
}

/**
 * `$name` parameters of the user's PostgreSQL text as positional `$1..$n` (what the wire protocol binds),
 * skipping string literals, quoted identifiers, dollar-quoted bodies and comments. Answers the text and
 * the names in position order.
 */
export function positionalParameters(text: string): { sql: string; names: string[] } {
  const names: string[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const rest = text.slice(i);
    let m: RegExpMatchArray | null;
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === ch) {
          if (text[j + 1] === ch) j += 2;
          else break;
        } else j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (rest.startsWith('--')) {
      const j = text.indexOf('\n', i);
      const end = j < 0 ? text.length : j;
      out += text.slice(i, end);
      i = end;
    } else if (rest.startsWith('/*')) {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? text.length : j + 2;
      out += text.slice(i, end);
      i = end;
    } else if ((m = rest.match(/^\$([A-Za-z_]\w*)?\$/)) && !/\w/.test(text[i - 1] ?? '')) {
      // $tag$ … $tag$ dollar quoting
      const tag = m[0];
      const j = text.indexOf(tag, i + tag.length);
      const end = j < 0 ? text.length : j + tag.length;
      out += text.slice(i, end);
      i = end;
    } else if ((m = rest.match(/^\{\{\s*([A-Za-z_]\w*)\s*\}\}/)) || ((m = rest.match(/^\$([A-Za-z_]\w*)/)) && !/\w/.test(text[i - 1] ?? ''))) {
      // $name, or {{name}} as query templates write it: the same parameter, bound once.
      let k = names.indexOf(m[1]!);
      if (k < 0) k = names.push(m[1]!) - 1;
      out += `$${k + 1}`;
      i += m[0].length;
    } else if ((m = rest.match(/^\$\d+/)) && !/\w/.test(text[i - 1] ?? '')) {
      throw badInput('Use named parameters ($name), not positional ones');
    } else {
      out += ch;
      i++;
    }
  }
  return { sql: out, names };
}

/** DuckDB type of a PostgreSQL type oid; anything else stays text. */
const DUCK_TYPE: Record<number, string> = {
  16: 'BOOLEAN', 20: 'BIGINT', 21: 'SMALLINT', 23: 'INTEGER', 26: 'BIGINT', 700: 'FLOAT', 701: 'DOUBLE', 1700: 'DOUBLE',
  1082: 'DATE', 1083: 'TIME', 1114: 'TIMESTAMP', 1184: 'TIMESTAMPTZ', 114: 'JSON', 3802: 'JSON', 2950: 'UUID',
};

export interface FetchedColumn {
  name: string;
  duckType: string;
}

/**
 * Runs the user's SELECT on their warehouse and writes its rows to `file` as NDJSON objects keyed c0..cN
 * (every value PostgreSQL text or null); answers the column names and the DuckDB types to cast them to.
 */
export async function fetchPostgres(
  t: PostgresTarget,
  userSql: string,
  values: Record<string, unknown>,
  file: string,
  signal?: AbortSignal,
): Promise<{ columns: FetchedColumn[]; rowCount: number }> {
  const { sql: positional, names } = positionalParameters(userSql.replace(/[\s;]+$/, ''));
  const missing = names.filter((n) => !(n in values));
  if (missing.length) throw badInput(`Missing value for parameter $${missing[0]}`);
  const bound = names.map((n) => values[n]);
  return connected(t, async (client) => {
    // Cancel on the server (a closed socket alone is only noticed when PostgreSQL next writes).
    const cancel = () => {
      const pid = (client as unknown as { processID?: number }).processID;
      if (pid) void connected(t, (c) => c.query('select pg_cancel_backend($1)', [pid])).catch(() => undefined);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    const out = await open(file, 'w');
    try {
      await client.query('begin read only');
      await client.query("select set_config('statement_timeout', $1, true)", [String(STATEMENT_TIMEOUT_MS)]);
      try {
        // Push-down: the user's own query, on their own database, with their own credentials.
        await client.query({ text: `declare studio_result no scroll cursor for ${positional}`, values: bound, queryMode: 'extended' } as pg.QueryConfig);
      } catch (e) {
        throw driverError(e);
      }
      let columns: FetchedColumn[] | null = null;
      let rowCount = 0;
      for (;;) {
        if (signal?.aborted) throw new StudioError(499, 'The query was cancelled');
        let r: pg.QueryArrayResult;
        try {
          r = await client.query({ text: `fetch ${FETCH_ROWS} from studio_result`, rowMode: 'array' });
        } catch (e) {
          throw driverError(e);
        }
        columns ??= r.fields.map((f) => ({ name: f.name, duckType: DUCK_TYPE[f.dataTypeID] ?? 'VARCHAR' }));
        if (!r.rows.length) break;
        rowCount += r.rows.length;
        if (rowCount > MAX_WAREHOUSE_ROWS) throw badInput(`The result has more than ${MAX_WAREHOUSE_ROWS} rows`, 'Aggregate in the query or add a LIMIT');
        const lines = r.rows.map((row) => JSON.stringify(Object.fromEntries(row.map((v, k) => [`c${k}`, v === null ? null : String(v)])))).join('\n');
        await out.write(`${lines}\n`);
      }
      await client.query('rollback').catch(() => undefined);
      if (!columns?.length) throw badInput('The query answers no columns');
      return { columns, rowCount };
    } finally {
      signal?.removeEventListener('abort', cancel);
      await out.close();
    }
  });
}
