import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback, seededDuckDB } from './backend';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

/**
 * A coordinator that speaks Trino's client REST protocol for the calls trino-client makes, written from
 * Trino's documentation ("Client protocol"): POST /v1/statement answers a QUEUED page with a nextUri; each
 * GET of a nextUri answers the next page (columns on the first data page, `data` as JSON rows, Trino type
 * names); the last page has no nextUri; errors carry errorName, errorType and errorLocation; DELETE
 * /v1/query/{id} cancels. Prepared statements arrive in X-Trino-Prepared-Statement and run through
 * `EXECUTE name USING literals`. Statements run on DuckDB, in a catalog named like the Trino catalog.
 */

export interface TrinoServerOptions {
  catalog: string;
  /** SQL run once at start inside the catalog (tables of schema `main` or others). */
  setup: string;
  /** Basic authentication: the one accepted user/password; absent = any user, no password. */
  password?: string;
  /** Rows per data page (Trino sends pages of about 1 MB). Default 100. */
  pageRows?: number;
  /** Polls a query stays QUEUED before it runs (a long-running query for cancellation tests). */
  queuedPolls?: number;
  /** Delay before answering each queued poll, in ms. */
  pollDelayMs?: number;
  /** Origin to write into nextUri instead of the request's own (a hostile coordinator). */
  nextOrigin?: string;
}

export interface TrinoServer {
  url: string;
  port: number;
  /** Every statement as received (after prepared statements were expanded), in order. */
  statements: string[];
  /** Headers of every POST /v1/statement. */
  headers: http.IncomingHttpHeaders[];
  /** Ids of cancelled queries. */
  cancelled: string[];
  close(): Promise<void>;
}

interface Query {
  id: string;
  sql: string;
  params: DuckDBValue[];
  schema: string | undefined;
  polls: number;
  pages: unknown[][][] | null;
  columns: { name: string; type: string }[];
  error: { message: string; errorName: string; line: number; column: number } | null;
  cancelled: boolean;
}

const TRINO_TYPE: Record<string, string> = {
  BIGINT: 'bigint', INTEGER: 'integer', SMALLINT: 'smallint', TINYINT: 'tinyint', DOUBLE: 'double', FLOAT: 'real', BOOLEAN: 'boolean',
  VARCHAR: 'varchar', DATE: 'date', TIMESTAMP: 'timestamp(6)', 'TIMESTAMP WITH TIME ZONE': 'timestamp(6) with time zone', UUID: 'uuid', JSON: 'json',
};
const trinoType = (duck: string) => (duck.startsWith('DECIMAL') ? duck.toLowerCase() : (TRINO_TYPE[duck] ?? 'varchar'));

/** The literals of `EXECUTE name USING …` as values (strings, BIGINT '1', DOUBLE '1.5', true, NULL, ARRAY[…]). */
export function parseLiterals(text: string): DuckDBValue[] {
  let i = 0;
  const skip = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const str = (): string => {
    if (text[i] !== "'") throw new Error(`expected a string at ${i}`);
    let out = '';
    i++;
    for (;;) {
      if (i >= text.length) throw new Error('unterminated string');
      if (text[i] === "'") {
        if (text[i + 1] === "'") {
          out += "'";
          i += 2;
          continue;
        }
        i++;
        return out;
      }
      out += text[i++];
    }
  };
  const one = (): DuckDBValue => {
    skip();
    const rest = text.slice(i);
    let m: RegExpMatchArray | null;
    if (text[i] === "'") return str();
    if ((m = rest.match(/^(BIGINT|DOUBLE)\s+/i))) {
      i += m[0].length;
      const v = str();
      return m[1]!.toUpperCase() === 'BIGINT' ? BigInt(v) : Number(v);
    }
    if ((m = rest.match(/^(true|false)\b/i))) {
      i += m[0].length;
      return m[1]!.toLowerCase() === 'true';
    }
    if ((m = rest.match(/^NULL\b/i))) {
      i += m[0].length;
      return null;
    }
    throw new Error(`cannot read a literal at: ${rest.slice(0, 20)}`);
  };
  const values: DuckDBValue[] = [];
  for (;;) {
    values.push(one());
    skip();
    if (text[i] === ',') {
      i++;
      continue;
    }
    skip();
    if (i < text.length) throw new Error(`unexpected text after literals: ${text.slice(i, i + 20)}`);
    return values;
  }
}

function preparedStatements(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const raw = Array.isArray(header) ? header.join(',') : header;
  for (const part of raw?.split(',') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), decodeURIComponent(part.slice(eq + 1)));
  }
  return out;
}

export async function startTrinoServer(opts: TrinoServerOptions): Promise<TrinoServer> {
  const db = await seededDuckDB(opts.catalog, opts.setup);
  const queries = new Map<string, Query>();
  const statements: string[] = [];
  const headersSeen: http.IncomingHttpHeaders[] = [];
  const cancelled: string[] = [];
  const pageRows = opts.pageRows ?? 100;

  const execute = async (q: Query, c: DuckDBConnection) => {
    try {
      if (q.schema) await c.run(`USE "${opts.catalog}"."${q.schema.replaceAll('"', '""')}"`);
      const reader = await c.runAndReadAll(q.sql, q.params.length ? q.params : undefined);
      const names = reader.columnNames();
      const types = reader.columnTypes().map((t) => t.toString());
      q.columns = names.map((name, k) => ({ name, type: trinoType(types[k]!) }));
      const rows = reader.getRows().map((row) =>
        row.map((v, k) => {
          if (v === null) return null;
          if (typeof v === 'bigint') return Number(v);
          if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return types[k]!.startsWith('DECIMAL') ? String(v) : v;
          return String(v);
        }),
      );
      q.pages = [];
      for (let k = 0; k < rows.length; k += pageRows) q.pages.push(rows.slice(k, k + pageRows));
    } catch (e) {
      const message = (e as Error).message;
      const at = /LINE (\d+):/.exec(message);
      q.error = { message: message.split('\n')[0]!, errorName: /Parser Error/.test(message) ? 'SYNTAX_ERROR' : /Catalog Error/.test(message) ? 'TABLE_NOT_FOUND' : 'GENERIC_USER_ERROR', line: at ? Number(at[1]) : 1, column: 1 };
    }
  };

  const stats = (state: string) => ({ state, queued: state === 'QUEUED', scheduled: state !== 'QUEUED', nodes: 1, totalSplits: 0, queuedSplits: 0, runningSplits: 0, completedSplits: 0, cpuTimeMillis: 0, wallTimeMillis: 0, queuedTimeMillis: 0, elapsedTimeMillis: 0, processedRows: 0, processedBytes: 0, physicalInputBytes: 0, peakMemoryBytes: 0, spilledBytes: 0 });

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const origin = opts.nextOrigin ?? `http://${req.headers.host}`;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (opts.password !== undefined) {
          const auth = req.headers.authorization ?? '';
          const [user, pass] = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString().split(':');
          if (!auth.startsWith('Basic ') || pass !== opts.password || user !== req.headers['x-trino-user']) {
            res.writeHead(401, { 'www-authenticate': 'Basic realm="Trino"' });
            res.end('Unauthorized');
            return;
          }
        }
        const url = new URL(req.url ?? '/', 'http://x');
        if (req.method === 'POST' && url.pathname === '/v1/statement') {
          if (!req.headers['x-trino-user']) return send(400, { message: 'User must be set' });
          headersSeen.push(req.headers);
          let sql = Buffer.concat(chunks).toString('utf8');
          let params: DuckDBValue[] = [];
          const exec = /^\s*EXECUTE\s+(\w+)\s+USING\s+([\s\S]*)$/i.exec(sql);
          if (exec) {
            const text = preparedStatements(req.headers['x-trino-prepared-statement']).get(exec[1]!);
            if (text === undefined) return send(200, { id: randomUUID(), stats: stats('FAILED'), error: { message: `Prepared statement not found: ${exec[1]}`, errorCode: 5, errorName: 'NOT_FOUND', errorType: 'USER_ERROR' } });
            sql = text;
            params = parseLiterals(exec[2]!);
          }
          statements.push(sql);
          const id = `${new Date().toISOString().slice(0, 10).replaceAll('-', '')}_${randomUUID().slice(0, 8)}`;
          const q: Query = { id, sql, params, schema: req.headers['x-trino-schema'] as string | undefined, polls: 0, pages: null, columns: [], error: null, cancelled: false };
          queries.set(id, q);
          return send(200, { id, infoUri: `${origin}/ui/query.html?${id}`, nextUri: `${origin}/v1/statement/queued/${id}/y1/1`, stats: stats('QUEUED') });
        }
        const page = /^\/v1\/statement\/(queued|executing)\/([^/]+)\/[^/]+\/(\d+)$/.exec(url.pathname);
        if (req.method === 'GET' && page) {
          const q = queries.get(page[2]!);
          if (!q) return send(404, { message: 'Query not found' });
          const token = Number(page[3]);
          if (q.cancelled) return send(200, { id: q.id, stats: stats('FAILED'), error: { message: 'Query was canceled', errorCode: 3, errorName: 'USER_CANCELED', errorType: 'USER_ERROR' } });
          if (page[1] === 'queued') {
            if (q.polls++ < (opts.queuedPolls ?? 0)) {
              await new Promise((r) => setTimeout(r, opts.pollDelayMs ?? 0));
              return send(200, { id: q.id, nextUri: `${origin}/v1/statement/queued/${q.id}/y1/${token + 1}`, stats: stats('QUEUED') });
            }
            const c = await db.connect();
            try {
              await execute(q, c);
            } finally {
              c.closeSync();
            }
            if (q.error) {
              return send(200, {
                id: q.id,
                stats: stats('FAILED'),
                error: { message: q.error.message, errorCode: 1, errorName: q.error.errorName, errorType: 'USER_ERROR', errorLocation: { lineNumber: q.error.line, columnNumber: q.error.column }, failureInfo: { type: 'io.trino.spi.TrinoException', message: q.error.message, suppressed: [], stack: [] } },
              });
            }
            return send(200, { id: q.id, nextUri: `${origin}/v1/statement/executing/${q.id}/y2/0`, columns: q.columns, stats: stats('RUNNING') });
          }
          const pages = q.pages ?? [];
          const data = pages[token];
          const last = token >= pages.length - 1;
          return send(200, {
            id: q.id,
            columns: q.columns,
            ...(data ? { data } : {}),
            ...(last ? {} : { nextUri: `${origin}/v1/statement/executing/${q.id}/y2/${token + 1}` }),
            stats: stats(last ? 'FINISHED' : 'RUNNING'),
          });
        }
        const del = /^\/v1\/query\/([^/]+)$/.exec(url.pathname);
        if (req.method === 'DELETE' && del) {
          const q = queries.get(del[1]!);
          if (q) q.cancelled = true;
          cancelled.push(del[1]!);
          res.writeHead(204);
          return res.end();
        }
        send(404, { message: `No route for ${req.method} ${url.pathname}` });
      })().catch((e: unknown) => send(500, { message: String(e) }));
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    statements,
    headers: headersSeen,
    cancelled,
    close,
  };
}
