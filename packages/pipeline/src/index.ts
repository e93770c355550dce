export * from './browser';
// Node-only: DuckDB / pg execution. The "browser" export condition serves browser.ts without these.
export { registerH3Functions } from './h3/duckdb';
export { setH3Workers } from './h3/pool';
export { executeDuckDB, duckdbSql, executePostgres, executePipeline, normalizeValue, duckdbQueryError, type ExecuteTarget, type Row } from './execute';
