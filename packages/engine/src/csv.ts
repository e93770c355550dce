import type { DuckDBConnection } from '@duckdb/node-api';
import { badInput, headerDelimiter, headerFields } from '@studio/schema';
import { fileHead } from './file-head';
import { quoteLiteral } from './sql';

/**
 * Strict CSV: DuckDB's sniffer, left to itself, reads a file it cannot parse cleanly in some other way (no
 * quote character for an unterminated quote, no delimiter for a row with a column too many) and the
 * dataset ends ready with mangled rows. So the dialect is fixed first — the delimiter from the header line,
 * `"` as quote and escape (RFC 4180) — the sniffer only finds the header and the column types from a sample,
 * and the file is then read with that dialect, those columns and strict mode: a malformed row stops the
 * read with its line number (readError turns DuckDB's message into the answer).
 */

/**
 * The CSV reader's buffer per thread. DuckDB's default (32 MB) kept ~100 MB of buffers alive while a 1 GB
 * CSV was copied to Parquet; 8 MB peaked ~100-140 MB lower at the same speed (median ratio 0.97 vs the
 * default, interleaved runs). Still well above the longest line DuckDB accepts by default (2 MB).
 */
export const CSV_BUFFER = `buffer_size = ${8 * 1024 * 1024}`;

/** The header line is looked for in the first bytes; a longer one is read as DuckDB reads it. */
const HEAD_BYTES = 1024 * 1024;

/** Text encodings DuckDB's CSV reader decodes; the studio stores UTF-8. */
export type CsvEncoding = 'utf-8' | 'utf-16' | 'latin-1';

/**
 * What the user set on upload instead of what was detected (CSV and TSV): the delimiter, whether the first
 * line is a header, the text encoding, and column types by column name.
 */
export interface CsvOverrides {
  delimiter?: string;
  header?: boolean;
  encoding?: CsvEncoding;
  columnTypes?: Record<string, string>;
  /** GeoPackage: the layer to read (a file of several layers needs one). */
  layer?: string;
}

/** The DuckDB type each column type a user may choose is read as. */
const DUCKDB_TYPE: Record<string, string> = { STRING: 'VARCHAR', INTEGER: 'INTEGER', BIGINT: 'BIGINT', DOUBLE: 'DOUBLE', BOOLEAN: 'BOOLEAN', DATE: 'DATE', TIMESTAMP: 'TIMESTAMP' };

/**
 * The encoding of a file's first bytes: UTF-16 by its byte-order mark, UTF-8 when they decode as UTF-8
 * (a character cut at the end of the sample is not an error), Latin-1 otherwise — spreadsheet exports on
 * Windows write Windows-1252/Latin-1, whose accented letters are not valid UTF-8.
 */
export function detectEncoding(head: Buffer): CsvEncoding {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return 'utf-8';
  } catch {
    return 'latin-1';
  }
}

/** The file's first bytes as text in their encoding, or 422 when they are not text (NUL bytes: an image or archive named .csv). */
async function headOf(file: string, encoding?: CsvEncoding): Promise<{ head: string; encoding: CsvEncoding }> {
  const bytes = await fileHead(file, HEAD_BYTES);
  const found = encoding ?? detectEncoding(bytes);
  if (found !== 'utf-16' && bytes.subarray(0, 8192).includes(0)) throw badInput('Could not read CSV: the file is binary, not text');
  const head = found === 'utf-16' ? bytes.subarray(2).toString('utf16le') : bytes.toString(found === 'latin-1' ? 'latin1' : 'utf8');
  return { head: head.replace(/^\uFEFF/, ''), encoding: found };
}

/** The temp tables (per connection) DuckDB records rejected lines in: names unique to one ingestion. */
export interface RejectTables {
  errors: string;
  scans: string;
}

/** Where the lines a "skip bad rows" upload left out are kept, beside the dataset's data (`<key>` .parquet). */
export const rejectedLinesKey = (key: string) => key.replace(/\.parquet$/, '') + '.rejected.csv';

/**
 * How many lines the read left out; when some were, they are written to `out` as CSV — line number,
 * column, error type, DuckDB's reason and the line as it was — for the user to download. The tables are
 * dropped after (a pooled connection outlives the ingestion).
 */
export async function collectRejected(conn: DuckDBConnection, rejects: RejectTables, out: string): Promise<number> {
  try {
    const r = await conn.runAndReadAll(`SELECT count(DISTINCT line) AS n FROM ${rejects.errors}`);
    const n = Number(r.getRowObjectsJS()[0]?.n ?? 0);
    if (n > 0) {
      await conn.run(`COPY (SELECT line, column_name AS "column", CAST(error_type AS VARCHAR) AS error, error_message AS reason, csv_line AS text
        FROM ${rejects.errors} ORDER BY line, column_idx) TO ${quoteLiteral(out)} (FORMAT csv, HEADER true)`);
    }
    return n;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${rejects.errors}; DROP TABLE IF EXISTS ${rejects.scans}`);
  }
}

interface Sniffed {
  Delimiter: string;
  HasHeader: boolean;
  Columns: { name: string; type: string }[];
  DateFormat: string | null;
  TimestampFormat: string | null;
}

/**
 * The SELECT that reads `file` as strict CSV; `delimiter` fixed by the content type (TSV), else found; what
 * the user set (`overrides`) wins over both and over the sniffer.
 */
export async function csvSelect(conn: DuckDBConnection, file: string, delimiter: string | null, rejects?: RejectTables, overrides: CsvOverrides = {}): Promise<string> {
  const f = quoteLiteral(file);
  const { head, encoding } = await headOf(file, overrides.encoding);
  const fixed = overrides.delimiter ?? delimiter ?? headerDelimiter(head);
  const decode = encoding === 'utf-8' ? '' : `, encoding = ${quoteLiteral(encoding)}`;
  const header = overrides.header ?? null;
  const dialect = `quote = '"', escape = '"'${fixed ? `, delim = ${quoteLiteral(fixed)}` : ''}${decode}${header === null ? '' : `, header = ${header}`}`;
  const headerNames = headerFields(head, fixed ?? ',');
  const names = header === false ? headerNames.map((_, i) => `column${i}`) : headerNames;
  const asText = (): Sniffed => ({ Delimiter: fixed ?? ',', HasHeader: header ?? true, Columns: names.map((name, i) => ({ name: name || `column${i}`, type: 'VARCHAR' })), DateFormat: null, TimestampFormat: null });
  let sniffed: Sniffed;
  try {
    // Not strict while sniffing, and padding short rows: the sample may hold a malformed row, which the
    // strict read below names; a row too wide only adds columns past the header's, which are dropped.
    const r = await conn.runAndReadAll(`SELECT Delimiter, HasHeader, Columns, DateFormat, TimestampFormat FROM sniff_csv(${f}, ${dialect}, strict_mode = false, null_padding = true)`);
    sniffed = r.getRowObjectsJS()[0] as unknown as Sniffed;
    if (sniffed.Columns.length < names.length) sniffed = asText();
    else sniffed = { ...sniffed, Columns: sniffed.Columns.slice(0, names.length) };
  } catch {
    // The sniffer gives up on a sample it cannot make consistent (a quote left open): the header's names as
    // text, so that the strict read reaches the bad line and says which.
    sniffed = asText();
  }
  const chosen = overrides.columnTypes ?? {};
  const unknown = Object.keys(chosen).filter((name) => !sniffed.Columns.some((c) => c.name === name));
  if (unknown.length) throw badInput(`Column types name ${unknown.length === 1 ? 'a column' : 'columns'} the file does not have: ${unknown.join(', ')}`, `Columns: ${sniffed.Columns.map((c) => c.name).join(', ')}`);
  const columns = sniffed.Columns.map((c) => `${quoteLiteral(c.name)}: ${quoteLiteral(chosen[c.name] ? DUCKDB_TYPE[chosen[c.name]!] ?? 'VARCHAR' : c.type)}`).join(', ');
  const formats = [
    sniffed.DateFormat ? `dateformat = ${quoteLiteral(sniffed.DateFormat)}` : null,
    sniffed.TimestampFormat ? `timestampformat = ${quoteLiteral(sniffed.TimestampFormat)}` : null,
  ].filter(Boolean);
  // "Skip bad rows": malformed lines are left out and recorded in the connection's temp tables (DuckDB's store_rejects).
  const skip = rejects ? `, ignore_errors = true, store_rejects = true, rejects_table = ${quoteLiteral(rejects.errors)}, rejects_scan = ${quoteLiteral(rejects.scans)}` : '';
  return `SELECT * FROM read_csv(${f}, delim = ${quoteLiteral(fixed ?? sniffed.Delimiter)}, quote = '"', escape = '"', header = ${header ?? sniffed.HasHeader}${decode}, columns = {${columns}}, auto_detect = false, strict_mode = true${formats.map((x) => `, ${x}`).join('')}${skip}, ${CSV_BUFFER})`;
}
