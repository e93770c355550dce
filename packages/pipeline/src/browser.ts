/** Browser-safe entry: validation, parsing, compiling (no DuckDB / pg). */
export { StudioError } from '@studio/schema';
export { validatePipeline, checkPipeline, MAX_PIPELINE_DEPTH, type CheckResult } from './validate';
export { NODE_SPECS, NODE_TYPES, TIME_INTERVALS, SPATIAL_PREDICATES, POLYGON_AGGREGATES, MAX_NEAREST_K, type NodeType, type PipelineNode, type NodeOf } from './nodes';
export { parseExpression, parseItem, parseSortKey } from './expr/parse';
export type { Expr, Item, SortKey } from './expr/ast';
export { FUNCTIONS, DATE_UNITS } from './expr/functions';
export {
  compilePipeline,
  DIALECTS,
  type CompileContext,
  type CompiledQuery,
  type DatasetResolver,
  type QueryResolver,
} from './compile/pipeline';
export type { Dialect, SqlType } from './compile/dialect';
export type { TileSource, TileResolver, TileCols } from './compile/tiles';
export { duckdb as duckdbDialect } from './compile/duckdb';
export { postgres as postgresDialect } from './compile/postgres';
export { WAREHOUSE_DIALECTS } from './compile/warehouses';
export { hexifyCells, MAX_HEXIFY_CELLS } from './compile/hexify';
export { TEMP_VIEW_TTL_SECONDS, TEMP_VIEW_SQL_LIMIT, tempViewName, sanitizeTableName } from './temp';
