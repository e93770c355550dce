import { DuckDBInstance } from '@duckdb/node-api';
import { CompressionType, RecordBatchFileWriter, RecordBatchStreamWriter, tableFromArrays } from 'apache-arrow';
import ExcelJS from 'exceljs';
import { zipSync, strToU8 } from 'fflate';
import { serialize } from 'flatgeobuf/lib/mjs/geojson.js';
import proj4 from 'proj4';
import type { FeatureCollection } from 'geojson';
// Registers apache-arrow's LZ4 and ZSTD codecs, which the engine loads with its Arrow reader (on the first Arrow
// upload): the files written here use them before any upload.
import '../src/formats/arrow-ipc';

/**
 * Files in the formats users bring, made by the tests (no binary fixtures to trust): each holds the same
 * three places, so every format is checked against the same coordinates.
 */
export const PLACES = [
  { name: 'Ferry Building', visits: 120, lng: -122.393494, lat: 37.795528 },
  { name: 'Coit Tower', visits: 80, lng: -122.405819, lat: 37.802395 },
  { name: 'Twin Peaks', visits: 45, lng: -122.447693, lat: 37.754423 },
];

/** WGS 84 / UTM zone 10N as ESRI writes it in a .prj: the coordinates are metres, not degrees. */
export const UTM_10N_PRJ =
  'PROJCS["WGS_1984_UTM_Zone_10N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-123.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';

/** A point Shapefile (.shp, .shx, .dbf) of PLACES in UTM 10N with its .prj, zipped as users send it. */
export function shapefileZip(opts: { withShp?: boolean } = {}): Buffer {
  const xy = PLACES.map((p) => proj4('WGS84', UTM_10N_PRJ, [p.lng, p.lat]) as [number, number]);
  const header = (lengthBytes: number) => {
    const h = Buffer.alloc(100);
    h.writeInt32BE(9994, 0);
    h.writeInt32BE(lengthBytes / 2, 24);
    h.writeInt32LE(1000, 28);
    h.writeInt32LE(1, 32); // point
    const xs = xy.map((p) => p[0]);
    const ys = xy.map((p) => p[1]);
    [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)].forEach((v, i) => h.writeDoubleLE(v, 36 + 8 * i));
    return h;
  };
  const records = xy.map(([x, y], i) => {
    const r = Buffer.alloc(28);
    r.writeInt32BE(i + 1, 0);
    r.writeInt32BE(10, 4); // content: 20 bytes = 10 words
    r.writeInt32LE(1, 8);
    r.writeDoubleLE(x, 12);
    r.writeDoubleLE(y, 20);
    return r;
  });
  const shp = Buffer.concat([header(100 + 28 * records.length), ...records]);
  const index = records.map((_, i) => {
    const r = Buffer.alloc(8);
    r.writeInt32BE((100 + 28 * i) / 2, 0);
    r.writeInt32BE(10, 4);
    return r;
  });
  const shx = Buffer.concat([header(100 + 8 * index.length), ...index]);
  // dBASE III: name C(20), visits N(10,0).
  const fields: [string, 'C' | 'N', number][] = [['name', 'C', 20], ['visits', 'N', 10]];
  const recordLength = 1 + fields.reduce((n, f) => n + f[2], 0);
  const head = Buffer.alloc(32 + 32 * fields.length + 1);
  head.writeUInt8(3, 0);
  head.writeUInt8(124, 1);
  head.writeUInt8(1, 2);
  head.writeUInt8(1, 3);
  head.writeUInt32LE(PLACES.length, 4);
  head.writeUInt16LE(head.length, 8);
  head.writeUInt16LE(recordLength, 10);
  fields.forEach(([name, type, len], i) => {
    head.write(name, 32 + 32 * i, 'latin1');
    head.write(type, 32 + 32 * i + 11, 'latin1');
    head.writeUInt8(len, 32 + 32 * i + 16);
  });
  head.writeUInt8(0x0d, head.length - 1);
  const rows = PLACES.map((p) => Buffer.from(` ${p.name.padEnd(20)}${String(p.visits).padStart(10)}`, 'latin1'));
  const dbf = Buffer.concat([head, ...rows, Buffer.from([0x1a])]);
  const files: Record<string, Uint8Array> = { 'places.dbf': dbf, 'places.prj': strToU8(UTM_10N_PRJ) };
  if (opts.withShp !== false) Object.assign(files, { 'places.shp': shp, 'places.shx': shx });
  return Buffer.from(zipSync(files));
}

const placemark = (p: (typeof PLACES)[number]) =>
  `<Placemark><name>${p.name}</name><ExtendedData><Data name="visits"><value>${p.visits}</value></Data></ExtendedData><Point><coordinates>${p.lng},${p.lat},0</coordinates></Point></Placemark>`;

/** KML with nested folders: Landmarks / Waterfront holds the first place, Landmarks / Hills the others. */
export const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>SF</name>
<Folder><name>Landmarks</name>
  <Folder><name>Waterfront</name>${placemark(PLACES[0]!)}</Folder>
  <Folder><name>Hills</name>${placemark(PLACES[1]!)}${placemark(PLACES[2]!)}</Folder>
</Folder></Document></kml>`;

export const kmz = (): Buffer => Buffer.from(zipSync({ 'doc.kml': strToU8(KML), 'files/readme.txt': strToU8('images would go here') }));

/** A GPX track through the three places (one line) and a waypoint at the first. */
export const GPX = `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="studio tests" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="${PLACES[0]!.lat}" lon="${PLACES[0]!.lng}"><name>Start</name></wpt>
<trk><name>Morning walk</name><trkseg>
${PLACES.map((p, i) => `<trkpt lat="${p.lat}" lon="${p.lng}"><time>2024-05-01T08:0${i}:00Z</time></trkpt>`).join('\n')}
</trkseg></trk></gpx>`;

export function flatgeobuf(): Buffer {
  const fc: FeatureCollection = {
    type: 'FeatureCollection',
    features: PLACES.map((p) => ({ type: 'Feature', properties: { name: p.name, visits: p.visits }, geometry: { type: 'Point', coordinates: [p.lng, p.lat] } })),
  };
  return Buffer.from(serialize(fc));
}

/** A workbook of two sheets: the places first (with a date column), notes second. */
export async function xlsx(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const places = wb.addWorksheet('Places');
  places.addRow(['name', 'visits', 'lat', 'lng', 'opened']);
  PLACES.forEach((p, i) => places.addRow([p.name, p.visits, p.lat, p.lng, new Date(Date.UTC(2000 + 10 * i, 0, 2, 9, 30))]));
  const notes = wb.addWorksheet('Notes');
  notes.addRow(['note']);
  notes.addRow(['not the first sheet']);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** PLACES as an Arrow table: ids, names, visits and the coordinates as doubles. */
function placesTable() {
  return tableFromArrays({
    name: PLACES.map((p) => p.name),
    visits: Int32Array.from(PLACES.map((p) => p.visits)),
    lat: Float64Array.from(PLACES.map((p) => p.lat)),
    lng: Float64Array.from(PLACES.map((p) => p.lng)),
  });
}

/**
 * PLACES as Arrow IPC: a file (Feather v2) or a stream, its buffers uncompressed or compressed as pyarrow
 * writes them (LZ4 frames by default, ZSTD on request); the engine registers both codecs.
 */
export function arrowIpc(kind: 'file' | 'stream', compression: 'none' | 'lz4' | 'zstd' = 'none'): Buffer {
  const compressionType = compression === 'lz4' ? CompressionType.LZ4_FRAME : compression === 'zstd' ? CompressionType.ZSTD : null;
  const Writer = kind === 'file' ? RecordBatchFileWriter : RecordBatchStreamWriter;
  const writer = new Writer({ compressionType });
  return Buffer.from(writer.writeAll(placesTable()).toUint8Array(true));
}

/** PLACES as newline-delimited GeoJSON: one Feature a line, as `ogr2ogr -f GeoJSONSeq` writes. */
export const GEOJSON_SEQ = PLACES.map((p) => JSON.stringify({ type: 'Feature', properties: { name: p.name, visits: p.visits }, geometry: { type: 'Point', coordinates: [p.lng, p.lat] } })).join('\n') + '\n';

/**
 * PLACES as GeoParquet, written by DuckDB (its GEOMETRY columns carry the `geo` metadata): points, and a
 * polygon row around the first; `crs` (PROJJSON, as GeoParquet states it, or an identifier) sets the column's CRS
 * and `project` writes the coordinates in it.
 */
export async function geoparquet(file: string, crs?: object | string, project: (lng: number, lat: number) => number[] = (lng, lat) => [lng, lat]): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const xy = (lng: number, lat: number) => project(lng, lat).join(' ');
    const rows = PLACES.map((p) => `(${sqlText(p.name)}, ${p.visits}, 'POINT (${xy(p.lng, p.lat)})')`);
    const [p] = PLACES;
    rows.push(`('Ferry Building block', 0, 'POLYGON ((${xy(p!.lng - 0.001, p!.lat - 0.001)}, ${xy(p!.lng + 0.001, p!.lat - 0.001)}, ${xy(p!.lng + 0.001, p!.lat + 0.001)}, ${xy(p!.lng - 0.001, p!.lat - 0.001)}))')`);
    const geometry = crs ? `ST_SetCRS(wkt::GEOMETRY, ${sqlText(typeof crs === 'string' ? crs : JSON.stringify(crs))})` : 'wkt::GEOMETRY';
    await conn.run(`COPY (SELECT name, visits, ${geometry} AS geometry FROM (VALUES ${rows.join(', ')}) AS t(name, visits, wkt)) TO ${sqlText(file)} (FORMAT parquet)`);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** WGS 84 / UTM zone 10N as GeoParquet names a CRS (PROJJSON, cut to its name and id): metres, not degrees. */
export const UTM_10N_PROJJSON = { type: 'ProjectedCRS', name: 'WGS 84 / UTM zone 10N', id: { authority: 'EPSG', code: 32610 } };
/** RGF93 / Lambert-93 cut to its name and id: a CRS the studio has no definition of without its parameters. */
export const LAMBERT_93_PROJJSON = { type: 'ProjectedCRS', name: 'RGF93 v1 / Lambert-93', id: { authority: 'EPSG', code: 2154 } };
