import { CONNECTION_CONFIGS, StudioError, badInput, bestEffort } from '@studio/schema';
import { cancelled, writeNdjson, tooManyRows, type BrowseItem, type DriverTarget, type FetchedColumn, type ParamValue, type WarehouseDriver } from '../driver';
import { HttpClient } from '../http';
import { bindStatement, namedParameters } from '../parameters';

/**
 * Databricks SQL warehouses through Databricks' public SQL Statement Execution API (REST, JSON):
 * POST /api/2.0/sql/statements runs a statement on the warehouse of the connection's HTTP path, GET
 * …/{id} polls it, GET …/{id}/result/chunks/{n} reads the next chunk of an INLINE JSON_ARRAY result,
 * POST …/{id}/cancel stops it. Parameters are the API's named parameters (`:name`) with a type; values
 * are never pasted into the text. Authentication is a personal access token (Bearer).
 */

type State = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'CLOSED';

interface Column {
  name: string;
  type_name: string;
}
interface StatementResponse {
  statement_id: string;
  status: { state: State; error?: { error_code?: string; message?: string } };
  manifest?: { schema?: { columns?: Column[] }; total_row_count?: number };
  result?: ResultChunk;
}
interface ResultChunk {
  chunk_index?: number;
  data_array?: (string | null)[][];
  next_chunk_index?: number;
  next_chunk_internal_link?: string;
}
interface ApiError {
  error_code?: string;
  message?: string;
}

interface Target {
  api: HttpClient;
  warehouseId: string;
  catalog?: string;
  schema?: string;
  token?: string;
  settings: DriverTarget['settings'];
}

const POLL_MS = 250;

async function databricksTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.databricks.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  // The HTTP path of a SQL warehouse ends with its id: /sql/1.0/warehouses/<id>.
  const warehouseId = /\/warehouses\/([\w-]+)\/?$/.exec(c.httpPath)?.[1];
  if (!warehouseId) throw badInput('The HTTP path must be a SQL warehouse path (/sql/1.0/warehouses/<id>)');
  const api = await HttpClient.connect({ protocol: c.ssl ? 'https:' : 'http:', host: c.host, port: c.port }, t.reach, t.settings);
  return { api, warehouseId, catalog: c.catalog, schema: c.schema, token: t.credentials?.token, settings: t.settings };
}

/** Databricks' type name as a DuckDB type (values arrive as strings in JSON_ARRAY results). */
export function databricksDuckType(typeName: string): string {
  switch (typeName.toUpperCase()) {
    case 'BOOLEAN': return 'BOOLEAN';
    case 'BYTE': case 'SHORT': return 'SMALLINT';
    case 'INT': return 'INTEGER';
    case 'LONG': return 'BIGINT';
    case 'FLOAT': return 'FLOAT';
    case 'DOUBLE': case 'DECIMAL': return 'DOUBLE';
    case 'DATE': return 'DATE';
    case 'TIMESTAMP': case 'TIMESTAMP_NTZ': return 'TIMESTAMP';
    case 'ARRAY': case 'STRUCT': case 'MAP': return 'JSON';
    default: return 'VARCHAR';
  }
}

/** A parameter of the API: its value as text and the type Databricks parses it as. */
function parameter(name: string, v: ParamValue): { name: string; value?: string; type: string } {
  if (v === null) return { name, type: 'STRING' };
  if (Array.isArray(v)) throw badInput('Databricks parameters take one value each, not lists');
  if (typeof v === 'boolean') return { name, value: String(v), type: 'BOOLEAN' };
  if (typeof v === 'number') return { name, value: String(v), type: Number.isSafeInteger(v) ? 'BIGINT' : 'DOUBLE' };
  return { name, value: v, type: 'STRING' };
}

function apiError(status: number, body: unknown): StudioError {
  const e = (body ?? {}) as ApiError;
  if (status === 401 || status === 403) return new StudioError(422, `Could not connect: the access token was refused (${status}${e.message ? `: ${e.message}` : ''})`);
  return new StudioError(422, e.message ? `${e.error_code ? `${e.error_code}: ` : ''}${e.message}` : `Databricks answered ${status}`);
}

async function call<T>(t: Target, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const r = await t.api.request<T>({ method, path, body, signal, headers: t.token ? { authorization: `Bearer ${t.token}` } : {} });
  if (r.status < 200 || r.status >= 300) throw apiError(r.status, r.body);
  return r.body;
}

/** Runs a statement to its end; hands each chunk of rows to `onRows`; answers the columns and row count. */
async function execute(t: Target, sql: string, values: { name: string; value: ParamValue }[], onRows: (rows: (string | null)[][]) => Promise<void>, signal?: AbortSignal) {
  let statement = await call<StatementResponse>(t, 'POST', '/api/2.0/sql/statements/', {
    warehouse_id: t.warehouseId,
    statement: sql,
    ...(t.catalog && { catalog: t.catalog }),
    ...(t.schema && { schema: t.schema }),
    parameters: values.map((p) => parameter(p.name, p.value)),
    disposition: 'INLINE',
    format: 'JSON_ARRAY',
    wait_timeout: '10s',
    on_wait_timeout: 'CONTINUE',
  }, signal);
  const id = statement.statement_id;
  const stop = () => void bestEffort(call(t, 'POST', `/api/2.0/sql/statements/${encodeURIComponent(id)}/cancel`), `Cancelling Databricks statement ${id}`);
  const deadline = Date.now() + t.settings.statementTimeoutMs;
  signal?.addEventListener('abort', stop, { once: true });
  // An abort while the statement was being submitted has already fired: cancel the statement it made.
  if (signal?.aborted) stop();
  try {
    while (statement.status.state === 'PENDING' || statement.status.state === 'RUNNING') {
      if (signal?.aborted) throw cancelled();
      if (Date.now() > deadline) {
        stop();
        throw new StudioError(422, `The query ran longer than ${t.settings.statementTimeoutMs} ms and was cancelled`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
      statement = await call<StatementResponse>(t, 'GET', `/api/2.0/sql/statements/${encodeURIComponent(id)}`, undefined, signal);
    }
    if (statement.status.state === 'CANCELED' || statement.status.state === 'CLOSED') throw cancelled();
    if (statement.status.state === 'FAILED') {
      const e = statement.status.error ?? {};
      throw new StudioError(422, `${e.message ?? 'The statement failed'}`, e.error_code);
    }
    const columns: FetchedColumn[] = (statement.manifest?.schema?.columns ?? []).map((c) => ({ name: c.name, duckType: databricksDuckType(c.type_name) }));
    let rowCount = 0;
    let chunk: ResultChunk | undefined = statement.result;
    while (chunk) {
      const rows = chunk.data_array ?? [];
      rowCount += rows.length;
      if (rowCount > t.settings.maxRows) throw tooManyRows(t.settings.maxRows);
      if (rows.length) await onRows(rows);
      if (chunk.next_chunk_index === undefined) break;
      if (signal?.aborted) throw cancelled();
      // The API's own link is relative to the workspace; the chunk index says the same on any host.
      chunk = await call<ResultChunk>(t, 'GET', `/api/2.0/sql/statements/${encodeURIComponent(id)}/result/chunks/${Number(chunk.next_chunk_index)}`, undefined, signal);
    }
    return { columns, rowCount };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

async function rowsOf(t: Target, sql: string, params: Record<string, ParamValue> = {}): Promise<(string | null)[][]> {
  const out: (string | null)[][] = [];
  await execute(t, sql, Object.entries(params).map(([name, value]) => ({ name, value })), async (rows) => void out.push(...rows));
  return out;
}

export const databricksDriver: WarehouseDriver = {
  async test(target) {
    const rows = await rowsOf(await databricksTarget(target), 'SELECT version()');
    return { ok: true as const, serverVersion: `Databricks SQL ${rows[0]?.[0] ?? ''}`.trim() };
  },

  async browse(target, [schema, table]) {
    const t = await databricksTarget(target);
    if (schema === undefined) {
      const rows = await rowsOf(t, "SELECT schema_name FROM information_schema.schemata WHERE schema_name <> 'information_schema' ORDER BY 1");
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'schema' }));
    }
    if (table === undefined) {
      const rows = await rowsOf(t, 'SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = :schema ORDER BY 1', { schema });
      return rows.map((r): BrowseItem => ({ name: String(r[0]), type: String(r[1]).toUpperCase() === 'VIEW' ? 'view' : 'table' }));
    }
    const rows = await rowsOf(t, 'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = :schema AND table_name = :table ORDER BY ordinal_position', { schema, table });
    return rows.map((r): BrowseItem => ({ name: String(r[0]), type: 'column', dataType: String(r[1]), nullable: r[2] === 'YES' }));
  },

  parameterNames: (sql) => namedParameters(sql, (n) => `:p${n}`).names,

  async fetch(target, userSql, values, file, signal) {
    const t = await databricksTarget(target);
    const { sql, bound } = bindStatement(userSql, values, (n) => `:p${n}`);
    return writeNdjson(file, (write) => execute(t, sql, bound.map((value, k) => ({ name: `p${k + 1}`, value })), write, signal));
  },
};
