import type { DuckDBConnection } from '@duckdb/node-api';
import { StudioError, badInput } from '@studio/schema';
import { mapSpatialCall, planSpatialJoins } from '@studio/spatial';

/**
 * The first wall around user SQL: its parsed form is rewritten, never its text. DuckDB parses the
 * statement into a JSON AST (`json_serialize_sql`, which only accepts SELECT), we walk it, refuse table
 * functions and functions that reach outside the studio, replace every table name that is not a CTE in
 * scope by `read_parquet` of the dataset file it names (which the caller must be allowed to read), and
 * DuckDB turns the checked AST back into SQL (`json_deserialize_sql`). The second wall is where the SQL
 * runs: an instance that can read only those files (locked-instances.ts).
 */

/** Functions that read files, settings or the environment, or run other SQL. */
const DENIED_FUNCTION = /^(read_|glob$|getenv$|current_setting$|sniff_csv$|parquet_|duckdb_|pragma_|query$|query_table$|iceberg_|delta_|load|install|export_|import_|checkpoint|sqlite_|postgres_|mysql_|which_secret|file)/i;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/**
 * JSON.parse keeps no trace of how a number was written, and `1e6` or `2.0` came back from JSON.stringify as `1000000`
 * and `2`, which json_deserialize_sql refuses for a DOUBLE constant ("expected type 'double', but got type: 'uint'").
 * Numbers written with a point or an exponent are kept as their source text (JSON.rawJSON, Node 22), and written back
 * as they came.
 */
const RawJson = JSON as unknown as { rawJSON(text: string): object; isRawJSON(v: unknown): boolean };
const keepFloats = (_key: string, value: unknown, context?: { source?: string }) =>
  typeof value === 'number' && context?.source && /[.eE]/.test(context.source) ? RawJson.rawJSON(context.source) : value;

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !RawJson.isRawJSON(v);

/** Resolves a table name written in the query to the absolute path of a Parquet file, or throws. */
export type TableResolver = (name: string) => Promise<string>;

/** User SQL after the rewrite: the SQL to run and the dataset files it reads, by the names the user wrote. */
export interface SandboxedQuery {
  sql: string;
  /** Table name as written → absolute Parquet path. */
  files: Map<string, string>;
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

interface Walk {
  resolve: TableResolver;
  files: Map<string, string>;
}

/** CTE names of a query node's WITH, in order, and whether each is recursive (may name itself). */
function ctesOf(node: Obj): { name: string; query: Json; recursive: boolean }[] {
  const cte = node.cte_map;
  if (!isObj(cte) || !Array.isArray(cte.map)) return [];
  return cte.map.filter(isObj).flatMap((e) => {
    if (typeof e.key !== 'string' || !isObj(e.value)) return [];
    const query = e.value.query ?? null;
    const inner = isObj(query) && isObj(query.node) ? query.node : null;
    return [{ name: e.key.toLowerCase(), query, recursive: inner?.type === 'RECURSIVE_CTE_NODE' && String(inner.cte_name).toLowerCase() === e.key.toLowerCase() }];
  });
}

/**
 * Rewrites one node with `scope`, the CTE names visible there. A CTE name is visible in the query that
 * declares it, in the CTEs declared after it in the same WITH, and in its own body only when recursive;
 * nowhere else. A name outside that scope is a dataset, whatever a CTE elsewhere in the query is called.
 */
async function rewrite(node: Json | undefined, scope: ReadonlySet<string>, w: Walk): Promise<Json> {
  if (Array.isArray(node)) return Promise.all(node.map((n) => rewrite(n, scope, w)));
  if (!isObj(node)) return node ?? null;
  if (node.type === 'TABLE_FUNCTION') {
    const fn = isObj(node.function) ? String(node.function.function_name) : 'unknown';
    throw badInput(`Table functions are not allowed in queries: ${fn}`);
  }
  if (node.class === 'FUNCTION' && typeof node.function_name === 'string') {
    if (DENIED_FUNCTION.test(node.function_name) || (node.schema && node.schema !== '') || (node.catalog && node.catalog !== '')) {
      throw badInput(`Function not allowed in queries: ${node.function_name}`);
    }
    // PostGIS calls JS cannot register as written (ST_Union over rows, ST_GeomFromWKB): @studio/spatial maps them.
    const mapped = mapSpatialCall(node);
    if (mapped !== node) return rewrite(mapped, scope, w);
  }
  if (node.type === 'BASE_TABLE' && typeof node.table_name === 'string') {
    const name = node.table_name;
    if ((node.schema_name && node.schema_name !== '') || (node.catalog_name && node.catalog_name !== '')) throw badInput(`Unknown table ${node.schema_name}.${name}`);
    if (node.at_clause) throw badInput('Time travel (AT) is not allowed in queries');
    if (!scope.has(name.toLowerCase())) {
      let path = w.files.get(name);
      if (!path) {
        path = await w.resolve(name);
        w.files.set(name, path);
      }
      return readParquetNode(path, typeof node.alias === 'string' && node.alias ? node.alias : name);
    }
  }
  const ctes = ctesOf(node);
  const inner = ctes.length ? new Set([...scope, ...ctes.map((c) => c.name)]) : scope;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'query_location') out[k] = 0;
    else if (k === 'cte_map' && ctes.length) out[k] = await rewriteCteMap(v as Obj, ctes, scope, w);
    else out[k] = await rewrite(v, inner, w);
  }
  return out;
}

async function rewriteCteMap(cteMap: Obj, ctes: ReturnType<typeof ctesOf>, scope: ReadonlySet<string>, w: Walk): Promise<Json> {
  const entries = (cteMap.map as Json[]).filter(isObj);
  const map: Json[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const visible = new Set([...scope, ...ctes.slice(0, i).map((c) => c.name), ...(ctes[i]!.recursive ? [ctes[i]!.name] : [])]);
    const value = entry.value as Obj;
    const rewritten: Obj = {};
    for (const [k, v] of Object.entries(value)) rewritten[k] = k === 'query' ? await rewrite(v, visible, w) : await rewrite(v, scope, w);
    map.push({ ...entry, value: rewritten });
  }
  return { ...cteMap, map };
}

/** Answers the safe SQL for `query`, or a 422 that says what was refused. */
export async function rewriteSql(connection: DuckDBConnection, query: string, resolve: TableResolver): Promise<SandboxedQuery> {
  const parsed = await connection.runAndReadAll('select json_serialize_sql($1::varchar) as ast', [query]);
  const text = String(parsed.getRows()[0]?.[0] ?? '');
  // query_location can be 2^64-1, beyond a double: zero them in the text before parsing.
  const ast = JSON.parse(text.replace(/"query_location":\d+/g, '"query_location":0'), keepFloats as (k: string, v: unknown) => unknown) as Obj;
  if (ast.error) throw badInput(`Could not parse query: ${String(ast.error_message ?? 'only SELECT statements are allowed')}`);
  const statements = ast.statements;
  if (!Array.isArray(statements) || statements.length !== 1) throw badInput('Exactly one SELECT statement is allowed');
  const w: Walk = { resolve, files: new Map() };
  const safe = await rewrite(ast, new Set(), w);
  // Joins on a spatial predicate become hash joins on grid keys (@studio/spatial's planner), after the checks: the plan
  // reads only the relations the query reads, through the studio's own functions.
  if (isObj(safe)) planSpatialJoins(safe);
  try {
    const back = await connection.runAndReadAll('select json_deserialize_sql($1::json) as q', [JSON.stringify(safe)]);
    return { sql: String(back.getRows()[0]?.[0]), files: w.files };
  } catch (e) {
    throw new StudioError(422, `Could not parse query: ${(e as Error).message}`);
  }
}
