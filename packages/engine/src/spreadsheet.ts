import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from './sql';

/**
 * CSV for people (OWASP "CSV injection"): a spreadsheet runs a cell that starts with one of these as a formula
 * (`=HYPERLINK(...)` that sends what it is given elsewhere, `@SUM(...)`, `+cmd|...`). In the spreadsheet-safe
 * form such text gets a leading apostrophe, which the spreadsheet shows as text. The one rule of the studio: the
 * audit export's fields (JS) and the engine's CSV downloads (SQL) both read it from here.
 */
export const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r'] as const;

/** The text as it goes into a spreadsheet-safe CSV: prefixed with an apostrophe when it starts like a formula. */
export const spreadsheetText = (text: string): string => ((FORMULA_STARTS as readonly string[]).includes(text.charAt(0)) ? `'${text}` : text);

/** Text-valued columns: what a spreadsheet could read as a formula. Numbers stay numbers (-5 is not neutralised). */
const TEXT_TYPES = new Set<DuckDBTypeId>([DuckDBTypeId.VARCHAR, DuckDBTypeId.ENUM]);

const STARTS_SQL = FORMULA_STARTS.map((c) => (c === '\t' ? 'chr(9)' : c === '\r' ? 'chr(13)' : quoteLiteral(c))).join(', ');

/**
 * The query's rows with every text cell and every column name as `spreadsheetText` makes them, for DuckDB's COPY
 * to write. Columns are renamed by position first (`q(c0, c1, …)`), so names that repeat or need quoting cannot
 * collide with the outer select. Other types pass untouched; nested values are written as `[…]`/`{…}`, which no
 * spreadsheet reads as a formula.
 */
export function spreadsheetSafeSql(sql: string, names: string[], types: DuckDBType[]): string {
  const positional = names.map((_, i) => `c${i}`);
  const columns = names.map((name, i) => {
    const ref = `q.${positional[i]}`;
    const value = TEXT_TYPES.has(types[i]!.typeId)
      ? `CASE WHEN left(CAST(${ref} AS VARCHAR), 1) IN (${STARTS_SQL}) THEN '''' || CAST(${ref} AS VARCHAR) ELSE CAST(${ref} AS VARCHAR) END`
      : ref;
    return `${value} AS ${quoteIdent(spreadsheetText(name))}`;
  });
  if (!columns.length) return sql;
  return `SELECT ${columns.join(', ')} FROM (${sql}) AS q(${positional.join(', ')})`;
}
