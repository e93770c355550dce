import http from 'node:http';
import type { DuckDBValue } from '@duckdb/node-api';
import { backticksToQuotes, listenOnLoopback, seededDuckDB } from './backend';
import { serviceAccountKey, signedBy } from './google-auth';

/**
 * BigQuery's REST API (v2) for the calls @google-cloud/bigquery makes here (written from its reference):
 * jobs.insert of a query job (standard SQL, NAMED queryParameters, defaultDataset), jobs.getQueryResults
 * (schema, rows as {f: [{v}]}, pageToken, jobComplete; TIMESTAMP as int64 microseconds when asked),
 * jobs.cancel, datasets.list, tables.list, tables.get. Errors as {error: {code, message, errors, status}}.
 * Requests must carry a JWT signed by the test's service account. Queries run on DuckDB, datasets being
 * schemas of a catalog named like the project.
 */

export interface BigQueryServer {
  endpoint: string;
  port: number;
  keyJson: string;
  /** Every inserted job's query configuration. */
  jobs: Record<string, unknown>[];
  cancelled: string[];
  close(): Promise<void>;
}

interface Job {
  id: string;
  polls: number;
  fields: { name: string; type: string; mode: string }[];
  rows: { f: { v: unknown }[] }[];
  error?: string;
  cancelled?: boolean;
}

const BQ_TYPE: Record<string, string> = { BIGINT: 'INTEGER', INTEGER: 'INTEGER', DOUBLE: 'FLOAT', FLOAT: 'FLOAT', VARCHAR: 'STRING', BOOLEAN: 'BOOLEAN', DATE: 'DATE', TIMESTAMP: 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE': 'TIMESTAMP' };
const bqType = (duck: string) => (duck.startsWith('DECIMAL') ? 'FLOAT' : (BQ_TYPE[duck] ?? 'STRING'));

function paramValue(p: { parameterType?: { type?: string }; parameterValue?: { value?: string } }): DuckDBValue {
  const v = p.parameterValue?.value;
  if (v === undefined) return null;
  switch (p.parameterType?.type) {
    case 'INT64': return BigInt(v);
    case 'FLOAT64': case 'NUMERIC': return Number(v);
    case 'BOOL': return v === 'true';
    default: return v;
  }
}

export async function startBigQueryServer(opts: { projectId: string; setup: string; pendingPolls?: number }): Promise<BigQueryServer> {
  const db = await seededDuckDB(opts.projectId, opts.setup);
  const key = serviceAccountKey(opts.projectId);
  const jobs = new Map<string, Job>();
  const inserted: Record<string, unknown>[] = [];
  const cancelled: string[] = [];
  const base = `/bigquery/v2/projects/${opts.projectId}`;

  const run = async (sql: string, params: Record<string, DuckDBValue>, dataset?: string) => {
    const c = await db.connect();
    try {
      await c.run(`USE "${opts.projectId}"${dataset ? `."${dataset.replaceAll('"', '""')}"` : ''}`);
      // BigQuery's named parameters are @name; DuckDB binds $name.
      const reader = await c.runAndReadAll(backticksToQuotes(sql).replace(/@(\w+)/g, '$$$1'), Object.keys(params).length ? params : undefined);
      const types = reader.columnTypes().map((t) => t.toString());
      const fields = reader.columnNames().map((name, k) => ({ name, type: bqType(types[k]!), mode: 'NULLABLE' }));
      const rows = reader.getRowsJS().map((r) => ({
        f: r.map((v, k) => ({
          v: v === null ? null : fields[k]!.type === 'TIMESTAMP' ? String(BigInt((v as Date).getTime()) * 1000n) : fields[k]!.type === 'DATE' ? (v as Date).toISOString().slice(0, 10) : String(v),
        })),
      }));
      return { fields, rows };
    } finally {
      c.closeSync();
    }
  };

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const fail = (code: number, message: string, reason: string) => send(code, { error: { code, message, errors: [{ message, domain: 'global', reason }], status: code === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT' } });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (!signedBy(req.headers.authorization, key.email, key.publicKey)) return fail(401, 'Request had invalid authentication credentials.', 'unauthorized');
        const url = new URL(req.url ?? '/', 'http://x');
        const path = url.pathname.startsWith(base) ? url.pathname.slice(base.length) : null;
        if (path === null) return fail(404, `Not found: Project ${url.pathname.split('/')[4]}`, 'notFound');
        if (req.method === 'POST' && path === '/jobs') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { jobReference: { jobId: string; location?: string }; configuration: { query: { query: string; queryParameters?: { name: string; parameterType?: { type?: string }; parameterValue?: { value?: string } }[]; defaultDataset?: { datasetId: string } } } };
          const q = body.configuration.query;
          inserted.push(q);
          const job: Job = { id: body.jobReference.jobId, polls: 0, fields: [], rows: [] };
          try {
            Object.assign(job, await run(q.query, Object.fromEntries((q.queryParameters ?? []).map((p) => [p.name, paramValue(p)])), q.defaultDataset?.datasetId));
          } catch (e) {
            job.error = (e as Error).message.split('\n')[0]!.replace(/^Parser Error: syntax error/, 'Syntax error: Unexpected keyword');
          }
          jobs.set(job.id, job);
          return send(200, { kind: 'bigquery#job', id: `${opts.projectId}:US.${job.id}`, jobReference: { projectId: opts.projectId, jobId: job.id, location: 'US' }, status: { state: 'RUNNING' }, configuration: body.configuration });
        }
        const results = /^\/queries\/([^/]+)$/.exec(path);
        if (req.method === 'GET' && results) {
          const job = jobs.get(results[1]!);
          if (!job) return fail(404, `Not found: Job ${results[1]}`, 'notFound');
          const reference = { projectId: opts.projectId, jobId: job.id, location: 'US' };
          if (job.cancelled) return fail(400, 'Job execution was cancelled: User requested cancellation', 'stopped');
          if (job.polls++ < (opts.pendingPolls ?? 0)) return send(200, { kind: 'bigquery#getQueryResultsResponse', jobReference: reference, jobComplete: false });
          if (job.error) return fail(400, job.error, 'invalidQuery');
          const from = Number(url.searchParams.get('pageToken') ?? 0);
          const size = Number(url.searchParams.get('maxResults') ?? 100_000);
          const next = from + size < job.rows.length ? String(from + size) : undefined;
          return send(200, { kind: 'bigquery#getQueryResultsResponse', jobReference: reference, schema: { fields: job.fields }, totalRows: String(job.rows.length), rows: job.rows.slice(from, from + size), ...(next && { pageToken: next }), jobComplete: true, cacheHit: false });
        }
        const cancel = /^\/jobs\/([^/]+)\/cancel$/.exec(path);
        if (req.method === 'POST' && cancel) {
          const job = jobs.get(cancel[1]!);
          if (job) job.cancelled = true;
          cancelled.push(cancel[1]!);
          return send(200, { kind: 'bigquery#jobCancelResponse', job: { jobReference: { projectId: opts.projectId, jobId: cancel[1] }, status: { state: 'DONE' } } });
        }
        if (req.method === 'GET' && path === '/datasets') {
          const r = await run(`SELECT schema_name FROM information_schema.schemata WHERE catalog_name = '${opts.projectId}' AND schema_name <> 'main' ORDER BY 1`, {});
          return send(200, { kind: 'bigquery#datasetList', datasets: r.rows.map((row) => ({ kind: 'bigquery#dataset', id: `${opts.projectId}:${String(row.f[0]!.v)}`, datasetReference: { projectId: opts.projectId, datasetId: row.f[0]!.v } })) });
        }
        const tables = /^\/datasets\/([^/]+)\/tables(?:\/([^/]+))?$/.exec(path);
        if (req.method === 'GET' && tables) {
          const r = await run(`SELECT table_name, table_type FROM information_schema.tables WHERE table_catalog = '${opts.projectId}' AND table_schema = $d ORDER BY 1`, { d: decodeURIComponent(tables[1]!) });
          const list = r.rows.map((row) => ({ kind: 'bigquery#table', id: `${opts.projectId}:${tables[1]}.${String(row.f[0]!.v)}`, tableReference: { projectId: opts.projectId, datasetId: tables[1], tableId: row.f[0]!.v }, type: row.f[1]!.v === 'VIEW' ? 'VIEW' : 'TABLE' }));
          if (!tables[2]) return send(200, { kind: 'bigquery#tableList', tables: list, totalItems: list.length });
          const one = list.find((t) => t.tableReference.tableId === decodeURIComponent(tables[2]!));
          if (!one) return fail(404, `Not found: Table ${opts.projectId}:${tables[1]}.${tables[2]}`, 'notFound');
          const columns = await run(`SELECT * FROM "${tables[1]}"."${decodeURIComponent(tables[2])}" LIMIT 0`, {});
          return send(200, { ...one, schema: { fields: columns.fields } });
        }
        fail(404, `Not found: ${req.method} ${url.pathname}`, 'notFound');
      })().catch((e: unknown) => fail(500, String(e), 'internalError'));
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return { endpoint: `http://127.0.0.1:${port}`, port, keyJson: key.json, jobs: inserted, cancelled, close };
}
