import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { backticksToQuotes, listenOnLoopback, seededDuckDB } from './backend';
import type { DuckDBValue } from '@duckdb/node-api';

/**
 * A Databricks SQL warehouse as its SQL Statement Execution API answers (written from Databricks' REST
 * reference, "Statement Execution"): POST /api/2.0/sql/statements/ with warehouse_id, statement, catalog,
 * schema, typed named parameters, INLINE JSON_ARRAY disposition; GET …/{id}; GET …/{id}/result/chunks/{n};
 * POST …/{id}/cancel; Bearer tokens. Statements run on DuckDB in a catalog of the given name.
 */

export interface DatabricksServerOptions {
  catalog: string;
  warehouseId: string;
  token: string;
  setup: string;
  /** Rows per result chunk. Default 100. */
  chunkRows?: number;
  /** Polls a statement stays RUNNING (a long query, for cancellation). Default 0. */
  runningPolls?: number;
}

export interface DatabricksServer {
  port: number;
  /** Request bodies of every POST /statements. */
  requests: Record<string, unknown>[];
  cancelled: string[];
  close(): Promise<void>;
}

interface Statement {
  id: string;
  state: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED';
  polls: number;
  columns: { name: string; type_name: string; type_text: string; position: number }[];
  chunks: (string | null)[][][];
  error?: { error_code: string; message: string };
  run: () => Promise<void>;
}

const TYPE_NAME: Record<string, string> = {
  BIGINT: 'LONG', INTEGER: 'INT', SMALLINT: 'SHORT', TINYINT: 'BYTE', DOUBLE: 'DOUBLE', FLOAT: 'FLOAT', BOOLEAN: 'BOOLEAN', VARCHAR: 'STRING', DATE: 'DATE', TIMESTAMP: 'TIMESTAMP',
};
const typeName = (duck: string) => (duck.startsWith('DECIMAL') ? 'DECIMAL' : duck.endsWith('[]') ? 'ARRAY' : (TYPE_NAME[duck] ?? 'STRING'));

function paramValue(p: { value?: string; type?: string }): DuckDBValue {
  if (p.value === undefined) return null;
  switch ((p.type ?? 'STRING').toUpperCase()) {
    case 'BIGINT': case 'INT': return BigInt(p.value);
    case 'DOUBLE': case 'FLOAT': case 'DECIMAL': return Number(p.value);
    case 'BOOLEAN': return p.value === 'true';
    default: return p.value;
  }
}

export async function startDatabricksServer(opts: DatabricksServerOptions): Promise<DatabricksServer> {
  const db = await seededDuckDB(opts.catalog, opts.setup);
  const statements = new Map<string, Statement>();
  const requests: Record<string, unknown>[] = [];
  const cancelled: string[] = [];
  const chunkRows = opts.chunkRows ?? 100;

  const wire = (s: Statement) => ({
    statement_id: s.id,
    status: { state: s.state, ...(s.error && { error: s.error }) },
    ...(s.state === 'SUCCEEDED' && {
      manifest: { format: 'JSON_ARRAY', schema: { column_count: s.columns.length, columns: s.columns }, total_chunk_count: s.chunks.length, total_row_count: s.chunks.reduce((n, c) => n + c.length, 0) },
      result: chunk(s, 0),
    }),
  });
  const chunk = (s: Statement, k: number) => ({
    chunk_index: k,
    row_offset: k * chunkRows,
    row_count: s.chunks[k]?.length ?? 0,
    data_array: s.chunks[k] ?? [],
    ...(k + 1 < s.chunks.length && { next_chunk_index: k + 1, next_chunk_internal_link: `/api/2.0/sql/statements/${s.id}/result/chunks/${k + 1}` }),
  });

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.headers.authorization !== `Bearer ${opts.token}`) return send(401, { error_code: 'UNAUTHENTICATED', message: 'Invalid access token.' });
        const url = new URL(req.url ?? '/', 'http://x');
        if (req.method === 'POST' && /^\/api\/2\.0\/sql\/statements\/?$/.test(url.pathname)) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
            warehouse_id?: string; statement?: string; catalog?: string; schema?: string; parameters?: { name: string; value?: string; type?: string }[];
          };
          requests.push(body);
          if (body.warehouse_id !== opts.warehouseId) return send(404, { error_code: 'RESOURCE_DOES_NOT_EXIST', message: `Warehouse ${body.warehouse_id} does not exist.` });
          const id = randomUUID();
          const s: Statement = {
            id, state: 'RUNNING', polls: 0, columns: [], chunks: [],
            run: async () => {
              const c = await db.connect();
              try {
                await c.run(`USE "${(body.catalog ?? opts.catalog).replaceAll('"', '""')}"${body.schema ? `."${body.schema.replaceAll('"', '""')}"` : ''}`);
                // `:name` is Databricks' parameter marker; DuckDB binds `$name`.
                const sql = backticksToQuotes(body.statement ?? '').replace(/(?<![:\w]):([A-Za-z_]\w*)/g, '$$$1');
                const values = Object.fromEntries((body.parameters ?? []).map((p) => [p.name, paramValue(p)]));
                const reader = await c.runAndReadAll(sql, Object.keys(values).length ? values : undefined);
                const types = reader.columnTypes().map((t) => t.toString());
                s.columns = reader.columnNames().map((name, k) => ({ name, type_name: typeName(types[k]!), type_text: types[k]!.toLowerCase(), position: k }));
                const rows = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
                for (let k = 0; k < rows.length; k += chunkRows) s.chunks.push(rows.slice(k, k + chunkRows));
                s.state = 'SUCCEEDED';
              } catch (e) {
                s.state = 'FAILED';
                const message = (e as Error).message.split('\n')[0]!;
                s.error = { error_code: 'BAD_REQUEST', message: /Parser Error/.test(message) ? `[PARSE_SYNTAX_ERROR] ${message}` : message };
              } finally {
                c.closeSync();
              }
            },
          };
          statements.set(id, s);
          if (!opts.runningPolls) await s.run();
          return send(200, wire(s));
        }
        const one = /^\/api\/2\.0\/sql\/statements\/([^/]+)(\/cancel|\/result\/chunks\/(\d+))?$/.exec(url.pathname);
        const s = one ? statements.get(one[1]!) : undefined;
        if (!one || !s) return send(404, { error_code: 'NOT_FOUND', message: `No route or statement for ${req.method} ${url.pathname}` });
        if (req.method === 'POST' && one[2] === '/cancel') {
          s.state = 'CANCELED';
          cancelled.push(s.id);
          return send(200, {});
        }
        if (req.method === 'GET' && one[3] !== undefined) return send(200, chunk(s, Number(one[3])));
        if (req.method === 'GET' && !one[2]) {
          if (s.state === 'RUNNING' && s.polls++ >= (opts.runningPolls ?? 0)) await s.run();
          return send(200, wire(s));
        }
        send(404, { error_code: 'NOT_FOUND', message: 'No such route' });
      })().catch((e: unknown) => send(500, { error_code: 'INTERNAL_ERROR', message: String(e) }));
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return {
    port,
    requests,
    cancelled,
    close,
  };
}
