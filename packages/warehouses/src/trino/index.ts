import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type { QueryResult, Trino } from 'trino-client';
import { CONNECTION_CONFIGS, StudioError, badInput, bestEffort, onFirstUse } from '@studio/schema';
import { cancelled, writeNdjson, driverError, raceAbort, tooManyRows, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { bindStatement, namedParameters } from '../parameters';
import { trinoLiteral } from './literals';

/**
 * Presto and Trino through `trino-client` (the Trino project's own JavaScript client), which speaks the
 * coordinator's REST protocol: POST /v1/statement, then GET each `nextUri` until the last page; DELETE
 * /v1/query/{id} cancels. Parameters go the protocol's way: the statement is prepared through the
 * X-Trino-Prepared-Statement header and run with `EXECUTE … USING` and one typed literal per value.
 */

/** The client, loaded on the first call of a Presto or Trino connection. */
const trinoClient = onFirstUse(async () => {
  const client = await import('trino-client');
  // trino-client drives axios with its defaults, which follow HTTP redirects: a warehouse could send the
  // studio to any address behind a 302. No redirect is ever followed (the protocol has none).
  const trinoRequire = createRequire(createRequire(import.meta.url).resolve('trino-client'));
  (trinoRequire('axios') as { defaults: { maxRedirects?: number } }).defaults.maxRedirects = 0;
  return client;
});

interface TrinoTarget {
  host: string;
  port: number;
  catalog: string;
  schema?: string;
  user: string;
  ssl: boolean;
  password?: string;
  target: DriverTarget;
}

function trinoTarget(t: DriverTarget): TrinoTarget {
  const parsed = CONNECTION_CONFIGS.presto.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  return { host: c.host, port: c.port, catalog: c.catalog, schema: c.schema, user: c.user, ssl: c.ssl, password: t.credentials?.password, target: t };
}

/** The request method of the client's HTTP layer (auth, session and prepared-statement headers, TLS agent). */
type Request = <T>(cfg: { method?: string; url: string; data?: string; headers?: Record<string, string> }) => Promise<T>;

interface Session {
  trino: Trino;
  request: Request;
  origin: string;
}

async function session(t: TrinoTarget): Promise<Session> {
  // The checked address, not the name: a second DNS answer must not lead somewhere else.
  const address = await t.target.reach.check(t.host, t.port);
  const hostPart = isIP(address) === 6 ? `[${address}]` : address;
  const origin = `${t.ssl ? 'https' : 'http'}://${hostPart}:${t.port}`;
  const { BasicAuth, Trino } = await trinoClient();
  const trino = Trino.create({
    server: origin,
    source: 'studio',
    catalog: t.catalog,
    schema: t.schema,
    auth: new BasicAuth(t.user, t.password),
    ssl: { rejectUnauthorized: true, ...(isIP(t.host) ? {} : { servername: t.host }) } as { rejectUnauthorized: boolean },
  });
  // The pages are walked here rather than by the client's iterator, which follows every nextUri (and
  // skips empty pages) without showing them: each nextUri must be checked before it is requested.
  const client = (trino as unknown as { client?: { request?: Request } }).client;
  if (typeof client?.request !== 'function') throw new StudioError(500, 'trino-client has changed: its Client.request is gone');
  return { trino, request: client.request.bind(client) as Request, origin };
}

/** Trino's type name (e.g. `varchar(20)`, `timestamp(3) with time zone`) as a DuckDB type. */
export function duckTypeOf(trinoType: string): string {
  const base = trinoType.toLowerCase().replace(/\(.*$/, '').trim();
  if (/^timestamp.*with time zone$/.test(trinoType.toLowerCase())) return 'TIMESTAMPTZ';
  switch (base) {
    case 'boolean': return 'BOOLEAN';
    case 'tinyint': case 'smallint': return 'SMALLINT';
    case 'integer': return 'INTEGER';
    case 'bigint': return 'BIGINT';
    case 'real': return 'FLOAT';
    case 'double': case 'decimal': return 'DOUBLE';
    case 'date': return 'DATE';
    case 'timestamp': return 'TIMESTAMP';
    case 'json': case 'array': case 'map': case 'row': return 'JSON';
    case 'uuid': return 'UUID';
    default: return 'VARCHAR';
  }
}

interface Answer {
  columns: FetchedColumn[];
  rowCount: number;
}

/**
 * Runs one statement and hands each page of rows to `onRows`. Every `nextUri` must stay on the origin the
 * studio checked; an error page becomes a 422 with Trino's message and, where it has one, its position.
 */
async function run(t: TrinoTarget, sql: string, onRows: (rows: unknown[][]) => Promise<void>, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<Answer> {
  const { trino, request, origin } = await session(t);
  let queryId: string | undefined;
  const cancel = () => {
    if (queryId) void bestEffort(trino.cancel(queryId), `Cancelling Trino query ${queryId}`);
  };
  const timer = setTimeout(cancel, t.target.settings.statementTimeoutMs);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    let page = await raceAbort(withConnectTimeout(request<QueryResult>({ method: 'POST', url: '/v1/statement', data: sql, headers }), t), signal).catch((e: unknown) => {
      throw driverError(e, 'Could not connect: ');
    });
    let columns: FetchedColumn[] | null = null;
    let rowCount = 0;
    for (;;) {
      queryId ??= page.id;
      if (page.error) throw trinoError(page.error);
      if (page.columns && !columns) columns = page.columns.map((c) => ({ name: c.name, duckType: duckTypeOf(c.type) }));
      if (page.data?.length) {
        rowCount += page.data.length;
        if (rowCount > t.target.settings.maxRows) {
          cancel();
          throw tooManyRows(t.target.settings.maxRows);
        }
        await onRows(page.data);
      }
      if (!page.nextUri) break;
      if (!page.nextUri.startsWith(`${origin}/`)) {
        cancel();
        throw new StudioError(422, 'The warehouse answered with a next page on another host', "Set the coordinator's address (or its proxy's) to the host this connection names");
      }
      if (signal?.aborted) {
        // The abort may have come before the query had an id to cancel by.
        cancel();
        throw cancelled();
      }
      page = await raceAbort(request<QueryResult>({ url: page.nextUri }), signal).catch((e: unknown) => {
        throw driverError(e);
      });
    }
    return { columns: columns ?? [], rowCount };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
  }
}

/** The first request answers within the connect timeout, or the host is called unreachable. */
function withConnectTimeout<T>(work: Promise<T>, t: TrinoTarget): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StudioError(422, `Could not connect: ${t.host}:${t.port} did not answer within ${t.target.settings.connectTimeoutMs} ms`)), t.target.settings.connectTimeoutMs);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        const status = (e as { response?: { status?: number } }).response?.status;
        reject(status === 401 ? new StudioError(422, 'Could not connect: the user name or password was refused (401)') : e);
      },
    );
  });
}

function trinoError(error: NonNullable<QueryResult['error']>): StudioError {
  const loc = (error as { errorLocation?: { lineNumber?: number; columnNumber?: number } }).errorLocation;
  const where = loc?.lineNumber ? ` (line ${loc.lineNumber}, column ${loc.columnNumber ?? 1})` : '';
  return new StudioError(422, `${error.message}${where}`, error.errorName);
}

/** A statement with its values: prepared through the protocol's header, executed with literals. */
function prepared(sql: string, values: ParamValue[]): { sql: string; headers: Record<string, string> } {
  if (!values.length) return { sql, headers: {} };
  return {
    sql: `EXECUTE studio_statement USING ${values.map(trinoLiteral).join(', ')}`,
    headers: { 'X-Trino-Prepared-Statement': `studio_statement=${encodeURIComponent(sql)}` },
  };
}

async function rowsOf(t: TrinoTarget, sql: string, values: ParamValue[] = []): Promise<unknown[][]> {
  const out: unknown[][] = [];
  const p = prepared(sql, values);
  await run(t, p.sql, async (rows) => void out.push(...rows), undefined, p.headers);
  return out;
}

export const trinoDriver: WarehouseDriver = {
  async test(target) {
    const rows = await rowsOf(trinoTarget(target), 'SELECT version()');
    return { ok: true as const, serverVersion: String(rows[0]?.[0] ?? '') };
  },

  async browse(target, [schema, table]) {
    const t = trinoTarget(target);
    if (schema === undefined) {
      const rows = await rowsOf(t, "SELECT schema_name FROM information_schema.schemata WHERE catalog_name = ? AND schema_name <> 'information_schema' ORDER BY 1", [t.catalog]);
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'schema' }));
    }
    if (table === undefined) {
      const rows = await rowsOf(t, 'SELECT table_name, table_type FROM information_schema.tables WHERE table_catalog = ? AND table_schema = ? ORDER BY 1', [t.catalog, schema]);
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: String(r[1]).toUpperCase() === 'VIEW' ? 'view' : 'table' }));
    }
    const rows = await rowsOf(
      t,
      'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_catalog = ? AND table_schema = ? AND table_name = ? ORDER BY ordinal_position',
      [t.catalog, schema, table],
    );
    return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'column', dataType: String(r[1]), nullable: r[2] === 'YES' }));
  },

  parameterNames: (sql) => namedParameters(sql, () => '?').names,

  async fetch(target, userSql, values, file, signal) {
    const t = trinoTarget(target);
    const { sql, bound } = bindStatement(userSql, values, () => '?');
    const p = prepared(sql, bound);
    return writeNdjson(file, (write) => run(t, p.sql, write, signal, p.headers));
  },
};
