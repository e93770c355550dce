import http from 'node:http';
import type { DuckDBValue } from '@duckdb/node-api';
import { listenOnLoopback, seededDuckDB } from './backend';

/**
 * A Kinetica server as its REST API answers JSON clients (written from Kinetica's REST reference): every
 * endpoint is a POST of a JSON request answered by the envelope {status, message, data_type, data_str};
 * /execute/sql takes statement, offset, limit, encoding 'json' and options (query_parameters: a JSON
 * array bound to $1..$n) and answers json_encoded_response (column_1..n, column_headers,
 * column_datatypes) with has_more_records; /show/system/properties, /show/table, /show/resourcegroups,
 * /get/records, /create/table, /clear/table, /drop/schema for the data proxy. Basic authentication.
 * Statements run on DuckDB.
 */

export interface KineticaServerOptions {
  user: string;
  password: string;
  setup: string;
}

export interface KineticaServer {
  url: string;
  port: number;
  /** Every request: the endpoint and its body. */
  requests: { endpoint: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

const KINETICA_TYPE: Record<string, string> = { INTEGER: 'int', BIGINT: 'long', DOUBLE: 'double', FLOAT: 'float', BOOLEAN: 'boolean', VARCHAR: 'string', DATE: 'date', TIMESTAMP: 'datetime' };

const envelope = (dataType: string, data: unknown) => ({ status: 'OK', message: '', data_type: dataType, data: {}, data_str: JSON.stringify(data) });
const failure = (message: string) => ({ status: 'ERROR', message, data_type: 'none', data: {}, data_str: '' });

export async function startKineticaServer(opts: KineticaServerOptions): Promise<KineticaServer> {
  const db = await seededDuckDB('kinetica', opts.setup);
  const requests: KineticaServer['requests'] = [];

  const query = async (sql: string, params: DuckDBValue[], schema?: string) => {
    const c = await db.connect();
    try {
      await c.run(`USE kinetica${schema ? `."${schema.replaceAll('"', '""')}"` : ''}`);
      const reader = await c.runAndReadAll(sql, params.length ? params : undefined);
      const types = reader.columnTypes().map((t) => t.toString());
      const rows = reader.getRows().map((r) => r.map((v) => (v === null ? null : typeof v === 'bigint' ? Number(v) : typeof v === 'number' || typeof v === 'boolean' ? v : String(v))));
      return { headers: reader.columnNames(), types: types.map((t) => (t.startsWith('DECIMAL') ? 'double' : (KINETICA_TYPE[t] ?? 'string'))), rows };
    } finally {
      c.closeSync();
    }
  };

  const endpoints: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    '/show/system/properties': async () => envelope('show_system_properties_response', { property_map: { 'version.gpudb_core_version': '7.2.2.3', 'conf.enable_worker_http_servers': 'FALSE' }, info: {} }),
    '/execute/sql': async (body) => {
      const options = (body.options ?? {}) as Record<string, string>;
      const params = options.query_parameters ? (JSON.parse(options.query_parameters) as DuckDBValue[]) : [];
      const r = await query(String(body.statement), params, options.current_schema);
      const offset = Number(body.offset ?? 0);
      const limit = Number(body.limit ?? r.rows.length);
      const page = r.rows.slice(offset, offset + limit);
      const columns = Object.fromEntries(r.headers.map((_h, i) => [`column_${i + 1}`, page.map((row) => row[i])]));
      return envelope('execute_sql_response', {
        count_affected: 0,
        response_schema_str: '',
        binary_encoded_response: '',
        json_encoded_response: JSON.stringify({ ...columns, column_headers: r.headers, column_datatypes: r.types }),
        total_number_of_records: r.rows.length,
        has_more_records: offset + limit < r.rows.length,
        paging_table: '',
        info: {},
      });
    },
    '/show/table': async (body) => {
      const [schema, table] = String(body.table_name ?? '').split('.');
      const r = await query(`SELECT table_name FROM information_schema.tables WHERE table_catalog = 'kinetica' AND table_schema = $1 ${table ? 'AND table_name = $2' : ''} ORDER BY 1`, table ? [schema!, table] : [schema!]);
      if (!r.rows.length) throw new Error(`Table/schema ${String(body.table_name)} does not exist`);
      const names = r.rows.map((row) => `${schema}.${String(row[0])}`);
      return envelope('show_table_response', { table_name: body.table_name, table_names: names, table_descriptions: names.map(() => []), sizes: names.map(() => 0), full_sizes: names.map(() => 0), additional_info: names.map(() => ({})), info: {} });
    },
    '/show/resourcegroups': async () => envelope('show_resource_groups_response', { groups: [{ name: 'kinetica_system_resource_group' }, { name: 'kinetica_default_resource_group' }], info: {} }),
    '/get/records': async (body) => {
      const r = await query(`SELECT * FROM ${String(body.table_name).split('.').map((p) => `"${p.replaceAll('"', '""')}"`).join('.')} LIMIT ${Number(body.limit ?? 100)} OFFSET ${Number(body.offset ?? 0)}`, []);
      return envelope('get_records_response', { table_name: body.table_name, type_name: '', type_schema: '', records_binary: [], records_json: r.rows.map((row) => JSON.stringify(Object.fromEntries(r.headers.map((h, i) => [h, row[i]])))), total_number_of_records: r.rows.length, has_more_records: false, info: {} });
    },
    '/create/table': async (body) => {
      if (String(body.table_name).startsWith('fail')) throw new Error(`Type ${String(body.type_id)} does not exist`);
      return envelope('create_table_response', { table_name: body.table_name, type_id: body.type_id, is_collection: false, info: {} });
    },
    '/clear/table': async (body) => envelope('clear_table_response', { table_name: body.table_name, info: {} }),
    '/drop/schema': async (body) => envelope('drop_schema_response', { schema_name: body.schema_name, info: {} }),
  };

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const expected = `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString('base64')}`;
        if (req.headers.authorization !== expected) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="GPUdb"' });
          return res.end('Unauthorized');
        }
        const endpoint = new URL(req.url ?? '/', 'http://x').pathname;
        const handler = req.method === 'POST' ? endpoints[endpoint] : undefined;
        if (!handler) return send(404, failure(`Unknown endpoint ${endpoint}`));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        requests.push({ endpoint, body });
        try {
          send(200, await handler(body));
        } catch (e) {
          send(400, failure((e as Error).message.split('\n')[0]!));
        }
      })();
    });
  });
  const { port, close } = await listenOnLoopback(server, db);
  return { url: `http://127.0.0.1:${port}`, port, requests, close };
}
