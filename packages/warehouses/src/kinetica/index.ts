import { CONNECTION_CONFIGS, StudioError, badInput } from '@studio/schema';
import { cancelled, writeNdjson, tooManyRows, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { hostAndPort } from '../pinned';
import { HttpClient } from '../http';
import { bindStatement, namedParameters } from '../parameters';

/**
 * Kinetica through its REST API (JSON): POST <url>/execute/sql with the statement, offset/limit paging and
 * the values of its `$n` parameters in the `query_parameters` option (never pasted into the text); the
 * answer's envelope ({status, message, data_type, data | data_str}) holds json_encoded_response, the
 * result as column arrays with column_headers and column_datatypes. Basic authentication with the
 * connection's user and password. The studio's data proxy forwards a few more endpoints (proxy.ts).
 */

const PAGE_ROWS = 10_000;

export interface KineticaTarget {
  api: HttpClient;
  basePath: string;
  authorization?: string;
  schema?: string;
  settings: DriverTarget['settings'];
}

export interface KineticaEnvelope {
  status: 'OK' | 'ERROR';
  message: string;
  data_type?: string;
  data?: unknown;
  data_str?: string;
}

export async function kineticaTarget(t: DriverTarget): Promise<KineticaTarget> {
  const parsed = CONNECTION_CONFIGS.kinetica.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const url = new URL(c.url);
  const api = await HttpClient.connect(
    { protocol: url.protocol as 'http:' | 'https:', ...hostAndPort(url) },
    t.reach,
    t.settings,
  );
  const password = t.credentials?.password ?? '';
  return { api, basePath: url.pathname.replace(/\/+$/, ''), authorization: `Basic ${Buffer.from(`${c.user}:${password}`).toString('base64')}`, schema: c.schema, settings: t.settings };
}

/** One call of Kinetica's REST API: its envelope, whatever its status ('Invalid response type' if it has none). */
export async function kineticaCall(k: KineticaTarget, endpoint: string, body: unknown, signal?: AbortSignal): Promise<{ httpStatus: number; envelope: KineticaEnvelope }> {
  const r = await k.api.request<KineticaEnvelope>({ method: 'POST', path: `${k.basePath}${endpoint}`, body, signal, headers: k.authorization ? { authorization: k.authorization } : {} });
  if (r.status === 401 || r.status === 403) throw new StudioError(422, `Could not connect: the user name or password was refused (${r.status})`);
  const e = r.body;
  if (!e || typeof e !== 'object' || (e.status !== 'OK' && e.status !== 'ERROR')) throw new StudioError(422, 'Invalid response type');
  return { httpStatus: r.status, envelope: e };
}

/** The response object of an OK envelope (JSON clients get it in `data`, or as text in `data_str`). */
export function kineticaData<T>(e: KineticaEnvelope): T {
  if (e.status === 'ERROR') throw new StudioError(422, e.message || 'Kinetica answered ERROR');
  if (e.data && typeof e.data === 'object' && Object.keys(e.data).length) return e.data as T;
  try {
    return JSON.parse(e.data_str ?? '') as T;
  } catch {
    throw new StudioError(422, 'Invalid response type');
  }
}

interface SqlResponse {
  json_encoded_response: string;
  total_number_of_records?: number;
  has_more_records?: boolean;
}

interface ColumnArrays {
  column_headers: string[];
  column_datatypes: string[];
  [column: string]: unknown;
}

/** Kinetica's column type as a DuckDB type (values arrive as JSON numbers and strings). */
export function kineticaDuckType(t: string): string {
  switch (t.toLowerCase()) {
    case 'int': case 'int8': case 'int16': return 'INTEGER';
    case 'long': return 'BIGINT';
    case 'float': return 'FLOAT';
    case 'double': case 'decimal': return 'DOUBLE';
    case 'boolean': return 'BOOLEAN';
    case 'date': return 'DATE';
    case 'datetime': case 'timestamp': return 'TIMESTAMP';
    default: return 'VARCHAR';
  }
}

async function sqlPages(k: KineticaTarget, statement: string, values: ParamValue[], onRows: (rows: unknown[][]) => Promise<void>, signal?: AbortSignal) {
  let columns: FetchedColumn[] | null = null;
  let rowCount = 0;
  const deadline = Date.now() + k.settings.statementTimeoutMs;
  for (let offset = 0; ; offset += PAGE_ROWS) {
    if (signal?.aborted) throw cancelled();
    if (Date.now() > deadline) throw new StudioError(422, `The query ran longer than ${k.settings.statementTimeoutMs} ms`);
    const { envelope } = await kineticaCall(k, '/execute/sql', {
      statement,
      offset,
      limit: PAGE_ROWS,
      encoding: 'json',
      request_schema_str: '',
      data: [],
      options: { ...(values.length && { query_parameters: JSON.stringify(values) }), ...(k.schema && { current_schema: k.schema }) },
    }, signal);
    const response = kineticaData<SqlResponse>(envelope);
    let arrays: ColumnArrays;
    try {
      arrays = JSON.parse(response.json_encoded_response) as ColumnArrays;
    } catch {
      throw new StudioError(422, 'Invalid response type');
    }
    columns ??= arrays.column_headers.map((name, i) => ({ name, duckType: kineticaDuckType(arrays.column_datatypes[i] ?? 'string') }));
    const data = arrays.column_headers.map((_h, i) => (arrays[`column_${i + 1}`] ?? []) as unknown[]);
    const n = data[0]?.length ?? 0;
    rowCount += n;
    if (rowCount > k.settings.maxRows) throw tooManyRows(k.settings.maxRows);
    if (n) await onRows(Array.from({ length: n }, (_r, row) => data.map((col) => col[row])));
    if (!response.has_more_records || n === 0) break;
  }
  return { columns: columns ?? [], rowCount };
}

async function rowsOf(k: KineticaTarget, sql: string, values: ParamValue[] = []): Promise<unknown[][]> {
  const out: unknown[][] = [];
  await sqlPages(k, sql, values, async (rows) => void out.push(...rows));
  return out;
}

export const kineticaDriver: WarehouseDriver = {
  async test(target) {
    const k = await kineticaTarget(target);
    const { envelope } = await kineticaCall(k, '/show/system/properties', { options: { properties: 'version.gpudb_core_version' } });
    const props = kineticaData<{ property_map?: Record<string, string> }>(envelope).property_map ?? {};
    return { ok: true as const, serverVersion: `Kinetica ${props['version.gpudb_core_version'] ?? ''}`.trim() };
  },

  async browse(target, [schema, table]) {
    const k = await kineticaTarget(target);
    if (schema === undefined) {
      const rows = await rowsOf(k, "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT IN ('information_schema', 'ki_catalog') ORDER BY 1");
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'schema' }));
    }
    if (table === undefined) {
      const rows = await rowsOf(k, 'SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema]);
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: /VIEW/i.test(String(r[1])) ? 'view' : 'table' }));
    }
    const rows = await rowsOf(k, 'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position', [schema, table]);
    return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'column', dataType: String(r[1]), nullable: r[2] === 'YES' }));
  },

  parameterNames: (sql) => namedParameters(sql, (n) => `$${n}`).names,

  async fetch(target, userSql, values, file, signal) {
    const { sql, bound } = bindStatement(userSql, values, (n) => `$${n}`);
    const k = await kineticaTarget(target);
    return writeNdjson(file, (write) => sqlPages(k, sql, bound, write, signal));
  },
};
