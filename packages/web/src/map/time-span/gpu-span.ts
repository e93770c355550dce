import { KeplerTable } from '@kepler.gl/table';

/**
 * Features that last (kepler.gl #3198, upstream after 3.2.6): a time filter with an end-time field draws a feature
 * while its [start, end] interval overlaps the playback window, not only while its start is inside it.
 *
 * kepler 3.2 filters time on the GPU: each dataset has up to four filter channels, a value per row and a [min, max]
 * per channel (deck's DataFilterExtension), and a time filter holds one. Overlap is two one-sided tests, start <= the
 * window's end and end >= the window's start, so the filter keeps its channel for the start with its lower bound
 * opened, and a free channel of the same dataset takes the end with its upper bound opened. Both are written into
 * the dataset's `gpuFilter` right where kepler makes it (KeplerTable.filterTable), before the layers' data is made
 * from it, so every layer, the PNG and video export (the same store) and picking see the same filter.
 *
 * The end field is kept on kepler's filter object as `studioEndName` (one name or null per dataset of the filter, as
 * `name` is): kepler's setFilter keeps a property it does not know and filters the datasets again when it changes.
 */
export const END_FIELD = 'studioEndName';

/** Below any start (times are relative to the filter domain's start) yet above kepler's null marker, Number.MIN_SAFE_INTEGER. */
const OPEN_LOW = -1e15;
/** A missing end: still going (as upstream treats it). The end channel's upper bound is past it. */
const NO_END = 1e15;
const OPEN_HIGH = 2e15;

type Row = { index: number } | undefined;
type GetIndex = (d: never) => number;
type GetData = (dc: unknown, d: unknown, fieldIndex: number) => unknown;
type ValueAccessor = (dc: unknown) => (getIndex?: GetIndex, getData?: GetData) => (d: unknown, info?: { index: number }) => (number | number[])[];

export interface GpuFilter {
  filterRange: number[][];
  filterValueUpdateTriggers: Record<string, { name: string; domain0: number } | null>;
  filterValueAccessor: ValueAccessor;
}

export interface SpanFilter {
  id: string;
  type?: string;
  gpu?: boolean;
  dataId: string[];
  gpuChannel?: number[];
  value: unknown;
  domain?: number[];
  [END_FIELD]?: (string | null)[];
}

export interface SpanField {
  name: string;
  type: string;
  format?: string;
  valueAccessor?: (row: { index: number }) => unknown;
}

interface DataContainer {
  mapIndex<T>(fn: (row: { index: number }) => T): T[];
}

/** One time filter with an end field on one dataset: its two channels and its window, relative to its domain's start. */
export interface Span {
  startChannel: number;
  endChannel: number;
  endFieldIdx: number;
  window: [number, number];
  domain0: number;
}

/**
 * The spans of a dataset's filters: its GPU time filters that name an end field of this dataset, each given a channel
 * no other GPU filter of the dataset holds. With all four taken the filter plays by its start alone, as before.
 */
export function spansOf(filters: readonly SpanFilter[], dataId: string, fields: readonly SpanField[]): Span[] {
  const mine = filters.filter((f) => f.gpu && f.dataId.includes(dataId));
  const used = new Set(mine.map((f) => f.gpuChannel?.[f.dataId.indexOf(dataId)]));
  const spans: Span[] = [];
  for (const f of mine) {
    const k = f.dataId.indexOf(dataId);
    const endName = f[END_FIELD]?.[k];
    const startChannel = f.gpuChannel?.[k];
    const window = f.value;
    if (f.type !== 'timeRange' || !endName || startChannel === undefined || !Array.isArray(window) || window.length !== 2) continue;
    const endFieldIdx = fields.findIndex((x) => x.name === endName && x.type === 'timestamp');
    const endChannel = [0, 1, 2, 3].find((c) => !used.has(c));
    if (endFieldIdx < 0 || endChannel === undefined) continue;
    used.add(endChannel);
    spans.push({ startChannel, endChannel, endFieldIdx, window: [Number(window[0]), Number(window[1])], domain0: f.domain?.[0] ?? 0 });
  }
  return spans;
}

const millis = (raw: unknown): number | null => {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : null;
  if (raw instanceof Date) return raw.valueOf();
  if (typeof raw === 'string' && raw) {
    const t = Date.parse(raw);
    return Number.isNaN(t) ? null : t;
  }
  return null;
};

/** A field's times as epoch milliseconds, row by row, read once per data container as kepler reads a time filter's own field. */
const mappedEnds = new WeakMap<object, Map<string, (number | null)[]>>();
function endsOf(dc: DataContainer, field: SpanField): (number | null)[] {
  let byField = mappedEnds.get(dc);
  if (!byField) mappedEnds.set(dc, (byField = new Map()));
  let ends = byField.get(field.name);
  if (!ends) {
    const read = field.valueAccessor;
    ends = dc.mapIndex((row) => millis(read ? read(row) : null));
    byField.set(field.name, ends);
  }
  return ends;
}

const defaultIndex = (d: { index: number }) => d.index;

/**
 * A row's end time. With a data container, from its field's times by row (the layer's own row index for the item:
 * a GeoJSON feature names its row); without one (vector tiles), from the item as the layer reads it.
 */
function endReader(dc: unknown, field: SpanField, fieldIdx: number, getIndex?: GetIndex, getData?: GetData): (d: unknown, info?: { index: number }) => number | null {
  const index = (getIndex ?? defaultIndex) as (d: unknown) => number;
  if (dc && typeof (dc as DataContainer).mapIndex === 'function') {
    const ends = endsOf(dc as DataContainer, field);
    return (d, info) => ends[d !== undefined && d !== null ? index(d) : (info?.index ?? -1)] ?? null;
  }
  return (d, info) => {
    if (!getData) return null;
    const data = getData(dc, (d ?? info) as Row, fieldIdx);
    return millis(typeof data === 'function' ? (data as (f: SpanField) => unknown)(field) : data);
  };
}

/**
 * kepler's gpuFilter with the spans: each start channel's lower bound opened, each end channel filled with the end
 * times and bounded below by the window's start. An end channel's update trigger is the same object while its field
 * and domain stay (deck compares triggers shallowly: a new one each playback frame would re-read every row's value).
 */
export function withSpans(gpu: GpuFilter, spans: readonly Span[], fields: readonly SpanField[], previous?: GpuFilter): GpuFilter {
  if (!spans.length) return gpu;
  const filterRange = gpu.filterRange.map((r) => [...r]);
  const filterValueUpdateTriggers = { ...gpu.filterValueUpdateTriggers };
  for (const s of spans) {
    filterRange[s.startChannel] = [OPEN_LOW, s.window[1] - s.domain0];
    filterRange[s.endChannel] = [s.window[0] - s.domain0, OPEN_HIGH];
    const key = `gpuFilter_${s.endChannel}`;
    const name = `${END_FIELD}:${fields[s.endFieldIdx]!.name}`;
    const old = previous?.filterValueUpdateTriggers[key];
    filterValueUpdateTriggers[key] = old && old.name === name && old.domain0 === s.domain0 ? old : { name, domain0: s.domain0 };
  }
  const base = gpu.filterValueAccessor;
  const filterValueAccessor: ValueAccessor = (dc) => (getIndex, getData) => {
    const values = base(dc)(getIndex, getData);
    const ends = spans.map((s) => endReader(dc, fields[s.endFieldIdx]!, s.endFieldIdx, getIndex, getData));
    return (d, info) => {
      const v = values(d, info);
      // A trip's values are per vertex (its own timeline), not a span: left as kepler made them.
      if (v.some(Array.isArray)) return v;
      spans.forEach((s, i) => {
        const end = ends[i]!(d, info);
        v[s.endChannel] = end === null ? NO_END : end - s.domain0;
      });
      return v;
    };
  };
  return { filterRange, filterValueUpdateTriggers, filterValueAccessor };
}

type Table = { id: string; fields: SpanField[]; gpuFilter: GpuFilter };
type FilterTable = (this: Table, filters: SpanFilter[], layers: unknown, opt?: unknown) => Table;

let installed = false;
/**
 * Makes kepler's datasets filter by spans (once per page). kepler 3.2 offers no hook between its GPU filter and the
 * layers' data, so its table's filterTable is wrapped: kepler's own work first, the spans on its result.
 */
export function installTimeSpans(): void {
  if (installed) return;
  installed = true;
  const proto = KeplerTable.prototype as unknown as { filterTable: FilterTable };
  const keplers = proto.filterTable;
  proto.filterTable = function filterTable(this: Table, filters, layers, opt) {
    const previous = this.gpuFilter;
    const table = keplers.call(this, filters, layers, opt);
    const spans = spansOf(filters, table.id, table.fields);
    if (spans.length) table.gpuFilter = withSpans(table.gpuFilter, spans, table.fields, previous);
    return table;
  };
}
