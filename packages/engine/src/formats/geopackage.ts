import type { DatabaseSync } from 'node:sqlite';
import type { Geometry, Position } from 'geojson';
import proj4 from 'proj4';
import { badInput, isStudioError } from '@studio/schema';
import { writeFeatureParts, type FeatureRow, type PartColumn } from './feature-parts';
import { toLngLatOf, type ToLngLat } from './reproject';
import { loadSqlite, quoteSqliteIdent } from './sqlite';
import { WkbError, wkbToGeoJson } from './wkb';

/**
 * GeoPackage (OGC 12-128r18: an SQLite file) read with Node's built-in SQLite, opened read-only; only SELECTs
 * on the GeoPackage's own tables run (no view, trigger or function of the file). A feature table becomes
 * Parquet parts with its columns' types (INTEGER stays BIGINT, REAL DOUBLE, DATE and DATETIME dates and
 * timestamps), its geometry as GeoJSON text in `_geojson` and, for points, latitude/longitude — the columns a
 * GeoJSON upload gets — in WGS 84, reprojected from the layer's CRS through proj4 as a Shapefile's .prj is.
 */

/** A feature table of the file: its name (the layer), geometry column and the CRS its srs_id names. */
export interface GeoPackageLayer {
  name: string;
  geometryColumn: string;
  geometryType: string;
  srsId: number;
}

const fail = (reason: string) => badInput(`Could not read the GeoPackage: ${reason}`);

async function openGeoPackage(file: string): Promise<DatabaseSync> {
  const { DatabaseSync } = await loadSqlite();
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true, readBigInts: true });
    // The header is read at the first statement: a file that is not SQLite fails here.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch {
    throw fail('the file is not an SQLite database or it is damaged');
  }
  return db;
}

const tableExists = (db: DatabaseSync, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** The feature tables gpkg_contents and gpkg_geometry_columns list (422 for an SQLite file that is not a GeoPackage). */
export function layersOf(db: DatabaseSync): GeoPackageLayer[] {
  if (!tableExists(db, 'gpkg_contents') || !tableExists(db, 'gpkg_geometry_columns')) {
    throw fail('the SQLite file has no gpkg_contents and gpkg_geometry_columns tables, so it is not a GeoPackage');
  }
  const rows = db
    .prepare(
      `SELECT c.table_name AS name, g.column_name AS geom, g.geometry_type_name AS type, g.srs_id AS srs
         FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
        WHERE c.data_type = 'features' ORDER BY c.table_name`,
    )
    .all();
  return rows.map((r) => ({ name: String(r.name), geometryColumn: String(r.geom), geometryType: String(r.type), srsId: Number(r.srs) }));
}

/** The feature layers of a GeoPackage file (the multi-layer upload makes one dataset each). */
export async function geopackageLayers(file: string): Promise<string[]> {
  const db = await openGeoPackage(file);
  try {
    return layersOf(db).map((l) => l.name);
  } catch (e) {
    throw isStudioError(e) ? e : fail('the file is damaged');
  } finally {
    db.close();
  }
}

/** The layer to read: the one named, or the only one (several without a name: 422 listing them). */
function pickLayer(layers: GeoPackageLayer[], wanted: string | undefined): GeoPackageLayer {
  if (wanted !== undefined) {
    const found = layers.find((l) => l.name === wanted);
    if (!found) throw fail(`it has no feature layer '${wanted}'; its layers are ${layers.map((l) => `'${l.name}'`).join(', ') || 'none'}`);
    return found;
  }
  if (!layers.length) throw fail('it holds no feature layer (a table with geometry)');
  if (layers.length > 1) {
    throw badInput(
      `The GeoPackage holds ${layers.length} layers: choose one with ?layer= (${layers.map((l) => `'${l.name}'`).join(', ')}), or upload it as one dataset a layer`,
      JSON.stringify({ layers: layers.map((l) => l.name) }),
    );
  }
  return layers[0]!;
}

/** The transform of the layer's CRS to longitude/latitude; null when it is longitude/latitude already. */
function transformOf(db: DatabaseSync, layer: GeoPackageLayer): ToLngLat | null {
  // srs_id 0 and -1 are the standard's undefined geographic and Cartesian systems: coordinates taken as they are.
  if (layer.srsId === 0 || layer.srsId === -1) return null;
  const srs = db.prepare('SELECT organization AS org, organization_coordsys_id AS code, definition AS def FROM gpkg_spatial_ref_sys WHERE srs_id = ?').get(layer.srsId);
  if (!srs) throw fail(`layer '${layer.name}' names CRS ${layer.srsId}, which its gpkg_spatial_ref_sys does not define`);
  const org = String(srs.org ?? '').toUpperCase();
  const code = Number(srs.code);
  if (org === 'EPSG' && (code === 4326 || code === 4979)) return null;
  const known = org ? toLngLatOf(`${org}:${code}`) : null;
  if (known) return known;
  try {
    const converter = proj4(String(srs.def), 'EPSG:4326');
    return (x, y) => converter.forward([x, y]) as [number, number];
  } catch {
    throw fail(`layer '${layer.name}' is in ${org}:${code}, a CRS the studio has no transform for; reproject it to EPSG:4326 before uploading`);
  }
}

/** GeoPackage's column types (Table 1 of the standard, with SQLite's affinity rules for any other name). */
function columnType(declared: string): PartColumn['type'] {
  const t = declared.toUpperCase();
  if (t === 'BOOLEAN') return 'BOOLEAN';
  if (t === 'DATE') return 'DATE';
  if (t === 'DATETIME') return 'TIMESTAMP';
  if (t.includes('INT')) return 'BIGINT';
  if (/REAL|FLOA|DOUB/.test(t)) return 'DOUBLE';
  if (t === 'BLOB') return 'BLOB';
  return 'VARCHAR';
}

/** GeoPackage's binary header (clause 2.1.3): magic, version, flags with the envelope size and byte order, srs_id. */
const ENVELOPE_BYTES = [0, 32, 48, 48, 64];

/** The geometry of a GeoPackage blob, or null for an empty one. */
export function gpkgGeometry(blob: Uint8Array): Geometry | null {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new WkbError("the geometry blob does not start with GeoPackage's 'GP' header");
  if (blob[2] !== 0) throw new WkbError(`the geometry blob is GeoPackage binary version ${blob[2]}, not 0`);
  const flags = blob[3]!;
  if (flags & 0x20) throw new WkbError('the geometry blob is an extended GeoPackage geometry, which the studio does not read');
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 0x07];
  if (envelope === undefined) throw new WkbError('the geometry blob has an invalid envelope code');
  const start = 8 + envelope;
  if (start > blob.length) throw new WkbError('the geometry blob ends inside its header');
  if (flags & 0x10) return null;
  const g = wkbToGeoJson(new DataView(blob.buffer, blob.byteOffset + start, blob.length - start));
  return g.type === 'Point' && g.coordinates.length === 0 ? null : g;
}

function reproject(g: Geometry, to: ToLngLat): Geometry {
  const p = (c: Position): Position => {
    const [lng, lat] = to(c[0]!, c[1]!);
    // Nine decimals (a tenth of a millimetre), as reproject.ts rounds: no float noise from the transform.
    const [x, y] = [Math.round(lng * 1e9) / 1e9, Math.round(lat * 1e9) / 1e9];
    return c.length > 2 ? [x, y, ...c.slice(2)] : [x, y];
  };
  switch (g.type) {
    case 'Point':
      return { type: g.type, coordinates: p(g.coordinates) };
    case 'LineString':
    case 'MultiPoint':
      return { type: g.type, coordinates: g.coordinates.map(p) } as Geometry;
    case 'Polygon':
    case 'MultiLineString':
      return { type: g.type, coordinates: g.coordinates.map((r) => r.map(p)) } as Geometry;
    case 'MultiPolygon':
      return { type: g.type, coordinates: g.coordinates.map((s) => s.map((r) => r.map(p))) };
    case 'GeometryCollection':
      return { type: g.type, geometries: g.geometries.map((c) => reproject(c, to)) };
  }
}

/**
 * Writes the chosen layer of a GeoPackage as Parquet parts (feature-parts.ts) `<outBase>-part-0001.parquet` and on; answers them
 * in order (one even for an empty layer, so the columns arrive).
 */
export async function geopackageToParquetParts(input: string, outBase: string, opts: { layer?: string } = {}): Promise<string[]> {
  const db = await openGeoPackage(input);
  try {
    const layer = pickLayer(layersOf(db), opts.layer);
    if (!tableExists(db, layer.name)) throw fail(`layer '${layer.name}' is listed in gpkg_contents but is not a table`);
    const info = db.prepare(`PRAGMA table_info(${quoteSqliteIdent(layer.name)})`).all();
    if (!info.some((c) => String(c.name) === layer.geometryColumn)) throw fail(`layer '${layer.name}' has no geometry column '${layer.geometryColumn}'`);
    // The integer primary key is GDAL's feature id, not an attribute (ogrinfo lists it apart, as FID).
    const columns: PartColumn[] = info
      .filter((c) => String(c.name) !== layer.geometryColumn && !(Number(c.pk) === 1 && columnType(String(c.type)) === 'BIGINT'))
      .map((c) => ({ name: String(c.name), type: columnType(String(c.type)) }));
    const toLngLat = transformOf(db, layer);
    const where = (n: number) => `layer '${layer.name}', feature ${n}`;
    const names = [...columns.map((c) => c.name), layer.geometryColumn].map(quoteSqliteIdent).join(', ');
    function* features(): Generator<FeatureRow> {
      let n = 0;
      for (const row of db.prepare(`SELECT ${names} FROM ${quoteSqliteIdent(layer.name)}`).iterate()) {
        n++;
        const blob = row[layer.geometryColumn];
        let g: Geometry | null = null;
        if (blob !== null && blob !== undefined) {
          if (!(blob instanceof Uint8Array)) throw fail(`${where(n)}: its geometry is not a GeoPackage geometry blob`);
          try {
            g = gpkgGeometry(blob);
          } catch (e) {
            if (e instanceof WkbError) throw fail(`${where(n)}: ${e.message}`);
            throw e;
          }
          if (g && toLngLat) g = reproject(g, toLngLat);
        }
        yield { values: row, geometry: g };
      }
    }
    return await writeFeatureParts(outBase, columns, features(), { fail, where });
  } catch (e) {
    if (isStudioError(e)) throw e;
    // SQLite's own errors on a damaged file ("database disk image is malformed"): no path in them, but no internals either.
    throw fail(`the file is damaged (${String((e as Error)?.message ?? e).split('\n')[0]!.replace(/\/\S+/g, 'the file')})`);
  } finally {
    db.close();
  }
}
