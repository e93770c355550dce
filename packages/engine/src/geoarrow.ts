import { Field, FixedSizeList, Float64, List, RecordBatch, RecordBatchReader, Schema, Struct, Table, Utf8, makeData, tableToIPC, type Data, type Vector } from 'apache-arrow';
import type { Geometry, Position } from 'geojson';
import { parseGeometry } from './geometry-text';
import { PolygonScanner } from './polygon-scan';

/**
 * A dataset's Arrow stream with its polygon geometry column as native GeoArrow (`geoarrow.multipolygon`), for the
 * map builder: kepler.gl's GeoJSON layer triangulates that column straight from its coordinate buffers instead of
 * parsing a GeoJSON string a row (docs/decisions.md, "GeoArrow to the map"). Polygon and MultiPolygon text share
 * one column (a Polygon is a MultiPolygon of one part). A column holding anything else (points, lines, mixed kinds)
 * keeps its text: kepler's GeoArrow paths take one geometry kind a column, and its text path draws every kind.
 */
export const GEOARROW_EXTENSION = 'ARROW:extension:name';
export const GEOARROW_MULTIPOLYGON = 'geoarrow.multipolygon';

/** Growable typed-array column buffers: the Arrow vectors are built from these, never from per-row objects. */
class Growing<T extends Float64Array | Int32Array> {
  length = 0;
  constructor(private buf: T) {}
  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new (this.buf.constructor as { new (n: number): T })(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }
  done(): T {
    return this.buf.subarray(0, this.length) as T;
  }
}

const VERTEX = new FixedSizeList(2, new Field('xy', new Float64(), false));
const RING = new List(new Field('vertices', VERTEX, false));
const POLYGON = new List(new Field('rings', RING, false));
const MULTIPOLYGON = new List(new Field('polygons', POLYGON, false));

/** The polygons of one geometry, or undefined when it is not polygonal (the column then stays text). */
function polygonsOf(g: Geometry | null): Position[][][] | null | undefined {
  if (!g) return null;
  if (g.type === 'Polygon') return [g.coordinates];
  if (g.type === 'MultiPolygon') return g.coordinates;
  return undefined;
}

/** One batch's geometry text as a `geoarrow.multipolygon` vector; undefined when a row is not polygonal. */
function multipolygonData(column: Vector): Data<List> | undefined {
  const n = column.length;
  const xy = new Growing(new Float64Array(1024));
  const rings = new Growing(new Int32Array(256));
  const polygons = new Growing(new Int32Array(64));
  const geoms = new Int32Array(n + 1);
  const valid = new Uint8Array((n + 7) >> 3);
  rings.push(0);
  polygons.push(0);
  let nulls = 0;
  const sink = { xy, rings, polygons };
  // The text's bytes as Arrow holds them: the plain Polygon/MultiPolygon text is scanned there, undecoded (polygon-scan.ts).
  const chunks = column.data as Data<Utf8>[];
  const scanners = chunks.map((d) => new PolygonScanner(d.values, sink));
  for (let i = 0, chunk = 0, at = 0; i < n; i++, at++) {
    while (at >= chunks[chunk]!.length) (chunk++, (at = 0));
    const data = chunks[chunk]!;
    if (data.getValid(at) && scanners[chunk]!.polygons(data.valueOffsets[at]!, data.valueOffsets[at + 1]!)) {
      valid[i >> 3]! |= 1 << (i & 7);
      geoms[i + 1] = polygons.length - 1;
      continue;
    }
    const text = column.get(i) as string | null;
    // Text that does not parse is drawn as nothing today too: a null geometry, not a failed answer.
    const parts = text == null ? null : polygonsOf(parseGeometry(text));
    if (parts === undefined) return undefined;
    if (parts === null) nulls++;
    else {
      valid[i >> 3]! |= 1 << (i & 7);
      for (const polygon of parts) {
        for (const ring of polygon) {
          for (const p of ring) {
            xy.push(p[0]!);
            xy.push(p[1]!);
          }
          rings.push(xy.length / 2);
        }
        polygons.push(rings.length - 1);
      }
    }
    geoms[i + 1] = polygons.length - 1;
  }
  const coords = xy.done();
  const vertices = makeData({ type: VERTEX, length: coords.length / 2, nullCount: 0, child: makeData({ type: new Float64(), length: coords.length, data: coords }) });
  const ringData = makeData({ type: RING, length: rings.length - 1, nullCount: 0, valueOffsets: rings.done(), child: vertices });
  const polygonData = makeData({ type: POLYGON, length: polygons.length - 1, nullCount: 0, valueOffsets: polygons.done(), child: ringData });
  return makeData({ type: MULTIPOLYGON, length: n, nullCount: nulls, nullBitmap: nulls ? valid : undefined, valueOffsets: geoms, child: polygonData });
}

/** Every batch of the table with `column` replaced, or undefined when a batch's column cannot be. */
function convert(table: Table, column: string): RecordBatch[] | undefined {
  const at = table.schema.fields.findIndex((f) => f.name === column);
  if (at < 0 || !(table.schema.fields[at]!.type instanceof Utf8)) return undefined;
  const fields = table.schema.fields.map((f, i) => (i === at ? new Field(f.name, MULTIPOLYGON, true, new Map([[GEOARROW_EXTENSION, GEOARROW_MULTIPOLYGON]])) : f));
  const schema = new Schema(fields, table.schema.metadata);
  const out: RecordBatch[] = [];
  for (const batch of table.batches) {
    const geometry = multipolygonData(batch.getChildAt(at)!);
    if (!geometry) return undefined;
    const children = batch.data.children.map((c, i) => (i === at ? geometry : c));
    out.push(new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children })));
  }
  return out;
}

/**
 * The Arrow IPC stream `ipc` with `column` as GeoArrow when every value in it is a polygon, a multipolygon or null;
 * otherwise the same table as it came. The whole table is read first: a stream's schema comes before its rows, and
 * one row anywhere that is not polygonal decides the column's type (the map holds the whole table anyway).
 */
export async function* geoArrowStream(ipc: AsyncIterable<Uint8Array>, column: string): AsyncGenerator<Uint8Array> {
  const reader = await RecordBatchReader.from(ipc);
  const batches: RecordBatch[] = [];
  for await (const batch of reader) batches.push(batch);
  const table = new Table(reader.schema, batches);
  const converted = convert(table, column);
  yield tableToIPC(converted ? new Table(converted) : table, 'stream');
}
