import { open } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { badInput } from '@studio/schema';
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

const DELIMITERS = [',', ';', '\t', '|'] as const;
/** The header line is looked for in the first bytes; a longer one is read as DuckDB reads it. */
const HEAD_BYTES = 1024 * 1024;

/** The file's first bytes, or 422 when they are not text (NUL bytes: an image or archive named .csv). */
async function headOf(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    if (head.subarray(0, 8192).includes(0)) throw badInput('Could not read CSV: the file is binary, not text');
    return head.toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The delimiter the header line uses most, outside quotes; null for a one-column file. */
export function headerDelimiter(head: string): string | null {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const ch of head) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (DELIMITERS as readonly string[]).includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (best ? counts.get(best)! : 0)) best = d;
  return best;
}

/** The header line's fields, split on `delim` outside quotes (a quoted `""` is one quote). */
export function headerFields(head: string, delim: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < head.length; i++) {
    const ch = head[i]!;
    if (quoted) {
      if (ch === '"' && head[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delim) {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') break;
    else field += ch;
  }
  fields.push(field);
  return fields;
}

/** The temp tables (per connection) DuckDB records rejected lines in: names unique to one ingestion. */
export interface RejectTables {
  errors: string;
  scans: string;
}

/** How many lines the read left out, then the tables dropped (a pooled connection outlives the ingestion). */
export async function countRejected(conn: DuckDBConnection, rejects: RejectTables): Promise<number> {
  try {
    const r = await conn.runAndReadAll(`SELECT count(DISTINCT line) AS n FROM ${rejects.errors}`);
    return Number(r.getRowObjectsJS()[0]?.n ?? 0);
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

/** The SELECT that reads `file` as strict CSV; `delimiter` fixed by the content type (TSV), else found. */
export async function csvSelect(conn: DuckDBConnection, file: string, delimiter: string | null, rejects?: RejectTables): Promise<string> {
  const f = quoteLiteral(file);
  const head = await headOf(file);
  const fixed = delimiter ?? headerDelimiter(head);
  const dialect = `quote = '"', escape = '"'${fixed ? `, delim = ${quoteLiteral(fixed)}` : ''}`;
  const header = headerFields(head, fixed ?? ',');
  const asText = (): Sniffed => ({ Delimiter: fixed ?? ',', HasHeader: true, Columns: header.map((name, i) => ({ name: name || `column${i}`, type: 'VARCHAR' })), DateFormat: null, TimestampFormat: null });
  let sniffed: Sniffed;
  try {
    // Not strict while sniffing, and padding short rows: the sample may hold a malformed row, which the
    // strict read below names; a row too wide only adds columns past the header's, which are dropped.
    const r = await conn.runAndReadAll(`SELECT Delimiter, HasHeader, Columns, DateFormat, TimestampFormat FROM sniff_csv(${f}, ${dialect}, strict_mode = false, null_padding = true)`);
    sniffed = r.getRowObjectsJS()[0] as unknown as Sniffed;
    if (sniffed.Columns.length < header.length) sniffed = asText();
    else sniffed = { ...sniffed, Columns: sniffed.Columns.slice(0, header.length) };
  } catch {
    // The sniffer gives up on a sample it cannot make consistent (a quote left open): the header's names as
    // text, so that the strict read reaches the bad line and says which.
    sniffed = asText();
  }
  const columns = sniffed.Columns.map((c) => `${quoteLiteral(c.name)}: ${quoteLiteral(c.type)}`).join(', ');
  const formats = [
    sniffed.DateFormat ? `dateformat = ${quoteLiteral(sniffed.DateFormat)}` : null,
    sniffed.TimestampFormat ? `timestampformat = ${quoteLiteral(sniffed.TimestampFormat)}` : null,
  ].filter(Boolean);
  // "Skip bad rows": malformed lines are left out and recorded in the connection's temp tables (DuckDB's store_rejects).
  const skip = rejects ? `, ignore_errors = true, store_rejects = true, rejects_table = ${quoteLiteral(rejects.errors)}, rejects_scan = ${quoteLiteral(rejects.scans)}` : '';
  return `SELECT * FROM read_csv(${f}, delim = ${quoteLiteral(fixed ?? sniffed.Delimiter)}, quote = '"', escape = '"', header = ${sniffed.HasHeader}, columns = {${columns}}, auto_detect = false, strict_mode = true${formats.map((x) => `, ${x}`).join('')}${skip}, ${CSV_BUFFER})`;
}
