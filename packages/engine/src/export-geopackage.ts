import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Geometry, Position } from 'geojson';
import type { DuckDBVector } from '@duckdb/node-api';
import { quoteSqliteIdent } from './formats/sqlite';
import { geoJsonToWkb } from './formats/wkb';
import { exportAttributes, exportColumnChunks, pointAt, type Attribute, type AttributeKind } from './export-rows';
import { BoxList, writePackedRtree } from './export-rtree';
import { integerValues, vectorValues } from './export-vectors';
import { SqliteWorker, type RowColumn } from './sqlite-worker';
import { tempFileDownload, type ExportLocation } from './exports';
import type { PooledConnection } from './pool';

/**
 * A GeoPackage 1.3 download (OGC 12-128r18) written with node:sqlite into a temp file, then streamed and removed:
 * gpkg_spatial_ref_sys with EPSG:4326, gpkg_contents (with the extent), gpkg_geometry_columns (the one geometry type
 * of the rows, or GEOMETRY for mixed ones), and one feature table `features` of typed columns and GP-header WKB
 * blobs. SQLite runs on a worker thread (sqlite-worker.ts) fed a DuckDB chunk at a time, so reading and writing take
 * two cores; rows go in transactions of 50,000; the spatial index (an R-tree, as GDAL's gpkg_rtree_index
 * extension names it) is bulk loaded after the rows (export-rtree.ts), without GDAL's triggers (they call functions
 * only GDAL registers).
 */

const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]';

export const GEOPACKAGE_TABLE = 'features';

const SQL_TYPE: Record<AttributeKind, string> = { integer: 'INTEGER', real: 'REAL', boolean: 'BOOLEAN', date: 'DATE', datetime: 'DATETIME', text: 'TEXT' };

/** Rows a transaction holds before it commits (SQLite's page cache stays small). */
const ROWS_A_TRANSACTION = 50_000;

/** The bounding box of a geometry, grown into `box` ([minx, miny, maxx, maxy]). */
function grow(box: number[], g: Geometry): number[] {
  const visit = (c: unknown): void => {
    if (typeof (c as Position)[0] === 'number') {
      const [x, y] = c as Position;
      if (x! < box[0]!) box[0] = x!;
      if (y! < box[1]!) box[1] = y!;
      if (x! > box[2]!) box[2] = x!;
      if (y! > box[3]!) box[3] = y!;
    } else (c as unknown[]).forEach(visit);
  };
  if (g.type === 'GeometryCollection') g.geometries.forEach((c) => grow(box, c));
  else visit(g.coordinates);
  return box;
}

/** GeoPackage binary: the GP header (version 0, little-endian, an xy envelope, srs 4326) then the WKB. */
function gpkgBlob(g: Geometry, box: number[]): Uint8Array {
  const bytes = geoJsonToWkb(g, 40);
  const view = new DataView(bytes.buffer);
  bytes[0] = 0x47;
  bytes[1] = 0x50;
  bytes[2] = 0;
  bytes[3] = 0b0000_0011; // envelope [minx, maxx, miny, maxy], little-endian
  view.setInt32(4, 4326, true);
  [box[0]!, box[2]!, box[1]!, box[3]!].forEach((v, i) => view.setFloat64(8 + i * 8, v, true));
  return bytes;
}

/** A point's blob: the GP header without an envelope (a point is its own, as GDAL writes them) and its WKB. */
const POINT_BLOB_BYTES = 8 + 21;

/** Writes a point's blob into a chunk's buffer (viewed by `view`) at `at`. */
function pointBlob(buffer: Uint8Array, view: DataView, at: number, x: number, y: number): void {
  buffer[at] = 0x47;
  buffer[at + 1] = 0x50;
  buffer[at + 2] = 0;
  buffer[at + 3] = 0b0000_0001; // no envelope, little-endian
  view.setInt32(at + 4, 4326, true);
  buffer[at + 8] = 1; // WKB little-endian
  view.setUint32(at + 9, 1, true); // Point
  view.setFloat64(at + 13, x, true);
  view.setFloat64(at + 21, y, true);
}

/**
 * An attribute's vector as a column for the writer: numbers (integers where a double holds them) as a typed array
 * with a null mask, moved to the worker rather than cloned; a column with a bigint past 2^53, and the other kinds,
 * as DuckDB's values.
 */
function attributeColumn(a: Attribute, v: DuckDBVector): RowColumn {
  const values = a.kind === 'integer' ? integerValues(v) : vectorValues(v);
  if (values instanceof Float64Array) return { f64: values.slice() };
  if (a.kind !== 'integer' && a.kind !== 'real') return { values };
  const f64 = new Float64Array(values.length);
  let nulls: Uint8Array | undefined;
  for (let r = 0; r < values.length; r++) {
    const x = values[r];
    if (typeof x === 'number') f64[r] = x;
    else if (x === null || x === undefined) (nulls ??= new Uint8Array(values.length))[r] = 1;
    else return { values };
  }
  return nulls ? { f64, nulls } : { f64 };
}

/** Chunks sent to the writer and not yet written that the reader may run ahead by (each a DuckDB chunk of rows). */
const CHUNKS_AHEAD = 8;

/** Writes the GeoPackage of a dataset's rows to `out`. */
export async function writeGeoPackage(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, out: string, signal?: AbortSignal): Promise<number> {
  const attributes = await exportAttributes(acquire, file, loc);
  const db = new SqliteWorker(out);
  try {
    const table = quoteSqliteIdent(GEOPACKAGE_TABLE);
    db.exec(`PRAGMA page_size = 16384; PRAGMA application_id = 1196444487; PRAGMA user_version = 10300; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
      CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
      CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER REFERENCES gpkg_spatial_ref_sys(srs_id));
      CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
      CREATE TABLE gpkg_extensions (table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL, scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));`);
    db.insert('INSERT INTO gpkg_spatial_ref_sys', 3, [
      { values: ['Undefined cartesian SRS', 'Undefined geographic SRS', 'WGS 84 geodetic'] },
      { values: [-1, 0, 4326] },
      { values: ['NONE', 'NONE', 'EPSG'] },
      { values: [-1, 0, 4326] },
      { values: ['undefined', 'undefined', WGS84_WKT] },
      { values: ['undefined cartesian coordinate reference system', 'undefined geographic coordinate reference system', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid'] },
    ]);
    // The feature id is the table's own; a column of the data named fid keeps its values under fid_2.
    const taken = new Set(['fid', 'geom']);
    const names = attributes.map((a) => {
      let n = a.name;
      for (let i = 2; taken.has(n.toLowerCase()); i++) n = `${a.name}_${i}`;
      taken.add(n.toLowerCase());
      return n;
    });
    const columns = attributes.map((a, i) => `${quoteSqliteIdent(names[i]!)} ${SQL_TYPE[a.kind]}`);
    db.exec(`CREATE TABLE ${table} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom GEOMETRY${columns.map((c) => `, ${c}`).join('')})`);
    const head = `INSERT INTO ${table} (geom${names.map((n) => `, ${quoteSqliteIdent(n)}`).join('')})`;
    const extent = [Infinity, Infinity, -Infinity, -Infinity];
    const types = new Set<string>();
    const boxes = new BoxList();
    let n = 0;
    db.exec('BEGIN');
    for await (const chunk of exportColumnChunks(acquire, file, loc, attributes, signal)) {
      let geometry: RowColumn;
      if (chunk.x && chunk.y) {
        // Points from a latitude/longitude pair: their blobs laid end to end in one buffer a chunk.
        const bytes = new Uint8Array(POINT_BLOB_BYTES * chunk.rowCount);
        const lengths = new Int32Array(chunk.rowCount).fill(-1);
        const view = new DataView(bytes.buffer);
        let at = 0;
        for (let r = 0; r < chunk.rowCount; r++) {
          const p = pointAt(chunk.x, chunk.y, r);
          if (!p) continue;
          pointBlob(bytes, view, at, p[0], p[1]);
          at += POINT_BLOB_BYTES;
          lengths[r] = POINT_BLOB_BYTES;
          boxes.push(n + r + 1, p[0], p[1], p[0], p[1]);
          if (p[0] < extent[0]!) extent[0] = p[0];
          if (p[1] < extent[1]!) extent[1] = p[1];
          if (p[0] > extent[2]!) extent[2] = p[0];
          if (p[1] > extent[3]!) extent[3] = p[1];
          types.add('Point');
        }
        geometry = { bytes, lengths };
      } else {
        const blobs: (Uint8Array | null)[] = new Array(chunk.rowCount).fill(null);
        for (let r = 0; r < chunk.rowCount; r++) {
          const text = chunk.geojson![r];
          const g = text ? (JSON.parse(text) as Geometry) : null;
          if (!g) continue;
          const box = grow([Infinity, Infinity, -Infinity, -Infinity], g);
          grow(extent, g);
          types.add(g.type);
          blobs[r] = gpkgBlob(g, box);
          boxes.push(n + r + 1, box[0]!, box[1]!, box[2]!, box[3]!);
        }
        geometry = { values: blobs };
      }
      db.insert(head, chunk.rowCount, [geometry, ...attributes.map((a, i) => attributeColumn(a, chunk.vectors[i]!))]);
      const before = n;
      n += chunk.rowCount;
      if (Math.floor(n / ROWS_A_TRANSACTION) > Math.floor(before / ROWS_A_TRANSACTION)) db.exec('COMMIT; BEGIN');
      await db.drain(CHUNKS_AHEAD);
    }
    db.exec('COMMIT');
    await writePackedRtree(db, `rtree_${GEOPACKAGE_TABLE}_geom`, boxes);
    const geometryType = types.size === 1 ? [...types][0]!.toUpperCase() : 'GEOMETRY';
    const box = n && Number.isFinite(extent[0]) ? extent : [null, null, null, null];
    db.insert('INSERT INTO gpkg_contents (table_name, data_type, identifier, min_x, min_y, max_x, max_y, srs_id)', 1, [GEOPACKAGE_TABLE, 'features', GEOPACKAGE_TABLE, ...box, 4326].map((v) => ({ values: [v] })));
    db.insert('INSERT INTO gpkg_geometry_columns', 1, [GEOPACKAGE_TABLE, 'geom', geometryType, 4326, 0, 0].map((v) => ({ values: [v] })));
    db.insert('INSERT INTO gpkg_extensions', 1, [GEOPACKAGE_TABLE, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only'].map((v) => ({ values: [v] })));
    await db.close();
    return n;
  } catch (e) {
    await db.terminate();
    throw e;
  }
}

/** The GeoPackage download: written to a temp file, streamed, removed. */
export async function* geopackageFile(acquire: () => Promise<PooledConnection>, tmpDir: string, file: string, loc: ExportLocation, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const out = path.join(tmpDir, `export-${randomUUID()}.gpkg`);
  yield* tempFileDownload(out, () => writeGeoPackage(acquire, file, loc, out, signal));
}
