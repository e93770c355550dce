/**
 * Column statistics of an ingested Parquet file. Null counts and min/max come free from the COPY itself
 * (`RETURN_STATS`); one aggregate query adds means and distinct counts, and nested columns' null counts.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from './sql';
import { isNumeric, isOrderable, isScalar, plain, specType, type IngestColumn } from './types';

/** Per top-level column (keyed by quoted name, as DuckDB prints it): min, max, null_count … as text. */
export interface CopyStats {
  rowCount: number;
  columns: Map<string, Record<string, string>>;
}

type MapValue = { key: unknown; value: unknown }[] | Record<string, unknown>;
const entries = (m: unknown): [string, unknown][] =>
  Array.isArray(m)
    ? (m as { key: unknown; value: unknown }[]).map((e) => [String(e.key), e.value])
    : Object.entries((m ?? {}) as MapValue);

/** Reads the rows `COPY … (FORMAT parquet, RETURN_STATS true)` returns. */
export function parseCopyStats(rows: Record<string, unknown>[]): CopyStats {
  let rowCount = 0;
  const columns = new Map<string, Record<string, string>>();
  for (const r of rows) {
    rowCount += Number(r.count ?? 0);
    for (const [col, stats] of entries(r.column_statistics)) {
      columns.set(col, Object.fromEntries(entries(stats).map(([k, v]) => [k, String(v)])));
    }
  }
  return { rowCount, columns };
}

// Exact distinct counts are affordable on small files; HyperLogLog (off by up to ~25% on some doubles) beyond.
const EXACT_DISTINCT_ROWS = 200_000;
// HyperLogLog over every column was half the stats time on 1M rows; on big files, continuous columns (floats,
// timestamps), where a distinct count says little, go without.
const CONTINUOUS = new Set(['FLOAT', 'DOUBLE', 'TIMESTAMP']);

/** min/max text from the Parquet writer -> the value reported (numbers as numbers when exact). */
function bound(c: IngestColumn, text: string | undefined): number | string | undefined {
  if (text === undefined || !isOrderable(c.type)) return undefined;
  if (!isNumeric(c.type)) return text; // DATE / TIMESTAMP: DuckDB's text form
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  return (c.type === 'BIGINT' || c.type === 'INTEGER') && !Number.isSafeInteger(n) ? text : n;
}

export async function statsOf(conn: DuckDBConnection, parquet: string, copy: CopyStats) {
  const src = `read_parquet(${quoteLiteral(parquet)})`;
  const desc = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJS();
  const columns: IngestColumn[] = desc.map((d) => ({
    name: String(d.column_name),
    duckdbType: String(d.column_type),
    type: specType(String(d.column_type)),
    stats: { nullCount: 0 },
  }));
  const { rowCount } = copy;
  const exact = rowCount <= EXACT_DISTINCT_ROWS;
  const exprs: string[] = [];
  columns.forEach((c, i) => {
    const q = quoteIdent(c.name);
    const written = copy.columns.get(q);
    if (written?.null_count !== undefined) {
      c.stats.nullCount = Number(written.null_count);
      const min = bound(c, written.min);
      const max = bound(c, written.max);
      if (min !== undefined) c.stats.min = min;
      if (max !== undefined) c.stats.max = max;
    } else {
      exprs.push(`count(${q}) AS c${i}`); // nested columns: the writer reports their leaves only
    }
    if (isNumeric(c.type)) exprs.push(`avg(${q}) AS mean${i}`);
    if (exact && isScalar(c.type)) exprs.push(`count(DISTINCT ${q}) AS d${i}`);
    else if (isScalar(c.type) && !CONTINUOUS.has(c.type)) exprs.push(`approx_count_distinct(${q}) AS d${i}`);
  });
  if (exprs.length && rowCount > 0) {
    const row = (await conn.runAndReadAll(`SELECT ${exprs.join(', ')} FROM ${src}`)).getRowObjectsJS()[0]!;
    columns.forEach((c, i) => {
      if (row[`c${i}`] !== undefined) c.stats.nullCount = rowCount - Number(row[`c${i}`]);
      const mean = plain(row[`mean${i}`]);
      if (typeof mean === 'number') c.stats.mean = mean;
      if (row[`d${i}`] !== undefined) c.stats.distinctCount = Number(row[`d${i}`]);
    });
  } else if (rowCount === 0) {
    for (const c of columns) if (isScalar(c.type)) c.stats.distinctCount = 0;
  }
  const sample = (await conn.runAndReadAll(`SELECT * FROM ${src} LIMIT 200`)).getRowObjectsJS() as Record<
    string,
    unknown
  >[];
  return { rowCount, columns, sample };
}
