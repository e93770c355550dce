import type { DuckDBVector } from '@duckdb/node-api';
import type { Geometry } from 'geojson';
import { quoteIdent, quoteLiteral } from './sql';
import { geometrySql, queryChunks, type ExportLocation } from './exports';
import { vectorValues } from './export-vectors';
import type { PooledConnection } from './pool';

/**
 * A stored dataset's rows for the GIS writers (GeoPackage, Shapefile, KML): its attributes in the few kinds those
 * formats type — integers, reals, booleans, dates, date-times and text — and its geometry as GeoJSON, a
 * DuckDB chunk at a time (memory holds one chunk, never the dataset).
 */
export type AttributeKind = 'integer' | 'real' | 'boolean' | 'date' | 'datetime' | 'text';

export interface Attribute {
  name: string;
  kind: AttributeKind;
}

/** An attribute's value: bigint for integers, number, boolean, or text (dates 'YYYY-MM-DD', date-times ISO 8601 in UTC). */
export type AttributeValue = bigint | number | boolean | string | null;

export interface ExportRow {
  values: AttributeValue[];
  geometry: Geometry | null;
}

function kindOf(duckdbType: string): AttributeKind {
  const t = duckdbType.toUpperCase();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|HUGEINT)$/.test(t)) return 'integer';
  if (/^(FLOAT|DOUBLE|DECIMAL)/.test(t)) return 'real';
  if (t === 'BOOLEAN') return 'boolean';
  if (t === 'DATE') return 'date';
  if (t.startsWith('TIMESTAMP')) return 'datetime';
  return 'text';
}

/** The SQL of an attribute in its kind's plain form. */
function valueSql(name: string, kind: AttributeKind): string {
  const c = quoteIdent(name);
  switch (kind) {
    case 'integer':
      return `TRY_CAST(${c} AS BIGINT)`;
    case 'real':
      return `CAST(${c} AS DOUBLE)`;
    case 'boolean':
      return c;
    case 'date':
      return `CAST(${c} AS VARCHAR)`;
    case 'datetime':
      return `strftime(CAST(${c} AS TIMESTAMP), '%Y-%m-%dT%H:%M:%S.%gZ')`;
    case 'text':
      return `CAST(${c} AS VARCHAR)`;
  }
}

/** The dataset's attributes: every column but its geometry column, each with its kind. */
export async function exportAttributes(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation): Promise<Attribute[]> {
  const pooled = await acquire();
  try {
    const described = (await pooled.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quoteLiteral(file)})`)).getRowObjectsJS();
    return described.map((c) => ({ name: String(c.column_name), kind: kindOf(String(c.column_type)) })).filter((a) => a.name !== loc.geometry);
  } finally {
    pooled.release();
  }
}

/**
 * One DuckDB chunk of the rows, column by column: the attributes' values (`attributes` in order) and the geometry —
 * as longitude/latitude doubles for a dataset located by a pair (`x`, `y`, either null where it has none), or as
 * GeoJSON text (`geojson`). Writers that go row by row without building objects read this (GeoPackage).
 */
export interface ExportColumns {
  rowCount: number;
  /** The attributes' vectors as DuckDB hands them over, for a writer that reads one its own way (TextBytes). */
  vectors: DuckDBVector[];
  /** The attributes' values, made when first asked for. */
  readonly values: ArrayLike<AttributeValue>[];
  x?: ArrayLike<number | null>;
  y?: ArrayLike<number | null>;
  geojson?: (string | null)[];
}

/** The rows' columns a chunk at a time (see ExportColumns); the connection is taken when the first chunk is asked for. */
export async function* exportColumnChunks(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, attributes: Attribute[], signal?: AbortSignal): AsyncGenerator<ExportColumns> {
  // Points from latitude/longitude come as two doubles, not as GeoJSON text to parse again: a third of the time of a
  // download of points went to making and parsing that text.
  const pair = !loc.geometry && loc.latitude && loc.longitude;
  const geometry = pair ? [`CAST(${quoteIdent(loc.longitude!)} AS DOUBLE)`, `CAST(${quoteIdent(loc.latitude!)} AS DOUBLE)`] : [geometrySql(loc, 'geojson') ?? 'NULL'];
  const sql = `SELECT ${[...attributes.map((a) => valueSql(a.name, a.kind)), ...geometry].join(', ')} FROM read_parquet(${quoteLiteral(file)})`;
  const n = attributes.length;
  for await (const chunk of queryChunks(acquire, sql, signal)) {
    const vectors = Array.from({ length: n }, (_, i) => chunk.getColumnVector(i));
    let values: ArrayLike<AttributeValue>[] | undefined;
    const columns: ExportColumns = {
      rowCount: chunk.rowCount,
      vectors,
      get values() {
        return (values ??= vectors.map((v) => vectorValues(v) as ArrayLike<AttributeValue>));
      },
    };
    if (pair) {
      columns.x = vectorValues(chunk.getColumnVector(n)) as ArrayLike<number | null>;
      columns.y = vectorValues(chunk.getColumnVector(n + 1)) as ArrayLike<number | null>;
    } else columns.geojson = chunk.getColumnVector(n).toArray() as (string | null)[];
    yield columns;
  }
}

/** A point's position from a chunk's x/y columns, or null where either is missing or not finite. */
export function pointAt(x: ArrayLike<number | null>, y: ArrayLike<number | null>, r: number): [number, number] | null {
  const [px, py] = [x[r], y[r]];
  return px !== null && px !== undefined && py !== null && py !== undefined && Number.isFinite(px) && Number.isFinite(py) ? [px, py] : null;
}

/**
 * The rows in chunks, `attributes` in order and the geometry from the detected location (a geometry column, or
 * latitude/longitude as points; none: null geometries). The connection is taken when the first chunk is asked for.
 */
export async function* exportRowChunks(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, attributes: Attribute[], signal?: AbortSignal): AsyncGenerator<ExportRow[]> {
  const n = attributes.length;
  for await (const chunk of exportColumnChunks(acquire, file, loc, attributes, signal)) {
    const rows: ExportRow[] = new Array(chunk.rowCount);
    for (let r = 0; r < chunk.rowCount; r++) {
      let g: Geometry | null;
      if (chunk.x && chunk.y) {
        const p = pointAt(chunk.x, chunk.y, r);
        g = p ? { type: 'Point', coordinates: p } : null;
      } else {
        const text = chunk.geojson![r];
        g = text ? (JSON.parse(text) as Geometry) : null;
      }
      const values: AttributeValue[] = new Array(n);
      for (let i = 0; i < n; i++) values[i] = chunk.values[i]![r]!;
      rows[r] = { values, geometry: g };
    }
    yield rows;
  }
}
