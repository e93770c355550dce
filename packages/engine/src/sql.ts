// DuckDB's quoting lives in @studio/schema (duckdb-sql.ts), so packages without the engine quote the same way.
export { quoteIdent, quoteLiteral } from '@studio/schema';
