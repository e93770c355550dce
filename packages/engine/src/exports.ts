/**
 * A stored dataset in the formats users take elsewhere: CSV and Arrow (as before), GeoJSON, GeoParquet 1.1
 * (WKB, a bbox covering column, rows in Hilbert order: geoparquet.ts), FlatGeobuf (export-flatgeobuf.ts), GeoPackage, KML and Shapefile (export-*.ts). Geometry comes from the dataset's detected location — its
 * geometry column (GeoJSON or WKT text) or its latitude/longitude pair — through two scalar functions the
 * engine registers (studio_geometry_geojson, studio_geometry_wkt): DuckDB's own GEOMETRY type reads WKT,
 * and the text kept here may be either.
 */
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { DuckDBScalarFunction, VARCHAR, type DuckDBConnection, type DuckDBDataChunk } from '@duckdb/node-api';
import type { Geometry } from 'geojson';
import { DATASET_DOWNLOAD_EXTENSIONS, DATASET_DOWNLOAD_FORMATS, type DatasetDownloadFormat } from '@studio/schema';
import { parseGeometry, toWkt } from './geometry-text';
import { writeGeoParquet } from './geoparquet';
import { quoteIdent, quoteLiteral } from './sql';
import { removeQuietly } from './store';
import type { StreamOptions } from './stream';
import type { PooledConnection } from './pool';

/** The shared schema's list (the API validates `?format=` with it). */
export const EXPORT_FORMATS = DATASET_DOWNLOAD_FORMATS;
export type ExportFormat = DatasetDownloadFormat;

/** The media type each format is answered with, and the extension of its file name (DATASET_DOWNLOAD_EXTENSIONS). */
const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  geojson: 'application/geo+json',
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
  flatgeobuf: 'application/flatgeobuf',
  gpkg: 'application/geopackage+sqlite3',
  kml: 'application/vnd.google-earth.kml+xml',
  shapefile: 'application/zip',
};
export const EXPORTS = Object.fromEntries(
  DATASET_DOWNLOAD_FORMATS.map((f) => [f, { mediaType: MEDIA_TYPES[f], extension: DATASET_DOWNLOAD_EXTENSIONS[f] }]),
) as Record<ExportFormat, { mediaType: string; extension: string }>;

/** Where a dataset's rows are: the columns ingestion detected (metadata.detected). */
/** What the catalog recorded of a dataset at ingestion: its column names and row count (null when not counted). */
export interface ExportShape {
  columns: string[];
  rowCount: number | null;
}

export interface ExportLocation {
  geometry?: string;
  latitude?: string;
  longitude?: string;
}

/** Registers studio_geometry_geojson(VARCHAR) and studio_geometry_wkt(VARCHAR): null for text that is neither. */
export function registerGeometryFunctions(c: DuckDBConnection): void {
  const textFunction = (name: string, convert: (g: Geometry) => string | null) =>
    DuckDBScalarFunction.create({
      name,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR],
      mainFunction: (_info, input, output) => {
        const v = input.getColumnVector(0);
        for (let i = 0; i < input.rowCount; i++) {
          const text = v.getItem(i) as string | null;
          const g = text === null ? null : parseGeometry(text);
          output.setItem(i, g ? convert(g) : null);
        }
        output.flush();
      },
    });
  c.registerScalarFunction(textFunction('studio_geometry_geojson', (g) => JSON.stringify(g)));
  c.registerScalarFunction(textFunction('studio_geometry_wkt', toWkt));
}

/** SQL of a row's geometry as WKT (GeoJSON text when `as` is 'geojson'), null where it has none. */
export function geometrySql(loc: ExportLocation, as: 'wkt' | 'geojson'): string | null {
  if (loc.geometry) return `studio_geometry_${as}(CAST(${quoteIdent(loc.geometry)} AS VARCHAR))`;
  if (!loc.latitude || !loc.longitude) return null;
  const lat = `CAST(${quoteIdent(loc.latitude)} AS DOUBLE)`;
  const lng = `CAST(${quoteIdent(loc.longitude)} AS DOUBLE)`;
  const text =
    as === 'wkt'
      ? `'POINT (' || CAST(${lng} AS VARCHAR) || ' ' || CAST(${lat} AS VARCHAR) || ')'`
      : `'{"type":"Point","coordinates":[' || CAST(${lng} AS VARCHAR) || ',' || CAST(${lat} AS VARCHAR) || ']}'`;
  return `CASE WHEN isfinite(${lat}) AND isfinite(${lng}) THEN ${text} END`;
}

/** A free column name for a geometry added beside the existing columns. */
function freeName(columns: string[], wanted: string): string {
  const taken = new Set(columns.map((c) => c.toLowerCase()));
  let name = wanted;
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${wanted}_${i}`;
  return name;
}

/**
 * GeoParquet: the stored columns with the geometry (geoparquet.ts writes it as WKB with the GeoParquet 1.1
 * metadata) — in place of the geometry column, or added as `geometry` beside a latitude/longitude
 * pair. Answers the query and its geometry column; a dataset without a location is plain Parquet (no column).
 */
export function geoparquetSql(file: string, columns: string[], loc: ExportLocation): { sql: string; column?: string } {
  const wkt = geometrySql(loc, 'wkt');
  const from = `FROM read_parquet(${quoteLiteral(file)})`;
  if (!wkt) return { sql: `SELECT * ${from}` };
  // The geometry column as it is stored: the writer reads GeoJSON and WKT text, WKB and GEOMETRY.
  if (loc.geometry) return { sql: `SELECT * ${from}`, column: loc.geometry };
  const column = freeName(columns, 'geometry');
  return { sql: `SELECT *, ${wkt} AS ${quoteIdent(column)} ${from}`, column };
}

/**
 * Each row as a GeoJSON Feature's text: the geometry (null without one) and every other column as a
 * property (DuckDB's to_json of the row: numbers stay numbers, times ISO-like text, nested values JSON).
 * The geometry rides in the row under a name of the engine's own, taken out of the properties again.
 */
export function featureSql(file: string, columns: string[], loc: ExportLocation): string {
  const geojson = geometrySql(loc, 'geojson') ?? 'NULL';
  const g = freeName(columns, '__studio_geometry');
  const rest = loc.geometry ? ` EXCLUDE (${quoteIdent(loc.geometry)})` : '';
  return `SELECT '{"type":"Feature","properties":' || CAST(json_merge_patch(to_json(q), ${quoteLiteral(JSON.stringify({ [g]: null }))}) AS VARCHAR)
      || ',"geometry":' || coalesce(q.${quoteIdent(g)}, 'null') || '}' AS feature
    FROM (SELECT *${rest}, ${geojson} AS ${quoteIdent(g)} FROM read_parquet(${quoteLiteral(file)})) q`;
}

/** A query's result a DuckDB chunk at a time, interrupted when `signal` aborts (the connection is given back at the end). */
export async function* queryChunks(acquire: () => Promise<PooledConnection>, sql: string, signal?: AbortSignal): AsyncGenerator<DuckDBDataChunk> {
  const pooled = await acquire();
  const stop = () => pooled.connection.interrupt();
  signal?.addEventListener('abort', stop, { once: true });
  let next: Promise<DuckDBDataChunk | null> | undefined;
  try {
    const result = await pooled.connection.stream(sql);
    // The next chunk is asked for before this one is handed over, so DuckDB makes it while the consumer works on this
    // one (a Shapefile download of 1M points waited for DuckDB about as long as it worked).
    // Its failure is thrown where it is awaited; until then it must not count as an unhandled rejection.
    const fetch = () => {
      next = result.fetchChunk();
      next.catch(() => null);
    };
    fetch();
    for (;;) {
      const chunk = await next;
      next = undefined;
      if (!chunk || chunk.rowCount === 0) return;
      fetch();
      yield chunk;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    // A fetch still running when the consumer stops holds the connection: wait for it before handing it back.
    await next?.catch(() => null);
    pooled.release();
  }
}

/** Streams the text of a one-column query a chunk at a time. */
async function* textRows(acquire: () => Promise<PooledConnection>, sql: string, signal?: AbortSignal): AsyncGenerator<string[]> {
  for await (const chunk of queryChunks(acquire, sql, signal)) yield chunk.getColumnVector(0).toArray() as string[];
}

/** A download written whole to the temp file `out` by `write` (Parquet, GeoPackage), then streamed and removed. */
export async function* tempFileDownload(out: string, write: () => Promise<unknown>): AsyncGenerator<Uint8Array> {
  try {
    await write();
    const stream = createReadStream(out, { highWaterMark: 1 << 20 });
    try {
      for await (const buf of stream) yield buf as Uint8Array;
    } finally {
      stream.destroy();
    }
  } finally {
    await removeQuietly(out);
  }
}

/** A GeoJSON FeatureCollection, streamed: its features leave as DuckDB makes them. */
export async function* geojsonText(acquire: () => Promise<PooledConnection>, file: string, columns: string[], loc: ExportLocation, opts: StreamOptions = {}): AsyncGenerator<Uint8Array> {
  yield Buffer.from('{"type":"FeatureCollection","features":[\n');
  let first = true;
  for await (const rows of textRows(acquire, featureSql(file, columns, loc), opts.signal)) {
    const text = rows.join(',\n');
    yield Buffer.from(first ? text : `,\n${text}`);
    first = false;
  }
  yield Buffer.from('\n]}\n');
}

/** A Parquet file (GeoParquet 1.1 when the dataset has a location: geoparquet.ts) written by DuckDB, streamed, then removed. */
export async function* parquetFile(acquire: () => Promise<PooledConnection>, tmpDir: string, file: string, columns: string[], loc: ExportLocation, opts: StreamOptions = {}): AsyncGenerator<Uint8Array> {
  const out = path.join(tmpDir, `export-${randomUUID()}.parquet`);
  yield* tempFileDownload(out, async () => {
    const pooled = await acquire();
    const stop = () => pooled.connection.interrupt();
    opts.signal?.addEventListener('abort', stop, { once: true });
    try {
      const { sql, column } = geoparquetSql(file, columns, loc);
      if (column) await writeGeoParquet(pooled.connection, sql, out, { column, compression: 'zstd', tmpDir });
      else await pooled.connection.run(`COPY (${sql}) TO ${quoteLiteral(out)} (FORMAT parquet, COMPRESSION zstd)`);
    } finally {
      opts.signal?.removeEventListener('abort', stop);
      pooled.release();
    }
  });
}
