export type SpecColumnType =
  | 'STRING'
  | 'INTEGER'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DECIMAL'
  | 'BOOLEAN'
  | 'GEOMETRY'
  | 'DATE'
  | 'TIMESTAMP'
  | 'ARRAY'
  | 'STRUCT'
  | 'MAP'
  | 'VARIANT';

export type ColumnRole = 'latitude' | 'longitude' | 'geometry' | 'h3' | 'timestamp';

export interface ColumnStats {
  nullCount: number;
  min?: number | string;
  max?: number | string;
  mean?: number;
  /** Exact up to 200k rows; beyond, a HyperLogLog estimate, and absent for FLOAT/DOUBLE/TIMESTAMP columns. */
  distinctCount?: number;
}

export interface IngestColumn {
  name: string;
  type: SpecColumnType;
  duckdbType: string;
  role?: ColumnRole;
  stats: ColumnStats;
}

/** What ingest's geometry pass did (geometry-repair.ts): geometries changed, by repair, and invalid ones by kind. */
export interface GeometryRepairCounts {
  repaired: number;
  repairs: Partial<Record<'wrapped' | 'closed' | 'duplicates' | 'orientation' | 'cut' | 'pole', number>>;
  invalid: Record<string, number>;
}

export interface IngestResult {
  rowCount: number;
  byteSize: number;
  columns: IngestColumn[];
  detected: Partial<Record<ColumnRole, string>>;
  /** With skipBadRows: how many malformed lines were left out (CSV and TSV); absent otherwise. */
  rejectedRows?: number;
  /** Datasets with a geometry column: what its normalising changed or found invalid; absent when nothing. */
  geometryRepairs?: GeometryRepairCounts;
}

/** DuckDB type text (as DESCRIBE prints it) -> the spec's column type. */
export function specType(duckdbType: string): SpecColumnType {
  const t = duckdbType.toUpperCase().trim();
  if (t.endsWith(']')) return 'ARRAY';
  if (t.startsWith('STRUCT')) return 'STRUCT';
  if (t.startsWith('MAP')) return 'MAP';
  if (t.startsWith('UNION') || t === 'JSON' || t === 'VARIANT') return 'VARIANT';
  if (t.startsWith('DECIMAL')) return 'DECIMAL';
  if (t === 'GEOMETRY') return 'GEOMETRY';
  switch (t) {
    case 'BOOLEAN':
      return 'BOOLEAN';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'UTINYINT':
    case 'USMALLINT':
      return 'INTEGER';
    case 'BIGINT':
    case 'UINTEGER':
    case 'UBIGINT':
    case 'HUGEINT':
    case 'UHUGEINT':
      return 'BIGINT';
    case 'FLOAT':
      return 'FLOAT';
    case 'DOUBLE':
      return 'DOUBLE';
    case 'DATE':
      return 'DATE';
    case 'TIMESTAMP':
    case 'TIMESTAMP_S':
    case 'TIMESTAMP_MS':
    case 'TIMESTAMP_NS':
    case 'TIMESTAMP WITH TIME ZONE':
      return 'TIMESTAMP';
    default:
      return 'STRING';
  }
}

const NUMERIC = new Set(['INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);
export const isNumeric = (t: SpecColumnType) => NUMERIC.has(t);
export const isOrderable = (t: SpecColumnType) => isNumeric(t) || t === 'DATE' || t === 'TIMESTAMP';
export const isScalar = (t: SpecColumnType) => !['ARRAY', 'STRUCT', 'MAP', 'VARIANT'].includes(t);

/** Plain JSON-able value: bigint -> number when exact (else string), Date -> ISO text. */
export function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = plain(x);
    return o;
  }
  return v;
}
