import type { DuckDBConnection } from '@duckdb/node-api';
import { StudioError, badInput } from '@studio/schema';

/**
 * User-written SQL over datasets, made safe by rewriting its parsed form, never its text:
 * DuckDB parses the statement into a JSON AST (`json_serialize_sql`, which only accepts SELECT), we
 * walk it, refuse table functions and functions that reach outside the studio, replace every table
 * name by the Parquet file of the dataset it names (which the caller must be allowed to read), and
 * DuckDB turns the checked AST back into SQL (`json_deserialize_sql`).
 */

/** Functions that read files, settings or the environment, or run other SQL. */
const DENIED_FUNCTION = /^(read_|glob$|getenv$|current_setting$|sniff_csv$|parquet_|duckdb_|pragma_|query$|query_table$|iceberg_|delta_|load|install|export_|import_|checkpoint|sqlite_|postgres_|mysql_)/i;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves a table name written in the query to the absolute path of a Parquet file, or throws. */
export type TableResolver = (name: string) => Promise<string>;

function collectCteNames(node: Json | undefined, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => collectCteNames(n, out));
  else if (isObj(node)) {
    const cte = node.cte_map;
    if (isObj(cte) && Array.isArray(cte.map)) for (const e of cte.map) if (isObj(e) && typeof e.key === 'string') out.add(e.key.toLowerCase());
    for (const v of Object.values(node)) collectCteNames(v, out);
  }
  return out;
}

function readParquetNode(path: string, alias: string): Obj {
  return {
    type: 'TABLE_FUNCTION',
    alias,
    sample: null,
    query_location: 0,
    function: {
      class: 'FUNCTION', type: 'FUNCTION', alias: '', query_location: 0, function_name: 'read_parquet', schema: '', catalog: '',
      children: [{ class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value: path } }],
      filter: null, order_bys: { type: 'ORDER_MODIFIER', orders: [] }, distinct: false, is_operator: false, export_state: false,
    },
    column_name_alias: [],
    with_ordinality: 'WITHOUT_ORDINALITY',
  };
}

async function rewrite(node: Json | undefined, cteNames: Set<string>, resolve: TableResolver, resolved: Map<string, string>): Promise<Json> {
  if (Array.isArray(node)) return Promise.all(node.map((n) => rewrite(n, cteNames, resolve, resolved)));
  if (!isObj(node)) return node ?? null;
  if (node.type === 'TABLE_FUNCTION') {
    const fn = isObj(node.function) ? String(node.function.function_name) : 'unknown';
    throw badInput(`Table functions are not allowed in queries: ${fn}`);
  }
  if (node.class === 'FUNCTION' && typeof node.function_name === 'string') {
    if (DENIED_FUNCTION.test(node.function_name) || (node.schema && node.schema !== '')) throw badInput(`Function not allowed in queries: ${node.function_name}`);
  }
  if (node.type === 'BASE_TABLE' && typeof node.table_name === 'string') {
    const name = node.table_name;
    if ((node.schema_name && node.schema_name !== '') || (node.catalog_name && node.catalog_name !== '')) throw badInput(`Unknown table ${node.schema_name}.${name}`);
    if (!cteNames.has(name.toLowerCase())) {
      let path = resolved.get(name);
      if (!path) {
        path = await resolve(name);
        resolved.set(name, path);
      }
      return readParquetNode(path, typeof node.alias === 'string' && node.alias ? node.alias : name);
    }
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'query_location' ? 0 : await rewrite(v, cteNames, resolve, resolved);
  return out;
}

/** Answers the safe SQL for `query`, or a 422 that says what was refused. */
export async function sandboxSql(connection: DuckDBConnection, query: string, resolve: TableResolver): Promise<{ sql: string; tables: string[] }> {
  const parsed = await connection.runAndReadAll('select json_serialize_sql($1::varchar) as ast', [query]);
  const text = String(parsed.getRows()[0]?.[0] ?? '');
  // query_location can be 2^64-1, beyond a double: zero them in the text before parsing.
  const ast = JSON.parse(text.replace(/"query_location":\d+/g, '"query_location":0')) as Obj;
  if (ast.error) throw badInput(`Could not parse query: ${String(ast.error_message ?? 'only SELECT statements are allowed')}`);
  const statements = ast.statements;
  if (!Array.isArray(statements) || statements.length !== 1) throw badInput('Exactly one SELECT statement is allowed');
  const resolved = new Map<string, string>();
  const safe = await rewrite(ast, collectCteNames(ast, new Set()), resolve, resolved);
  try {
    const back = await connection.runAndReadAll('select json_deserialize_sql($1::json) as q', [JSON.stringify(safe)]);
    return { sql: String(back.getRows()[0]?.[0]), tables: [...resolved.keys()] };
  } catch (e) {
    throw new StudioError(422, `Could not parse query: ${(e as Error).message}`);
  }
}
