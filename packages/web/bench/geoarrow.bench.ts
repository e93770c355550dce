// Polygons to the map as GeoArrow (#46 acceptance): BENCH_GEOARROW_POLYGONS (default 100,000) polygons of 9
// positions, from Arrow IPC bytes to the layer data kepler.gl's GeoJSON layer draws from, in this process:
// - baseline: the geometry as GeoJSON text (what the studio sends today): tableFromIPC, processArrowBatches, then
//   kepler's getGeojsonLayerMeta (each row's text parsed, its centre found; deck.gl still tessellates after this);
// - ours: the same polygons as native GeoArrow (`geoarrow.polygon`: nested lists of x/y pairs): tableFromIPC,
//   processArrowBatches, then the converter kepler's getGeojsonLayerMetaFromArrow calls (binary, triangulated, centres).
// Runs alternate, five each, medians; the load is printed. Standalone: `npx tsx packages/web/bench/geoarrow.bench.ts`.
import os from 'node:os';
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
// kepler.gl's dist is CommonJS and requires apache-arrow's CommonJS build: the tables are made with that same copy
// (an ES-module copy's vectors fail its instanceof checks; the browser bundle has one copy).
const { Field, FixedSizeList, Float64, List, Schema, Table, Utf8, makeData, RecordBatch, Struct, tableFromIPC, tableToIPC } = createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
import { line } from '../../engine/bench/util';

const N = Number(process.env.BENCH_GEOARROW_POLYGONS ?? 100_000);
const RUNS = 5;
const EXTENSION = 'ARROW:extension:name';

/** N octagon-like rings (9 positions, closed) on a grid over the United States, one polygon a row. */
function rings(n: number): Float64Array[] {
  const out: Float64Array[] = [];
  const side = Math.ceil(Math.sqrt(n));
  for (let i = 0; i < n; i++) {
    const cx = -125 + ((i % side) / side) * 59;
    const cy = 24 + (Math.floor(i / side) / side) * 26;
    const r = 0.01;
    const ring = new Float64Array(18);
    for (let k = 0; k < 9; k++) {
      const a = ((k % 8) / 8) * 2 * Math.PI;
      ring[2 * k] = cx + r * Math.cos(a);
      ring[2 * k + 1] = cy + r * Math.sin(a);
    }
    out.push(ring);
  }
  return out;
}

const geojsonText = (ring: Float64Array) => {
  const pts: string[] = [];
  for (let k = 0; k < ring.length; k += 2) pts.push(`[${ring[k]},${ring[k + 1]}]`);
  return `{"type":"Polygon","coordinates":[[${pts.join(',')}]]}`;
};

/** One table of `value` (a number per row) and `geometry` as given, written as IPC stream bytes. */
function ipc(geometry: Arrow.Data, field: Arrow.Field, n: number): Uint8Array {
  const value = makeData({ type: new Float64(), length: n, data: Float64Array.from({ length: n }, (_, i) => i % 100) });
  const fields = [new Field('value', new Float64(), true), field];
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: n, nullCount: 0, children: [value, geometry] }));
  return tableToIPC(new Table([batch]), 'stream');
}

/** Variable-length values as Arrow's offsets and bytes. */
function concat(parts: Uint8Array[]): { valueOffsets: Int32Array; data: Uint8Array } {
  const valueOffsets = new Int32Array(parts.length + 1);
  parts.forEach((p, i) => (valueOffsets[i + 1] = valueOffsets[i]! + p.length));
  const data = new Uint8Array(valueOffsets[parts.length]!);
  parts.forEach((p, i) => data.set(p, valueOffsets[i]!));
  return { valueOffsets, data };
}

function textTable(rs: Float64Array[]): Uint8Array {
  const parts = rs.map((r) => Buffer.from(geojsonText(r)));
  const data = makeData({ type: new Utf8(), length: parts.length, ...concat(parts) });
  return ipc(data, new Field('_geojson', new Utf8(), true), rs.length);
}

function polygonTable(rs: Float64Array[]): Uint8Array {
  const n = rs.length;
  const coords = new Float64Array(rs.reduce((s, r) => s + r.length, 0));
  const ringOffsets = new Int32Array(n + 1);
  const polyOffsets = new Int32Array(n + 1);
  let at = 0;
  rs.forEach((r, i) => {
    coords.set(r, at);
    at += r.length;
    ringOffsets[i + 1] = at / 2;
    polyOffsets[i + 1] = i + 1;
  });
  const xy = new Field('xy', new Float64(), false);
  const vertex = new FixedSizeList(2, xy);
  const ring = new List(new Field('vertices', vertex, false));
  const polygon = new List(new Field('rings', ring, false));
  const xyData = makeData({ type: new Float64(), length: coords.length, data: coords });
  const vertices = makeData({ type: vertex, length: coords.length / 2, child: xyData });
  const ringData = makeData({ type: ring, length: n, valueOffsets: ringOffsets, child: vertices });
  const polygons = makeData({ type: polygon, length: n, valueOffsets: polyOffsets, child: ringData });
  return ipc(polygons, new Field('geometry', polygon, true, new Map([[EXTENSION, 'geoarrow.polygon']])), n);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const { processArrowBatches } = await import('@kepler.gl/processors');
  // kepler 3.2.6's getGeojsonLayerMetaFromArrow imports getBinaryGeometriesFromArrow and updateBoundsFromGeoArrowSamples
  // from @loaders.gl/arrow, which 4.5 (installed) moved to @loaders.gl/gis and /geoarrow: in this tree it throws. The
  // bench calls the converter it would call, with its options (triangulated, centres computed).
  const gis = createRequire(import.meta.url)('@loaders.gl/gis') as {
    getBinaryGeometriesFromArrow(column: unknown, encoding: string, o: { triangulate: boolean; calculateMeanCenters: boolean }): { binaryGeometries: unknown[] };
  };
  const geojsonUtils = (await import('@kepler.gl/layers/dist/geojson-layer/geojson-utils.js')) as unknown as {
    getGeojsonLayerMeta(o: { dataContainer: unknown; getFeature: (d: { index: number }) => unknown; config: { columnMode: string } }): { dataToFeature: unknown[] };
  };
  const rs = rings(N);
  const inputs = { text: textTable(rs), polygon: polygonTable(rs) };
  type Kind = keyof typeof inputs;
  const decode = (kind: Kind): number => {
    const t0 = performance.now();
    const table = tableFromIPC(inputs[kind]);
    const data = processArrowBatches(table.batches as never)!;
    const geo = table.schema.fields.findIndex((f) => f.name !== 'value');
    let features: unknown[];
    if (kind === 'text') {
      const dc = (data as unknown as { dataContainer?: unknown }).dataContainer ?? data;
      const column = table.getChildAt(geo)!;
      features = geojsonUtils.getGeojsonLayerMeta({ dataContainer: { numRows: () => table.numRows }, getFeature: ({ index }) => column.get(index), config: { columnMode: 'geojson' } }).dataToFeature;
      void dc;
    } else {
      const encoding = table.schema.fields[geo]!.metadata.get(EXTENSION)!;
      features = gis.getBinaryGeometriesFromArrow(table.getChildAt(geo), encoding, { triangulate: true, calculateMeanCenters: true }).binaryGeometries;
    }
    if (!features.length) throw new Error(`${kind}: no features`);
    return performance.now() - t0;
  };
  const times: Record<Kind, number[]> = { text: [], polygon: [] };
  decode('text');
  decode('polygon');
  for (let r = 0; r < RUNS; r++) for (const k of ['text', 'polygon'] as Kind[]) times[k].push(decode(k));
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const base = median(times.text);
  console.log(`  ${N} polygons: GeoJSON text ${Math.round(base)} ms (${(inputs.text.length / 1e6).toFixed(1)} MB), geoarrow.polygon ${Math.round(median(times.polygon))} ms (${(inputs.polygon.length / 1e6).toFixed(1)} MB); load ${load} on ${os.cpus().length} cores`);
  line('map.geoarrow_polygons_decoded', median(times.polygon), 'ms', median(times.polygon) / base, '<= 0.5');
}

await main();
