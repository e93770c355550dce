import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { BLOB, DOUBLE, VARCHAR, DuckDBAnyType, DuckDBScalarFunction, DuckDBTypeId, blobValue, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { hilbertOfLngLat, readWkb, writeWkb, type Shape } from '@studio/spatial';
import { parseGeometry } from './geometry-text';
import { quoteIdent, quoteLiteral } from './sql';
import { removeQuietly } from './store';

/**
 * GeoParquet 1.1 written from a query with a geometry column: the geometry as 2D ISO WKB (from GeoJSON or WKT text,
 * or WKB / GEOMETRY as it is), a bbox covering struct column beside it (`<column>_bbox`: xmin, ymin, xmax, ymax,
 * declared in the `geo` metadata's `covering`), and rows in the Hilbert order of their boxes' centres so each row
 * group holds one part of the map: a reader filtering on the bbox column skips row groups whose min/max statistics
 * miss its box. DuckDB reads the file's geometry as GEOMETRY ('OGC:CRS84'); its own writer states GeoParquet 1.0.0
 * with no covering, so the column is written as a BLOB and the `geo` metadata is ours (KV_METADATA).
 */

export const GEOPARQUET_VERSION = '1.1.0';

/** Rows per row group: small enough that a city's rows fill a few groups of a country-sized dataset. */
export const GEOPARQUET_ROW_GROUP = 32768;

/** OGC:CRS84 (WGS 84 longitude/latitude) as GeoParquet states a CRS: PROJJSON, here cut to what names it. */
export const CRS84_PROJJSON = {
  $schema: 'https://proj.org/schemas/v0.7/projjson.schema.json',
  type: 'GeographicCRS',
  name: 'WGS 84 (CRS84)',
  datum_ensemble: {
    name: 'World Geodetic System 1984 ensemble',
    members: [{ name: 'World Geodetic System 1984 (Transit)' }, { name: 'World Geodetic System 1984 (G730)' }],
    ellipsoid: { name: 'WGS 84', semi_major_axis: 6378137, inverse_flattening: 298.257223563 },
  },
  coordinate_system: {
    subtype: 'ellipsoidal',
    axis: [
      { name: 'Geodetic longitude', abbreviation: 'Lon', direction: 'east', unit: 'degree' },
      { name: 'Geodetic latitude', abbreviation: 'Lat', direction: 'north', unit: 'degree' },
    ],
  },
  id: { authority: 'OGC', code: 'CRS84' },
};

/** One geometry column as the `geo` metadata describes it. */
export interface GeoParquetColumn {
  encoding: 'WKB';
  geometry_types: string[];
  bbox?: [number, number, number, number];
  crs: typeof CRS84_PROJJSON;
  covering: { bbox: Record<'xmin' | 'ymin' | 'xmax' | 'ymax', [string, string]> };
}

export interface GeoParquetMetadata {
  version: string;
  primary_column: string;
  columns: Record<string, GeoParquetColumn>;
}

const WKB_FUNCTION = 'studio_geoparquet_wkb';
const BOX_FUNCTION = 'studio_geoparquet_box';
const HILBERT_FUNCTION = 'studio_geoparquet_hilbert';
const TYPE_NAMES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection'];

/** The [xmin, ymin, xmax, ymax] of a shape, or null when it has no position. */
function boxOf(s: Shape): [number, number, number, number] | null {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (p: [number, number]) => {
    if (p[0] < x0) x0 = p[0];
    if (p[0] > x1) x1 = p[0];
    if (p[1] < y0) y0 = p[1];
    if (p[1] > y1) y1 = p[1];
  };
  const walk = (g: Shape): void => {
    switch (g.type) {
      case 'Point': if (g.coordinates) add(g.coordinates); return;
      case 'LineString': case 'MultiPoint': g.coordinates.forEach(add); return;
      case 'Polygon': case 'MultiLineString': for (const r of g.coordinates) r.forEach(add); return;
      case 'MultiPolygon': for (const p of g.coordinates) for (const r of p) r.forEach(add); return;
      case 'GeometryCollection': g.geometries.forEach(walk);
    }
  };
  walk(s);
  return x0 <= x1 ? [x0, y0, x1, y1] : null;
}

/** A geometry value as DuckDB hands it to JS: text (GeoJSON or WKT), a BLOB or GEOMETRY (WKB bytes). */
function shapeOf(v: unknown): Shape | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return parseGeometry(v) as Shape | null;
  const bytes = (v as { bytes?: Uint8Array }).bytes;
  if (!bytes) return null;
  try {
    return readWkb(bytes);
  } catch {
    return null;
  }
}

const readable = (typeId: DuckDBTypeId) => typeId === DuckDBTypeId.VARCHAR || typeId === DuckDBTypeId.BLOB || typeId === DuckDBTypeId.GEOMETRY;

/**
 * A one-argument function of a geometry value's shape, NULL for NULL or a value that is not a geometry. ANY: the
 * column's own type reaches JS (text, a BLOB, or GEOMETRY as its WKB); no cast in SQL.
 */
function perShape(name: string, returnType: DuckDBType, f: (s: Shape) => unknown): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: [DuckDBAnyType.instance],
    mainFunction: (_info, input, output) => {
      const v = input.getColumnVector(0);
      const geometry = readable(v.type.typeId);
      for (let i = 0; i < input.rowCount; i++) {
        const s = geometry ? shapeOf(v.getItem(i)) : null;
        output.setItem(i, (s ? f(s) : null) as never);
      }
      output.flush();
    },
  });
}

/**
 * Registers the writer's three functions on the connection's database: the WKB of a geometry value (NULL for one
 * that is not a geometry), 'type xmin ymin xmax ymax' of one (as text), and the Hilbert index of a position.
 */
export function registerGeoParquetFunctions(conn: DuckDBConnection): void {
  conn.registerScalarFunction(perShape(WKB_FUNCTION, BLOB, (s) => blobValue(writeWkb(s))));
  // Text, split in SQL: a list value a row from JS cost about 6x the rest of the pass on polygons.
  conn.registerScalarFunction(perShape(BOX_FUNCTION, VARCHAR, (s) => {
    const box = boxOf(s);
    // JS prints a double so that it reads back the same (shortest round trip), as DuckDB's cast to DOUBLE reads it.
    return [TYPE_NAMES.indexOf(s.type), ...(box ?? ['nan', 'nan', 'nan', 'nan'])].join(' ');
  }));
  conn.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: HILBERT_FUNCTION,
      returnType: DOUBLE,
      parameterTypes: [DOUBLE, DOUBLE],
      mainFunction: (_info, input, output) => {
        const xs = input.getColumnVector(0);
        const ys = input.getColumnVector(1);
        for (let i = 0; i < input.rowCount; i++) {
          const x = xs.getItem(i) as number | null;
          const y = ys.getItem(i) as number | null;
          output.setItem(i, x === null || y === null || !Number.isFinite(x) || !Number.isFinite(y) ? null : hilbertOfLngLat(x, y));
        }
        output.flush();
      },
    }),
  );
}

/** A free column name beside `columns` (case-insensitive, as DuckDB compares them). */
function freeColumn(columns: string[], wanted: string): string {
  const taken = new Set(columns.map((c) => c.toLowerCase()));
  let name = wanted;
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${wanted}_${i}`;
  return name;
}

export interface GeoParquetOptions {
  /** The geometry column of `select` (text, BLOB or GEOMETRY). */
  column: string;
  rowGroupSize?: number;
  /** DuckDB's Parquet compression (the studio stores with lz4_raw; downloads use zstd). */
  compression?: string;
  tmpDir: string;
}

/**
 * Writes `select`'s rows to `dest` as GeoParquet 1.1 (see the top of this file); answers the `geo` metadata written.
 * Two passes: one computes each row's WKB, box and Hilbert key into a temporary file (whose summary gives the
 * dataset's bbox and geometry types), the second writes it sorted by the key with the metadata.
 */
export async function writeGeoParquet(conn: DuckDBConnection, select: string, dest: string, opts: GeoParquetOptions): Promise<GeoParquetMetadata> {
  const columns = (await conn.runAndReadAll(`DESCRIBE ${select}`)).getRowObjectsJS().map((r) => ({ name: String(r.column_name), type: String(r.column_type) }));
  const described = columns.map((c) => c.name);
  if (!described.includes(opts.column)) throw new Error(`writeGeoParquet: no column ${opts.column}`);
  const g = quoteIdent(opts.column);
  const bboxName = freeColumn(described, `${opts.column}_bbox`);
  const b = quoteIdent(bboxName);
  const tmp = path.join(opts.tmpDir, `geoparquet-${randomUUID()}.parquet`);
  try {
    // 2D points in text (WKT `POINT (x y)`, a GeoJSON Point) go through SQL alone: DuckDB writes their WKB and the box is
    // the point. A JS call a row (the WKB, then the box of a polygon or line) is the cost of the other rows.
    const text = columns.find((c) => c.name === opts.column)!.type === 'VARCHAR';
    const point = (k: 1 | 2) => `CASE WHEN starts_with(${g}, 'POINT (') THEN TRY_CAST(regexp_extract(${g}, '^POINT \\((\\S+) (\\S+)\\)$', ${k}) AS DOUBLE)
        WHEN starts_with(${g}, '{') AND json_valid(${g}) THEN CASE WHEN json_extract_string(${g}, '$.type') = 'Point' THEN TRY_CAST(json_extract(${g}, '$.coordinates[${k - 1}]') AS DOUBLE) END END`;
    const located = text
      ? `SELECT *, ${point(1)} AS __px, ${point(2)} AS __py FROM (${select}) _src`
      : `SELECT *, CAST(NULL AS DOUBLE) AS __px, CAST(NULL AS DOUBLE) AS __py FROM (${select}) _src`;
    const pointWkb = `ST_AsWKB(CAST('POINT (' || CAST(__px AS VARCHAR) || ' ' || CAST(__py AS VARCHAR) || ')' AS GEOMETRY))`;
    const flagged = `SELECT *, coalesce(isfinite(__px) AND isfinite(__py), false) AS __pt FROM (${located}) _l`;
    // The box is read from the value as it came (text parses in a tenth of the time a BLOB takes to reach JS).
    const boxed = `SELECT * REPLACE (CASE WHEN __pt THEN ${pointWkb} ELSE ${WKB_FUNCTION}(${g}) END AS ${g}),
        CASE WHEN NOT __pt THEN CAST(string_split(${BOX_FUNCTION}(${g}), ' ') AS DOUBLE[]) END AS __b FROM (${flagged}) _f`;
    const keyed = `SELECT * EXCLUDE (__b, __px, __py, __pt),
        CASE WHEN __pt THEN {'xmin': __px, 'ymin': __py, 'xmax': __px, 'ymax': __py}
          WHEN isfinite(__b[2]) THEN {'xmin': __b[2], 'ymin': __b[3], 'xmax': __b[4], 'ymax': __b[5]} END AS ${b},
        CAST(CASE WHEN __pt THEN 1 ELSE __b[1] END AS TINYINT) AS __type,
        CASE WHEN __pt THEN ${HILBERT_FUNCTION}(__px, __py) ELSE ${HILBERT_FUNCTION}((__b[2] + __b[4]) / 2, (__b[3] + __b[5]) / 2) END AS __key
      FROM (${boxed}) _b`;
    await conn.run(`COPY (${keyed}) TO ${quoteLiteral(tmp)} (FORMAT parquet, COMPRESSION lz4_raw)`);
    const [summary] = (
      await conn.runAndReadAll(`SELECT min(${b}.xmin) AS x0, min(${b}.ymin) AS y0, max(${b}.xmax) AS x1, max(${b}.ymax) AS y1,
        list(DISTINCT __type ORDER BY __type) FILTER (WHERE __type IS NOT NULL) AS types FROM read_parquet(${quoteLiteral(tmp)})`)
    ).getRowObjectsJS();
    const types = ((summary?.types as number[] | null) ?? []).map((t) => TYPE_NAMES[Number(t)]!).filter(Boolean);
    const bbox = [summary?.x0, summary?.y0, summary?.x1, summary?.y1].map(Number);
    const part = (k: string): [string, string] => [bboxName, k];
    const meta: GeoParquetMetadata = {
      version: GEOPARQUET_VERSION,
      primary_column: opts.column,
      columns: {
        [opts.column]: {
          encoding: 'WKB',
          geometry_types: types,
          ...(bbox.every(Number.isFinite) && { bbox: bbox as [number, number, number, number] }),
          crs: CRS84_PROJJSON,
          covering: { bbox: { xmin: part('xmin'), ymin: part('ymin'), xmax: part('xmax'), ymax: part('ymax') } },
        },
      },
    };
    const options = [
      'FORMAT parquet',
      `COMPRESSION ${opts.compression ?? 'lz4_raw'}`,
      `ROW_GROUP_SIZE ${opts.rowGroupSize ?? GEOPARQUET_ROW_GROUP}`,
      `KV_METADATA {geo: ${quoteLiteral(JSON.stringify(meta))}}`,
    ];
    await conn.run(`COPY (SELECT * EXCLUDE (__type, __key) FROM read_parquet(${quoteLiteral(tmp)}) ORDER BY __key NULLS LAST) TO ${quoteLiteral(dest)} (${options.join(', ')})`);
    return meta;
  } finally {
    await removeQuietly(tmp);
  }
}

