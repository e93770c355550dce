import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { DuckDBValue } from '@duckdb/node-api';
import { listenOnLoopback, seededDuckDB } from './backend';

/**
 * Snowflake's client REST protocol for the calls snowflake-sdk makes here (from Snowflake's driver
 * documentation and the drivers' public sources): POST /session/v1/login-request (user and password in
 * `data`; answers session and master tokens and the session's parameters), POST /queries/v1/query-request
 * with `Authorization: Snowflake Token="…"` (sqlText and positional bindings; answers rowtype and a JSON
 * rowset of text — numbers as text, booleans 1/0, dates as days since the epoch, timestamps as seconds
 * with a fraction — or code 333333 with a getResultUrl while the query runs), POST
 * /queries/{queryId}/abort-request (or /queries/v1/abort-request by request id), POST /session?delete=true, POST /telemetry/send. Statements run on DuckDB.
 */

export interface SnowflakeServerOptions {
  user: string;
  password: string;
  database: string;
  setup: string;
  /** Polls a query answers "in progress" (333333) before its result (for cancellation). Default 0. */
  runningPolls?: number;
}

export interface SnowflakeServer {
  url: string;
  port: number;
  /** Every query request body (sqlText, bindings). */
  queries: Record<string, unknown>[];
  logins: Record<string, unknown>[];
  aborted: string[];
  close(): Promise<void>;
}

const PARAMETERS = [
  { name: 'TIMEZONE', value: 'UTC' },
  { name: 'DATE_OUTPUT_FORMAT', value: 'YYYY-MM-DD' },
  { name: 'TIMESTAMP_NTZ_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3' },
  { name: 'TIMESTAMP_LTZ_OUTPUT_FORMAT', value: '' },
  { name: 'TIMESTAMP_TZ_OUTPUT_FORMAT', value: '' },
  { name: 'TIMESTAMP_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM' },
  { name: 'TIME_OUTPUT_FORMAT', value: 'HH24:MI:SS' },
  { name: 'BINARY_OUTPUT_FORMAT', value: 'HEX' },
  { name: 'CLIENT_RESULT_CHUNK_SIZE', value: 160 },
];

function rowtypeOf(duck: string): { type: string; scale: number; precision: number | null } {
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duck);
  if (decimal) return { type: 'fixed', precision: Number(decimal[1]), scale: Number(decimal[2]) };
  switch (duck) {
    case 'BIGINT': case 'INTEGER': case 'SMALLINT': return { type: 'fixed', precision: 38, scale: 0 };
    case 'DOUBLE': case 'FLOAT': return { type: 'real', precision: null, scale: 0 };
    case 'BOOLEAN': return { type: 'boolean', precision: null, scale: 0 };
    case 'DATE': return { type: 'date', precision: null, scale: 0 };
    case 'TIMESTAMP': return { type: 'timestamp_ntz', precision: 0, scale: 9 };
    default: return { type: 'text', precision: null, scale: 0 };
  }
}

/** A DuckDB value as Snowflake's JSON result text for its column type. */
function rawValue(v: unknown, type: string): string | null {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'boolean': return v ? '1' : '0';
    case 'date': return String(Math.round((v as Date).getTime() / 86_400_000));
    case 'timestamp_ntz': {
      const ms = (v as Date).getTime();
      return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}000000`;
    }
    default: return String(v);
  }
}

function bindValue(b: { type?: string; value?: unknown }): DuckDBValue {
  if (b.value === null || b.value === undefined) return null;
  switch (b.type) {
    case 'FIXED': return BigInt(String(b.value));
    case 'REAL': return Number(b.value);
    case 'BOOLEAN': return String(b.value).toLowerCase() === 'true' || b.value === '1';
    default: return String(b.value);
  }
}

export async function startSnowflakeServer(opts: SnowflakeServerOptions): Promise<SnowflakeServer> {
  const db = await seededDuckDB(opts.database, opts.setup);
  /** Session token → the schema the session was opened on. */
  const tokens = new Map<string, string | undefined>();
  const queries: Record<string, unknown>[] = [];
  const logins: Record<string, unknown>[] = [];
  const aborted: string[] = [];
  const running = new Map<string, { polls: number; requestId: string; run: () => Promise<unknown> }>();

  const execute = async (sql: string, bindings: Record<string, { type?: string; value?: unknown }> | undefined, schema: string | undefined) => {
    const c = await db.connect();
    try {
      await c.run(`USE "${opts.database}"${schema ? `."${schema.replaceAll('"', '""')}"` : ''}`);
      const values = Object.keys(bindings ?? {}).sort((a, b) => Number(a) - Number(b)).map((k) => bindValue(bindings![k]!));
      const reader = await c.runAndReadAll(sql.replace(/CURRENT_VERSION\(\)/gi, "'8.40.1'"), values.length ? values : undefined);
      const types = reader.columnTypes().map((t) => rowtypeOf(t.toString()));
      const rowtype = reader.columnNames().map((name, k) => ({ name: name.toUpperCase(), database: opts.database, schema: schema ?? 'PUBLIC', table: '', ...types[k], length: null, byteLength: null, nullable: true, collation: null }));
      const rowset = reader.getRowsJS().map((r) => r.map((v, k) => rawValue(v, types[k]!.type)));
      return { success: true, code: null, message: null, data: { parameters: PARAMETERS, rowtype, rowset, total: rowset.length, returned: rowset.length, queryId: randomUUID(), queryResultFormat: 'json', statementTypeId: 4096, version: 1 } };
    } catch (e) {
      const message = (e as Error).message.split('\n')[0]!;
      return { success: false, code: '001003', message: `SQL compilation error:\n${message}`, data: { queryId: randomUUID(), sqlState: '42000', errorCode: '001003', age: 0 } };
    } finally {
      c.closeSync();
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        const raw = Buffer.concat(chunks);
        const text = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
        const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/session/v1/login-request') {
          const data = body.data as { LOGIN_NAME?: string; PASSWORD?: string };
          logins.push({ query: Object.fromEntries(url.searchParams), data: { ...data, PASSWORD: undefined } });
          if (data.LOGIN_NAME !== opts.user || data.PASSWORD !== opts.password) {
            return send(200, { data: { nextAction: 'RETRY_LOGIN', authnMethod: 'USERNAME_PASSWORD' }, code: '390100', message: 'Incorrect username or password was specified.', success: false });
          }
          const token = randomUUID();
          tokens.set(token, url.searchParams.get('schemaName') ?? undefined);
          return send(200, {
            data: { token, masterToken: randomUUID(), validityInSeconds: 3600, masterValidityInSeconds: 14_400, sessionId: 1, parameters: PARAMETERS, serverVersion: '8.40.1',
              sessionInfo: { databaseName: url.searchParams.get('databaseName'), schemaName: url.searchParams.get('schemaName'), warehouseName: url.searchParams.get('warehouse'), roleName: url.searchParams.get('roleName') ?? 'PUBLIC' } },
            code: null, message: null, success: true,
          });
        }
        if (url.pathname === '/telemetry/send') return send(200, { success: true, data: null, code: null, message: null });
        const token = /Snowflake Token="([^"]+)"/.exec(String(req.headers.authorization ?? ''))?.[1];
        if (!token || !tokens.has(token)) return send(401, { data: null, code: '390104', message: 'Authentication token has expired.', success: false });
        if (url.pathname === '/session' && url.searchParams.get('delete') === 'true') {
          tokens.delete(token);
          return send(200, { success: true, data: null, code: null, message: null });
        }
        // The driver aborts by query id once it has one, else by the request's id.
        const abortById = /^\/queries\/([^/]+)\/abort-request$/.exec(url.pathname);
        if (abortById && abortById[1] !== 'v1') {
          aborted.push(abortById[1]!);
          running.delete(abortById[1]!);
          return send(200, { success: true, data: null, code: null, message: null });
        }
        if (url.pathname === '/queries/v1/abort-request') {
          aborted.push(String(body.requestId));
          for (const [id, q] of running) if (q.requestId === body.requestId) running.delete(id);
          return send(200, { success: true, data: null, code: null, message: null });
        }
        if (url.pathname === '/queries/v1/query-request') {
          queries.push(body);
          const run = () => execute(String(body.sqlText), body.bindings as Record<string, { type?: string; value?: unknown }> | undefined, tokens.get(token));
          if (!opts.runningPolls) return send(200, await run());
          const id = randomUUID();
          running.set(id, { polls: 0, requestId: url.searchParams.get('requestId') ?? '', run });
          return send(200, { success: true, code: '333333', message: 'Query execution in progress', data: { queryId: id, getResultUrl: `/queries/${id}/result` } });
        }
        const result = /^\/queries\/([^/]+)\/result$/.exec(url.pathname);
        if (result) {
          const q = running.get(result[1]!);
          if (!q) return send(200, { success: false, code: '000604', message: 'SQL execution canceled', data: { queryId: result[1] } });
          if (q.polls++ < (opts.runningPolls ?? 0)) {
            await new Promise((r) => setTimeout(r, 20));
            return send(200, { success: true, code: '333333', message: 'Query execution in progress', data: { queryId: result[1], getResultUrl: `/queries/${result[1]}/result` } });
          }
          running.delete(result[1]!);
          return send(200, await q.run());
        }
        send(404, { success: false, code: '404', message: `No route ${req.method} ${url.pathname}`, data: null });
      })();
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return { url: `http://127.0.0.1:${port}`, port, queries, logins, aborted, close };
}
