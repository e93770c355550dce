/**
 * DuckDB's quoting, the one place for it (also what PostgreSQL takes): every package that writes DuckDB SQL text
 * quotes identifiers and the few literals parameters cannot carry (file paths of COPY and table functions, ATTACH
 * targets, SET values) with these two.
 */

/** An identifier in double quotes, inner quotes doubled. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A string literal. Only for values DuckDB cannot take as a prepared parameter (COPY targets, file paths in table
 * functions, ATTACH and SET); never raw user text where a parameter would do. A NUL would end the literal early in
 * DuckDB's parser, so it is refused.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('NUL in SQL literal');
  return `'${value.replace(/'/g, "''")}'`;
}
