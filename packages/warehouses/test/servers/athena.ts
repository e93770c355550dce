import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback, seededDuckDB } from './backend';
import type { DuckDBValue } from '@duckdb/node-api';
import { parseLiterals } from './trino';

/**
 * Amazon Athena's JSON API (AWS JSON 1.1: POST / with X-Amz-Target AmazonAthena.<Operation>), written from
 * the Athena API reference for the calls the AWS SDK's client makes here: StartQueryExecution (with
 * ExecutionParameters), GetQueryExecution, GetQueryResults (pages with NextToken; a SELECT's first page
 * begins with its header row), StopQueryExecution, GetWorkGroup, ListDatabases, ListTableMetadata,
 * GetTableMetadata. The access key in the SigV4 Authorization header must be the one given. Queries run
 * on DuckDB, the data catalog being a DuckDB catalog, its databases schemas.
 */

export interface AthenaServerOptions {
  accessKeyId: string;
  /** The data catalog's name (Athena's default: AwsDataCatalog). */
  catalog: string;
  workgroup: string;
  setup: string;
  /** Rows per result page (besides the header row). Default 1000 (the API's maximum). */
  pageRows?: number;
  /** Polls a query stays RUNNING (for cancellation). Default 0. */
  runningPolls?: number;
}

export interface AthenaServer {
  endpoint: string;
  port: number;
  /** Every StartQueryExecution request body. */
  started: Record<string, unknown>[];
  stopped: string[];
  close(): Promise<void>;
}

interface Query {
  id: string;
  state: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  polls: number;
  columns: { Name: string; Type: string }[];
  rows: (string | null)[][];
  error?: string;
  run: () => Promise<void>;
}

const TYPE: Record<string, string> = { BIGINT: 'bigint', INTEGER: 'integer', DOUBLE: 'double', BOOLEAN: 'boolean', VARCHAR: 'varchar', DATE: 'date', TIMESTAMP: 'timestamp', FLOAT: 'float' };
const athenaType = (duck: string) => (duck.startsWith('DECIMAL') ? 'decimal' : (TYPE[duck] ?? 'varchar'));

class ApiError extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
}

export async function startAthenaServer(opts: AthenaServerOptions): Promise<AthenaServer> {
  const db = await seededDuckDB(opts.catalog, opts.setup);
  const queries = new Map<string, Query>();
  const started: Record<string, unknown>[] = [];
  const stopped: string[] = [];
  const pageRows = opts.pageRows ?? 1000;

  const columnsOf = async (schema: string, table?: string) => {
    const c = await db.connect();
    try {
      const rows = (await c.runAndReadAll(
        `SELECT t.table_name, t.table_type, c.column_name, c.data_type FROM information_schema.tables t JOIN information_schema.columns c USING (table_catalog, table_schema, table_name)
         WHERE t.table_catalog = ? AND t.table_schema = ? ${table ? 'AND t.table_name = ?' : ''} ORDER BY t.table_name, c.ordinal_position`,
        [opts.catalog, schema, ...(table ? [table] : [])],
      )).getRowObjectsJS() as { table_name: string; table_type: string; column_name: string; data_type: string }[];
      const tables = new Map<string, { Name: string; TableType: string; Columns: { Name: string; Type: string }[] }>();
      for (const r of rows) {
        const t = tables.get(r.table_name) ?? { Name: r.table_name, TableType: r.table_type === 'VIEW' ? 'VIRTUAL_VIEW' : 'EXTERNAL_TABLE', Columns: [] };
        t.Columns.push({ Name: r.column_name, Type: athenaType(r.data_type) });
        tables.set(r.table_name, t);
      }
      return [...tables.values()];
    } finally {
      c.closeSync();
    }
  };

  const operations: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    async GetWorkGroup(body) {
      if (body.WorkGroup !== opts.workgroup) throw new ApiError('InvalidRequestException', `WorkGroup ${String(body.WorkGroup)} is not found.`);
      return { WorkGroup: { Name: opts.workgroup, State: 'ENABLED', Configuration: { EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' } } } };
    },
    async StartQueryExecution(body) {
      started.push(body);
      if (body.WorkGroup !== opts.workgroup) throw new ApiError('InvalidRequestException', `WorkGroup ${String(body.WorkGroup)} is not found.`);
      const context = (body.QueryExecutionContext ?? {}) as { Catalog?: string; Database?: string };
      const params = ((body.ExecutionParameters ?? []) as string[]).flatMap((p) => parseLiterals(p)) as DuckDBValue[];
      const q: Query = {
        id: randomUUID(), state: 'RUNNING', polls: 0, columns: [], rows: [],
        run: async () => {
          const c = await db.connect();
          try {
            await c.run(`USE "${(context.Catalog ?? opts.catalog).replaceAll('"', '""')}"${context.Database ? `."${context.Database.replaceAll('"', '""')}"` : ''}`);
            const reader = await c.runAndReadAll(String(body.QueryString ?? ''), params.length ? params : undefined);
            const types = reader.columnTypes().map((t) => t.toString());
            q.columns = reader.columnNames().map((Name, k) => ({ Name, Type: athenaType(types[k]!) }));
            q.rows = reader.getRows().map((row) => row.map((v) => (v === null ? null : String(v))));
            q.state = 'SUCCEEDED';
          } catch (e) {
            q.state = 'FAILED';
            q.error = (e as Error).message.split('\n')[0];
          } finally {
            c.closeSync();
          }
        },
      };
      queries.set(q.id, q);
      return { QueryExecutionId: q.id };
    },
    async GetQueryExecution(body) {
      const q = queries.get(String(body.QueryExecutionId));
      if (!q) throw new ApiError('InvalidRequestException', 'QueryExecution was not found');
      if (q.state === 'RUNNING' && q.polls++ >= (opts.runningPolls ?? 0)) await q.run();
      return {
        QueryExecution: {
          QueryExecutionId: q.id,
          Status: { State: q.state, ...(q.error && { StateChangeReason: q.error, AthenaError: { ErrorCategory: 2, ErrorType: 1006, Retryable: false, ErrorMessage: q.error } }) },
        },
      };
    },
    async GetQueryResults(body) {
      const q = queries.get(String(body.QueryExecutionId));
      if (!q || q.state !== 'SUCCEEDED') throw new ApiError('InvalidRequestException', `Query has not yet finished. Current state: ${q?.state ?? 'unknown'}`);
      const offset = body.NextToken ? Number(body.NextToken) : 0;
      const rows = q.rows.slice(offset, offset + pageRows);
      const header = offset === 0 ? [{ Data: q.columns.map((c) => ({ VarCharValue: c.Name })) }] : [];
      return {
        ResultSet: {
          Rows: [...header, ...rows.map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) }))],
          ResultSetMetadata: { ColumnInfo: q.columns.map((c) => ({ CatalogName: 'hive', Name: c.Name, Label: c.Name, Type: c.Type, Nullable: 'UNKNOWN' })) },
        },
        ...(offset + pageRows < q.rows.length && { NextToken: String(offset + pageRows) }),
        UpdateCount: 0,
      };
    },
    async StopQueryExecution(body) {
      const q = queries.get(String(body.QueryExecutionId));
      if (q) q.state = 'CANCELLED';
      stopped.push(String(body.QueryExecutionId));
      return {};
    },
    async ListDatabases(body) {
      if (body.CatalogName !== opts.catalog) throw new ApiError('MetadataException', `Catalog ${String(body.CatalogName)} not found`);
      const c = await db.connect();
      try {
        const rows = (await c.runAndReadAll('SELECT schema_name FROM information_schema.schemata WHERE catalog_name = ? ORDER BY 1', [opts.catalog])).getRows();
        return { DatabaseList: rows.map((r) => ({ Name: String(r[0]) })) };
      } finally {
        c.closeSync();
      }
    },
    async ListTableMetadata(body) {
      return { TableMetadataList: await columnsOf(String(body.DatabaseName)) };
    },
    async GetTableMetadata(body) {
      const [t] = await columnsOf(String(body.DatabaseName), String(body.TableName));
      if (!t) throw new ApiError('MetadataException', `Table ${String(body.TableName)} not found`);
      return { TableMetadata: { ...t, PartitionKeys: [] } };
    },
  };

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, type?: string) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(type && { 'x-amzn-errortype': type }) });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const key = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
        if (key !== opts.accessKeyId) return send(400, { __type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' }, 'UnrecognizedClientException');
        const op = /^AmazonAthena\.(\w+)$/.exec(String(req.headers['x-amz-target'] ?? ''))?.[1];
        const handler = op ? operations[op] : undefined;
        if (!handler) return send(400, { __type: 'UnknownOperationException', message: `Unknown operation ${op}` }, 'UnknownOperationException');
        try {
          send(200, await handler(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>));
        } catch (e) {
          if (e instanceof ApiError) return send(400, { __type: e.type, Message: e.message }, e.type);
          send(500, { __type: 'InternalServerException', Message: String(e) }, 'InternalServerException');
        }
      })();
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    started,
    stopped,
    close,
  };
}
