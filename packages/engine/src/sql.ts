/** DuckDB identifier quoting: the one place identifiers enter SQL text. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A string literal. Only for values DuckDB cannot take as a prepared parameter (COPY targets, file paths
 * in table functions); they are paths the engine built itself, never raw user text.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('NUL in SQL literal');
  return `'${value.replace(/'/g, "''")}'`;
}
