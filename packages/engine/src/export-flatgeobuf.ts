import type { Geometry } from 'geojson';
import { StudioError } from '@studio/schema';
import { exportAttributes, exportRowChunks, type AttributeKind } from './export-rows';
import { geometrySql, type ExportLocation } from './exports';
import type { PooledConnection } from './pool';

/**
 * A FlatGeobuf download, streamed a DuckDB chunk of features at a time (no row cap, memory of one chunk). FlatGeobuf
 * allows a file without a spatial index and with an unknown feature count (0 in the header), and a geometry type of
 * Unknown with each feature carrying its own: that is what lets the header leave before the rows are read. The
 * header declares EPSG:4326 and the attributes' types (integers Long, reals Double, date-times DateTime).
 * The flatgeobuf package's own header and feature builders write the frames.
 */

// Numeric values of the package's ColumnType enum (flat-geobuf/column-type.js), named as it names them.
const COLUMN_TYPE: Record<AttributeKind, number> = { integer: 7, real: 10, boolean: 2, date: 11, datetime: 13, text: 11 };
/**
 * The size-prefixed header: the layer's name, geometry type Unknown, no index, count 0 (unknown), the columns, and
 * the CRS as EPSG:4326 with its organization (the package's buildHeader leaves the organization out, and GDAL
 * then reads no CRS).
 */
async function headerBytes(name: string, columns: [string, number][]): Promise<Uint8Array> {
  const [flatbuffers, { Header }, { Column }, { Crs }] = await Promise.all([
    import('flatbuffers'),
    import('flatgeobuf/lib/mjs/flat-geobuf/header.js'),
    import('flatgeobuf/lib/mjs/flat-geobuf/column.js'),
    import('flatgeobuf/lib/mjs/flat-geobuf/crs.js'),
  ]);
  const b = new flatbuffers.Builder(1024);
  const columnOffsets = columns.map(([n, type]) => {
    const nameAt = b.createString(n);
    Column.startColumn(b);
    Column.addName(b, nameAt);
    Column.addType(b, type);
    Column.addNullable(b, true);
    return Column.endColumn(b);
  });
  const columnsAt = columnOffsets.length ? Header.createColumnsVector(b, columnOffsets) : 0;
  const crs = Crs.createCrs(b, b.createString('EPSG'), 4326, b.createString('WGS 84'), 0, 0, 0);
  const nameAt = b.createString(name);
  Header.startHeader(b);
  Header.addName(b, nameAt);
  Header.addGeometryType(b, 0);
  Header.addIndexNodeSize(b, 0);
  Header.addFeaturesCount(b, 0n);
  Header.addCrs(b, crs);
  if (columnsAt) Header.addColumns(b, columnsAt);
  b.finishSizePrefixed(Header.endHeader(b));
  return b.asUint8Array();
}

/**
 * A size-prefixed frame padded to a multiple of 8 bytes (its size prefix grown to match): readers map a feature's
 * coordinates as a Float64Array over the file's bytes, which needs each frame to start 8-aligned, and flatbuffers
 * only pads a frame that holds 8-byte values itself (a header with an unknown count, a feature without coordinates).
 * A flatbuffer is read from its front, so bytes after its table are never read.
 */
function aligned(frame: Uint8Array): Uint8Array {
  const pad = (8 - (frame.length % 8)) % 8;
  if (!pad) return frame;
  const out = new Uint8Array(frame.length + pad);
  out.set(frame);
  new DataView(out.buffer).setUint32(0, frame.length - 4 + pad, true);
  return out;
}

const MAGIC = new Uint8Array([0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62, 0x01]);

export async function* flatgeobufStream(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, name: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (!geometrySql(loc, 'geojson')) throw new StudioError(422, 'FlatGeobuf needs a location: this dataset has no geometry or latitude/longitude columns');
  const [{ buildFeature }, { parseGC, parseGeometry }] = await Promise.all([import('flatgeobuf/lib/mjs/generic/feature.js'), import('flatgeobuf/lib/mjs/geojson/geometry.js')]);
  const attributes = await exportAttributes(acquire, file, loc);
  const columns = attributes.map((a) => ({ name: a.name, type: COLUMN_TYPE[a.kind], title: null, description: null, width: -1, precision: -1, scale: -1, nullable: true, unique: false, primary_key: false }));
  const header = { geometryType: 0, columns: columns.length ? columns : null, envelope: null, featuresCount: 0, indexNodeSize: 0, crs: null, title: null, description: null, metadata: null };
  yield Buffer.concat([MAGIC, aligned(await headerBytes(name, attributes.map((a) => [a.name, COLUMN_TYPE[a.kind]])))]);
  for await (const rows of exportRowChunks(acquire, file, loc, attributes, signal)) {
    const frames: Uint8Array[] = [];
    for (const row of rows) {
      const properties: Record<string, unknown> = {};
      attributes.forEach((a, i) => (properties[a.name] = row.values[i] ?? null));
      const g: Geometry = row.geometry ?? { type: 'GeometryCollection', geometries: [] };
      const parsed = g.type === 'GeometryCollection' ? parseGC(g) : parseGeometry(g);
      frames.push(aligned(buildFeature(parsed, properties as Parameters<typeof buildFeature>[1], header as Parameters<typeof buildFeature>[2])));
    }
    yield Buffer.concat(frames);
  }
}
