import { mkdir, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Geometry, Position } from 'geojson';
import { StudioError } from '@studio/schema';
import { DBF_MAX_FIELDS, DBF_TEXT_BYTES, dbfFields, dbfHeader, dbfRecordLength, writeDbfRecord, type DbfField, type DbfNotes } from './export-dbf';
import { exportAttributes, exportColumnChunks, type AttributeValue } from './export-rows';
import { TextBytes, integerValues, vectorValues } from './export-vectors';
import { DeflatedBody, zipStream, type ZipEntry } from './export-zip';
import { geometrySql, type ExportLocation } from './exports';
import type { PooledConnection } from './pool';

/**
 * A Shapefile download (ESRI's 1998 technical description): one zip holding a .shp/.shx/.dbf/.prj/.cpg set per
 * geometry type — points, multipoints, lines (LineString and MultiLineString as PolyLine) and polygons (Polygon
 * and MultiPolygon, exterior rings clockwise and holes counter-clockwise as Shapefile wants) — plus a set of
 * rows without geometry. Rows are written a DuckDB chunk at a time, each file's records deflated as they come (on
 * zlib's threads, beside the writer) into a temp file; the headers (the file length, the extent, the record count),
 * known only at the end, are put in front when zipped: memory holds a few chunks, never the dataset. Shapefile's limits are said in the zip: columns.csv maps the full column names
 * to the 10-byte field names, notes.txt counts cut text and what else could not be kept.
 */

type Kind = 'points' | 'multipoints' | 'lines' | 'polygons' | 'nogeometry';
const SHAPE_TYPE: Record<Kind, number> = { points: 1, multipoints: 8, lines: 3, polygons: 5, nogeometry: 0 };
const KIND_OF: Record<Exclude<Geometry['type'], 'GeometryCollection'>, Kind> = {
  Point: 'points',
  MultiPoint: 'multipoints',
  LineString: 'lines',
  MultiLineString: 'lines',
  Polygon: 'polygons',
  MultiPolygon: 'polygons',
};

/** ESRI's WKT of WGS 84, as ArcGIS and GDAL write it in a .prj. */
const WGS84_PRJ = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';

/** Shapefile offsets are 32-bit counts of 16-bit words, and readers take them as signed: 2 GB a .shp. */
const SHP_MAX_BYTES = 2 ** 31 - 1;

/**
 * A growable byte buffer (one per file, handed to its deflate after each chunk), its unwritten bytes all `blank`: the
 * .dbf's are spaces, so a record starts blank without a fill a record.
 */
class Bytes {
  buf: Buffer;
  length = 0;
  /** Buffers zlib has read, written again rather than new ones made: 1M points made 120 MB of them, which V8 counts
   * as external memory and collects garbage for. */
  private readonly spare: Buffer[] = [];
  constructor(private readonly blank = 0) {
    this.buf = Buffer.alloc(1 << 16, blank);
  }
  /** The bytes so far, for zlib to read: the buffer is replaced, and written again only once given back. */
  take(): Buffer {
    if (!this.length) return this.buf.subarray(0, 0);
    const taken = this.buf.subarray(0, this.length);
    const spare = this.spare.pop();
    this.buf = spare && spare.length >= this.buf.length ? spare.fill(this.blank) : Buffer.alloc(this.buf.length, this.blank);
    this.length = 0;
    return taken;
  }
  /** A buffer take() answered, given back once zlib has read it. */
  giveBack(taken: Buffer): void {
    if (taken.byteOffset === 0 && taken.buffer.byteLength >= this.buf.length) this.spare.push(Buffer.from(taken.buffer));
  }
  reserve(n: number): number {
    if (this.length + n > this.buf.length) {
      const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n), this.blank);
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    const at = this.length;
    this.length += n;
    return at;
  }
}

/** One geometry type's files being written. */
interface ShapeSet {
  kind: Kind;
  stem: string;
  shp: DeflatedBody;
  shx: DeflatedBody;
  dbf: DeflatedBody;
  /** Bytes of the .shp so far (the 100-byte header included). */
  shpBytes: number;
  records: number;
  box: number[];
  pending: { shp: Bytes; shx: Bytes; dbf: Bytes };
}

/** The shape of a geometry flattened for its record: parts of points, with the extent. */
interface Shape {
  parts: Position[][];
  box: number[];
}

function ringArea2(ring: Position[]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[i]![0]! - ring[j]![0]!) * (ring[i]![1]! + ring[j]![1]!);
  return a; // positive: clockwise
}

/** A ring closed and turned the way Shapefile wants (`clockwise` for an exterior). */
function orient(ring: Position[], clockwise: boolean): Position[] {
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  const closed = first[0] === last[0] && first[1] === last[1] ? ring : [...ring, first];
  return ringArea2(closed) > 0 === clockwise ? closed : [...closed].reverse();
}

/** The parts of a geometry as its record holds them; null for an empty geometry (written as a null shape). */
function shapeOf(g: Exclude<Geometry, { type: 'GeometryCollection' }>): Shape | null {
  let parts: Position[][];
  switch (g.type) {
    case 'Point':
      parts = g.coordinates.length >= 2 ? [[g.coordinates]] : [];
      break;
    case 'MultiPoint':
      parts = g.coordinates.length ? [g.coordinates] : [];
      break;
    case 'LineString':
      parts = [g.coordinates];
      break;
    case 'MultiLineString':
      parts = g.coordinates;
      break;
    case 'Polygon':
      parts = g.coordinates.filter((r) => r.length).map((r, i) => orient(r, i === 0));
      break;
    case 'MultiPolygon':
      parts = g.coordinates.flatMap((p) => p.filter((r) => r.length).map((r, i) => orient(r, i === 0)));
      break;
  }
  parts = parts.filter((p) => p.length);
  if (!parts.length) return null;
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const part of parts)
    for (const [x, y] of part) {
      if (x! < box[0]!) box[0] = x!;
      if (y! < box[1]!) box[1] = y!;
      if (x! > box[2]!) box[2] = x!;
      if (y! > box[3]!) box[3] = y!;
    }
  return { parts, box };
}

/** A GeometryCollection of one family merged into that family's multi-geometry; null when it mixes families. */
function merged(g: Geometry): Exclude<Geometry, { type: 'GeometryCollection' }> | null {
  if (g.type !== 'GeometryCollection') return g;
  const members = g.geometries.map(merged);
  if (members.some((m) => m === null)) return null;
  const all = members as Exclude<Geometry, { type: 'GeometryCollection' }>[];
  const kinds = new Set(all.map((m) => KIND_OF[m.type].replace('multi', '')));
  if (kinds.size !== 1) return null;
  const kind = [...kinds][0];
  if (kind === 'points') return { type: 'MultiPoint', coordinates: all.flatMap((m) => (m.type === 'Point' ? [m.coordinates] : (m as { coordinates: Position[] }).coordinates)) };
  if (kind === 'lines') return { type: 'MultiLineString', coordinates: all.flatMap((m) => (m.type === 'LineString' ? [m.coordinates] : (m as { coordinates: Position[][] }).coordinates)) };
  return { type: 'MultiPolygon', coordinates: all.flatMap((m) => (m.type === 'Polygon' ? [m.coordinates] : (m as { coordinates: Position[][][] }).coordinates)) };
}

/** The .shp record content of `shape` (null: a null shape) into `out`, answering its length in bytes. */
function writeShape(out: Bytes, type: number, shape: Shape | null): number {
  if (!shape || type === 0) {
    out.buf.writeInt32LE(0, out.reserve(4));
    return 4;
  }
  if (type === 1) {
    const [x, y] = shape.parts[0]![0]!;
    return writePoint(out, x!, y!);
  }
  const points = shape.parts.reduce((n, p) => n + p.length, 0);
  const multipoint = type === 8;
  const length = 4 + 32 + 4 + (multipoint ? 0 : 4 + 4 * shape.parts.length) + 16 * points;
  let at = out.reserve(length);
  const b = out.buf;
  b.writeInt32LE(type, at);
  shape.box.forEach((v, i) => b.writeDoubleLE(v, at + 4 + 8 * i));
  at += 36;
  if (multipoint) {
    b.writeInt32LE(points, at);
    at += 4;
  } else {
    b.writeInt32LE(shape.parts.length, at);
    b.writeInt32LE(points, at + 4);
    at += 8;
    let start = 0;
    for (const part of shape.parts) {
      b.writeInt32LE(start, at);
      at += 4;
      start += part.length;
    }
  }
  for (const part of shape.parts)
    for (const p of part) {
      b.writeDoubleLE(p[0]!, at);
      b.writeDoubleLE(p[1]!, at + 8);
      at += 16;
    }
  return length;
}

/** A point record's content (type 1, x, y) into `out`, answering its length in bytes. */
function writePoint(out: Bytes, x: number, y: number): number {
  const at = out.reserve(20);
  out.buf.writeInt32LE(1, at);
  out.buf.writeDoubleLE(x, at + 4);
  out.buf.writeDoubleLE(y, at + 12);
  return 20;
}

/** The 100-byte header of a .shp or .shx. */
function shpHeader(type: number, bytes: number, box: number[]): Buffer {
  const b = Buffer.alloc(100);
  b.writeInt32BE(9994, 0);
  b.writeInt32BE(bytes / 2, 24);
  b.writeInt32LE(1000, 28);
  b.writeInt32LE(type, 32);
  const extent = Number.isFinite(box[0]) ? box : [0, 0, 0, 0];
  extent.forEach((v, i) => b.writeDoubleLE(v!, 36 + 8 * i));
  return b;
}

const FILES = ['shp', 'shx', 'dbf'] as const;

/**
 * Writes the rows into `dir` as Shapefile sets named `<base>_<kind>`, deflated; answers the sets' zip entries and the
 * notes.
 */
async function writeSets(acquire: () => Promise<PooledConnection>, file: string, loc: ExportLocation, dir: string, base: string, signal?: AbortSignal) {
  const attributes = await exportAttributes(acquire, file, loc);
  if (attributes.length > DBF_MAX_FIELDS) throw new StudioError(422, `A Shapefile holds at most ${DBF_MAX_FIELDS} columns: this dataset has ${attributes.length}; download GeoPackage instead`);
  const fields = await dbfFields(acquire, file, attributes);
  const recordLength = dbfRecordLength(fields);
  const notes: DbfNotes = { cut: fields.map(() => 0), dropped: fields.map(() => 0) };
  let mixed = 0;
  const sets = new Map<Kind, ShapeSet>();
  const setOf = async (kind: Kind): Promise<ShapeSet> => {
    let set = sets.get(kind);
    if (set) return set;
    const stem = `${base}_${kind}`;
    const body = (ext: string) => new DeflatedBody(path.join(dir, `${stem}.${ext}.deflated`));
    set = { kind, stem, shp: body('shp'), shx: body('shx'), dbf: body('dbf'), shpBytes: 100, records: 0, box: [Infinity, Infinity, -Infinity, -Infinity], pending: { shp: new Bytes(), shx: new Bytes(), dbf: new Bytes(0x20) } };
    sets.set(kind, set);
    return set;
  };
  // The three files' deflates run side by side; the next chunk is read while they work.
  const flush = (set: ShapeSet) =>
    Promise.all(
      FILES.map((name) => {
        const pending = set.pending[name];
        const taken = pending.take();
        return set[name].write(taken, () => pending.giveBack(taken));
      }),
    );
  const entries: ZipEntry[] = [];
  try {
    // Column by column, as DuckDB hands the chunk over: no row objects, and points from a latitude/longitude pair
    // written straight from the two columns (no geometry object, no Shape): at 1M points the row objects were most
    // of the download's JavaScript time.
    for await (const chunk of exportColumnChunks(acquire, file, loc, attributes, signal)) {
      // Text fields take their bytes straight from the vectors, integers come as numbers: no string or BigInt a value.
      const columns = chunk.vectors.map((v, i) => (fields[i]!.type === 'C' && TextBytes.of(v)) || ((fields[i]!.attribute.kind === 'integer' ? integerValues(v) : vectorValues(v)) as AttributeValue[]));
      for (let r = 0; r < chunk.rowCount; r++) {
        let kind: Kind;
        let shape: Shape | null = null;
        // A point's position as two numbers, not an array a row (pointAt's rule: both there and finite).
        let px = 0;
        let py = 0;
        let point = false;
        if (chunk.x && chunk.y) {
          px = chunk.x[r] ?? NaN;
          py = chunk.y[r] ?? NaN;
          point = Number.isFinite(px) && Number.isFinite(py);
          kind = point ? 'points' : 'nogeometry';
        } else {
          const text = chunk.geojson![r];
          const geometry = text ? (JSON.parse(text) as Geometry) : null;
          const g = geometry ? merged(geometry) : null;
          if (geometry && !g) mixed++;
          kind = g ? KIND_OF[g.type] : 'nogeometry';
          shape = g ? shapeOf(g) : null;
        }
        // The set is made once per kind: no await (a microtask) a row once it exists.
        const set = sets.get(kind) ?? (await setOf(kind));
        const { shp, shx, dbf } = set.pending;
        const headerAt = shp.reserve(8);
        const length = point ? writePoint(shp, px, py) : writeShape(shp, SHAPE_TYPE[kind], shape);
        shp.buf.writeInt32BE(++set.records, headerAt);
        shp.buf.writeInt32BE(length / 2, headerAt + 4);
        const index = shx.reserve(8);
        shx.buf.writeInt32BE(set.shpBytes / 2, index);
        shx.buf.writeInt32BE(length / 2, index + 4);
        set.shpBytes += 8 + length;
        if (set.shpBytes > SHP_MAX_BYTES) throw new StudioError(413, 'A Shapefile .shp holds at most 2 GB: download GeoPackage or FlatGeobuf for this dataset');
        const b = set.box;
        if (point) {
          if (px < b[0]!) b[0] = px;
          if (py < b[1]!) b[1] = py;
          if (px > b[2]!) b[2] = px;
          if (py > b[3]!) b[3] = py;
        } else if (shape) {
          if (shape.box[0]! < b[0]!) b[0] = shape.box[0]!;
          if (shape.box[1]! < b[1]!) b[1] = shape.box[1]!;
          if (shape.box[2]! > b[2]!) b[2] = shape.box[2]!;
          if (shape.box[3]! > b[3]!) b[3] = shape.box[3]!;
        }
        const at = dbf.reserve(recordLength);
        writeDbfRecord(dbf.buf, at, fields, columns, r, notes);
      }
      for (const set of sets.values()) await flush(set);
    }
    // A dataset without rows still gets its (empty) set of the one type it could have.
    if (!sets.size) await setOf(loc.geometry ? 'nogeometry' : 'points');
    const order: Kind[] = ['points', 'multipoints', 'lines', 'polygons', 'nogeometry'];
    for (const set of order.flatMap((k) => sets.get(k) ?? [])) {
      await set.dbf.write(Buffer.from([0x1a]));
      await Promise.all(FILES.map((name) => set[name].end()));
      const type = SHAPE_TYPE[set.kind];
      const heads = { shp: shpHeader(type, set.shpBytes, set.box), shx: shpHeader(type, 100 + 8 * set.records, set.box), dbf: dbfHeader(fields, set.records) };
      entries.push(
        ...FILES.map((ext) => ({ name: `${set.stem}.${ext}`, deflated: { head: heads[ext], body: set[ext] } })),
        { name: `${set.stem}.prj`, data: Buffer.from(WGS84_PRJ) },
        { name: `${set.stem}.cpg`, data: Buffer.from('UTF-8') },
      );
    }
  } catch (e) {
    await Promise.all([...sets.values()].flatMap((set) => FILES.map((name) => set[name].destroy())));
    throw e;
  }
  return { entries, fields, notes: notesText(fields, notes, mixed) };
}

/** The zip's notes.txt: what Shapefile could not keep, counted (empty when everything was kept). */
function notesText(fields: DbfField[], notes: DbfNotes, mixed: number): string {
  const lines: string[] = [];
  fields.forEach((f, i) => {
    if (notes.cut[i]) lines.push(`${notes.cut[i]} value(s) of column "${f.attribute.name}" cut to ${DBF_TEXT_BYTES} bytes, the most a Shapefile (dBase) text field holds`);
    if (notes.dropped[i]) lines.push(`${notes.dropped[i]} value(s) of column "${f.attribute.name}" left empty: a dBase ${f.type === 'D' ? 'date' : 'number'} field cannot hold them`);
  });
  if (mixed) lines.push(`${mixed} row(s) whose geometry collection mixes points, lines and polygons written without geometry (in the _nogeometry set): a Shapefile holds one geometry type`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** The columns.csv of the zip when a name was shortened: each column's name and its field name in the .dbf. */
function columnsCsv(fields: DbfField[]): string {
  if (fields.every((f) => f.name === f.attribute.name)) return '';
  const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
  return `column,shapefile_field\n${fields.map((f) => `${q(f.attribute.name)},${q(f.name)}`).join('\n')}\n`;
}

/** The Shapefile download: the sets written to a temp folder, then zipped as they are read, the folder removed. */
export async function* shapefileZip(acquire: () => Promise<PooledConnection>, tmpDir: string, file: string, loc: ExportLocation, base: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (!geometrySql(loc, 'geojson')) throw new StudioError(422, 'Shapefile needs a location: this dataset has no geometry or latitude/longitude columns');
  const dir = path.join(tmpDir, `export-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    const { entries, fields, notes } = await writeSets(acquire, file, loc, dir, base, signal);
    const mapping = columnsCsv(fields);
    if (mapping) entries.push({ name: 'columns.csv', data: Buffer.from(mapping) });
    if (notes) entries.push({ name: 'notes.txt', data: Buffer.from(notes) });
    yield* zipStream(entries);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
