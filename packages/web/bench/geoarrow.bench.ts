// Polygons to the map as GeoArrow (#46 acceptance): BENCH_GEOARROW_POLYGONS (default 100,000) polygons of 9
// positions, from Arrow IPC bytes to the layer data kepler.gl's GeoJSON layer draws from, in this process:
// - baseline: the geometry as GeoJSON text (what the studio sent before #46, and still sends other Arrow readers):
//   tableFromIPC, processArrowBatches, then kepler's getGeojsonLayerMeta (each row's text parsed, its centre found;
//   deck.gl still tessellates after this);
// - ours: what the studio now sends the map builder: the same text table re-encoded by the engine's geoArrowStream
//   (`geoarrow.multipolygon`; not timed, it is the server's), then tableFromIPC, processArrowBatches and kepler's own
//   getGeojsonLayerMetaFromArrow (binary, triangulated, centres), with the loaders.gl 4.5 functions it needs put
//   back on `@loaders.gl/arrow` as the web build's loaders-arrow-compat.ts does.
// Runs alternate, three each, medians; the load is printed. Standalone: `npx tsx packages/web/bench/geoarrow.bench.ts`.
import os from 'node:os';
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
// kepler.gl's dist is CommonJS and requires apache-arrow's CommonJS build: the tables are made with that same copy
// (an ES-module copy's vectors fail its instanceof checks; the browser bundle has one copy).
const { Field, Float64, Schema, Table, Utf8, makeData, RecordBatch, Struct, tableFromIPC, tableToIPC } = createRequire(import.meta.url)('apache-arrow') as typeof Arrow;
import { line } from '../../engine/bench/util';
import { geoArrowStream } from '../../engine/src/geoarrow';

const N = Number(process.env.BENCH_GEOARROW_POLYGONS ?? 100_000);
const RUNS = 3;
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

/** The text table as the studio sends it to the map builder (GET /v1/datasets/{id}/data, Accept ...; geoarrow=1). */
async function studioTable(text: Uint8Array): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const p of geoArrowStream((async function* () { yield text; })(), '_geojson')) parts.push(p);
  if (parts.length !== 1) throw new Error('geoArrowStream answers one IPC stream');
  return parts[0]!;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const require = createRequire(import.meta.url);
  // kepler 3.2.6 requires these from @loaders.gl/arrow; 4.5 (installed) moved them (src/map/loaders-arrow-compat.ts).
  const gis = require('@loaders.gl/gis') as Record<string, unknown>;
  Object.assign(require('@loaders.gl/arrow') as Record<string, unknown>, {
    getBinaryGeometriesFromArrow: gis.getBinaryGeometriesFromArrow,
    parseGeometryFromArrow: gis.convertGeoArrowGeometryToGeoJSON,
    updateBoundsFromGeoArrowSamples: (require('@loaders.gl/geoarrow') as Record<string, unknown>).updateBoundsFromGeoArrowSamples,
  });
  const { processArrowBatches } = await import('@kepler.gl/processors');
  const layerUtils = require('@kepler.gl/layers/dist/layer-utils.js') as {
    getGeojsonLayerMetaFromArrow(o: { geoColumn: unknown; geoField: unknown }): { dataToFeature: unknown[] };
  };
  const geojsonUtils = (await import('@kepler.gl/layers/dist/geojson-layer/geojson-utils.js')) as unknown as {
    getGeojsonLayerMeta(o: { dataContainer: unknown; getFeature: (d: { index: number }) => unknown; config: { columnMode: string } }): { dataToFeature: unknown[] };
  };
  const rs = rings(N);
  const text = textTable(rs);
  const inputs = { text, studio: await studioTable(text) };
  type Kind = keyof typeof inputs;
  const decode = (kind: Kind): number => {
    const t0 = performance.now();
    const table = tableFromIPC(inputs[kind]);
    const data = processArrowBatches(table.batches as never);
    if (!data) throw new Error(`${kind}: kepler read no rows`);
    const geo = table.schema.fields.findIndex((f) => f.name !== 'value');
    const column = table.getChildAt(geo)!;
    const field = table.schema.fields[geo]!;
    let features: unknown[];
    if (kind === 'text') {
      features = geojsonUtils.getGeojsonLayerMeta({ dataContainer: { numRows: () => table.numRows }, getFeature: ({ index }) => column.get(index), config: { columnMode: 'geojson' } }).dataToFeature;
    } else {
      if (field.metadata.get(EXTENSION) !== 'geoarrow.multipolygon') throw new Error('studio: the column is not geoarrow.multipolygon');
      features = layerUtils.getGeojsonLayerMetaFromArrow({ geoColumn: column, geoField: field }).dataToFeature;
    }
    if (!features.length) throw new Error(`${kind}: no features`);
    return performance.now() - t0;
  };
  const times: Record<Kind, number[]> = { text: [], studio: [] };
  decode('text');
  decode('studio');
  for (let r = 0; r < RUNS; r++) for (const k of ['text', 'studio'] as Kind[]) times[k].push(decode(k));
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const base = median(times.text);
  const ours = median(times.studio);
  console.log(`  ${N} polygons: GeoJSON text ${Math.round(base)} ms (${(inputs.text.length / 1e6).toFixed(1)} MB), geoarrow.multipolygon as the studio sends it ${Math.round(ours)} ms (${(inputs.studio.length / 1e6).toFixed(1)} MB); load ${load} on ${os.cpus().length} cores`);
  line('map.geoarrow_polygons_decoded', ours, 'ms', ours / base, '<= 0.5');
}

await main();
