import type { DuckDBConnection } from '@duckdb/node-api';
import { planSpatialJoins, type AstNode } from './plan';

/**
 * For SQL the studio writes itself (the pipeline's spatial-join steps): the same plan as user SQL gets, through
 * DuckDB's own parser and printer. SQL that json_serialize_sql refuses (not a SELECT) comes back unchanged.
 */
const RawJson = JSON as unknown as { rawJSON(text: string): object };
/** Numbers written with a point or an exponent keep their text: json_deserialize_sql refuses `2` for a DOUBLE constant. */
const keepFloats = (_k: string, v: unknown, context?: { source?: string }) => (typeof v === 'number' && context?.source && /[.eE]/.test(context.source) ? RawJson.rawJSON(context.source) : v);

export async function planSpatialJoinSql(connection: DuckDBConnection, sql: string): Promise<string> {
  const parsed = await connection.runAndReadAll('select json_serialize_sql($1::varchar)', [sql]);
  const ast = JSON.parse(String(parsed.getRows()[0]?.[0] ?? '{}').replace(/"query_location":\d+/g, '"query_location":0'), keepFloats as (k: string, v: unknown) => unknown) as AstNode;
  if (ast.error || !planSpatialJoins(ast)) return sql;
  const back = await connection.runAndReadAll('select json_deserialize_sql($1::json)', [JSON.stringify(ast)]);
  return String(back.getRows()[0]?.[0]);
}
