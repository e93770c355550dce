import {
  StudioError,
  TABLE_PAGE_SIZE,
  parseParameterValue,
  measureName,
  previousRange,
  type CrossFilter,
  type Measure,
  type Parameter,
  type ParameterValue,
  type Widget,
  type WidgetFilter,
  type WidgetQuery,
} from '@studio/schema';

/**
 * A widget's query as a pipeline (dataset → filter → group → sort → limit), built from its validated
 * config. Names and values reach the pipeline only as expression text the pipeline parser reads back
 * into an AST: identifiers in "…" and values in '…' (each with its quote doubled), so the compiler
 * binds every value as a parameter and quotes every name; nothing here is SQL.
 */
type Node = Record<string, unknown> & { type: string; input?: Node[] };

export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
export function lit(v: string | number | boolean | null): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new StudioError(422, 'Filter values must be finite numbers');
    // The expression grammar has no exponent: a number too large or small for plain digits stays exact via toFixed.
    return /e/i.test(String(v)) ? v.toFixed(20).replace(/\.?0+$/, '') : String(v);
  }
  return v ? 'true' : 'false';
}

function filterText(f: WidgetFilter): string {
  const c = ident(f.column);
  const values = Array.isArray(f.value) ? f.value : [f.value];
  switch (f.op) {
    case 'in': return `${c} IN (${values.map(lit).join(', ')})`;
    case 'contains': return `lower(to_string(${c})) LIKE ${lit(`%${String(values[0]).toLowerCase()}%`)}`;
    default: return `${c} ${f.op} ${lit(values[0]!)}`;
  }
}

const dayAfter = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Rows of a period: from its first day to the end of its last (timestamps on the last day count). */
const rangeText = (column: string, r: { from: string; to: string }) => `${ident(column)} >= ${lit(r.from)} AND ${ident(column)} < ${lit(dayAfter(r.to))}`;

function parameterText(p: Parameter, v: ParameterValue): string {
  const c = ident(p.column);
  switch (v.kind) {
    case 'range': return rangeText(p.column, v);
    case 'text': return `lower(to_string(${c})) LIKE ${lit(`%${v.text.toLowerCase()}%`)}`;
    case 'values': return v.values.length === 1 ? `to_string(${c}) = ${lit(v.values[0]!)}` : `to_string(${c}) IN (${v.values.map(lit).join(', ')})`;
  }
}

const crossText = (f: CrossFilter) => (f.value === null ? `${ident(f.column)} IS NULL` : `to_string(${ident(f.column)}) = ${lit(String(f.value))}`);

const measureText = (m: Measure) => `${m.fn}(${m.fn === 'count' ? '*' : ident(m.column!)}) AS ${ident(measureName(m))}`;

function dimensionText(q: WidgetQuery, d: string, first: boolean): string {
  if (first && q.binWidth !== undefined) return `floor(to_double(${ident(d)}) / ${lit(q.binWidth)}) * ${lit(q.binWidth)} AS ${ident(d)}`;
  if (first && q.timeUnit) return `date_trunc('${q.timeUnit}', ${ident(d)}) AS ${ident(d)}`;
  return ident(d);
}

export interface WidgetRun {
  /** Link-form values by parameter id (unknown ids are ignored: links carry other things too). */
  parameters: Record<string, string>;
  crossFilters: CrossFilter[];
  page: number;
  sort?: { by: string; desc: boolean };
}

export interface WidgetPlan {
  datasetId: string;
  /** The rows the widget shows. */
  main: Node;
  /** Tables: the number of matching rows. */
  count?: Node;
  /** KPIs bound to a period: the same measures over the previous period. */
  previous?: Node;
  /** The checked parameter values, for the cache key. */
  values: Record<string, ParameterValue>;
}

/** Checks every bound parameter's value (422 naming the parameter) before anything runs. */
export function checkedValues(widget: Widget, params: Parameter[], given: Record<string, string>, today: Date): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  for (const id of widget.parameterIds) {
    const p = params.find((x) => x.id === id);
    if (!p) continue;
    const v = parseParameterValue(p, given[id] ?? p.defaultValue, today);
    if (v) out[id] = v;
  }
  return out;
}

/** The widget's pipelines for one run; `forCsv` lifts the row limit to the export's. */
export function planWidget(widget: Widget, params: Parameter[], run: WidgetRun, today: Date, opts: { csvLimit?: number } = {}): WidgetPlan {
  const q = widget.query;
  if (!q) throw new StudioError(422, `Widget ${widget.id} (${widget.kind}) has no data to query`);
  const values = checkedValues(widget, params, run.parameters, today);
  const conditions = q.filters.map(filterText);
  let periodOf: { column: string; range: { from: string; to: string } } | undefined;
  for (const [id, v] of Object.entries(values)) {
    const p = params.find((x) => x.id === id)!;
    conditions.push(parameterText(p, v));
    if (v.kind === 'range' && (!q.dateColumn || q.dateColumn === p.column)) periodOf = { column: p.column, range: v };
  }
  // A widget is not filtered by its own clicks: the analyst clicked it to filter the others.
  for (const f of run.crossFilters) if (f.widgetId !== widget.id) conditions.push(crossText(f));

  const source = (extra: string[] = conditions): Node => {
    const dataset: Node = { type: 'dataset', uuid: q.datasetId };
    return extra.length ? { type: 'filter', expression: extra.map((c) => `(${c})`).join(' AND '), input: [dataset] } : dataset;
  };
  const sortKeys = (by: string, desc: boolean) => [desc ? `desc(${ident(by)})` : ident(by)];
  const sorted = (input: Node, keys: string[] | null): Node => (keys ? { type: 'sort', by: keys, input: [input] } : input);
  const limited = (input: Node, length: number, offset = 0): Node => ({ type: 'limit', length, ...(offset ? { offset } : {}), input: [input] });

  if (q.measures.length > 0) {
    const group = (input: Node): Node => {
      const by = q.dimensions.map((d, n) => dimensionText(q, d, n === 0));
      return { type: 'group', by, expressions: q.measures.map(measureText), input: [input] };
    };
    const chosen = run.sort ?? q.sort;
    // Time and histogram axes read left to right; other charts show the largest first.
    const keys = chosen
      ? sortKeys(chosen.by, chosen.desc)
      : q.dimensions.length === 0
        ? null
        : q.timeUnit || q.binWidth !== undefined || widget.kind === 'line' || widget.kind === 'area' || widget.kind === 'heatmap'
          ? q.dimensions.map(ident)
          : [...sortKeys(measureName(q.measures[0]!), true), ...q.dimensions.map(ident)];
    const length = opts.csvLimit ?? q.limit;
    const main = limited(sorted(group(source()), keys), length);
    const plan: WidgetPlan = { datasetId: q.datasetId, main, values };
    if (widget.kind === 'kpi' && periodOf) {
      const prev = previousRange(periodOf.range);
      const others = conditions.filter((c) => c !== rangeText(periodOf!.column, periodOf!.range));
      plan.previous = group(source([...others, rangeText(periodOf.column, prev)]));
    }
    return plan;
  }

  if (q.columns.length === 0) throw new StudioError(422, `Widget ${widget.id} needs measures or columns`);
  const select = (input: Node): Node => ({ type: 'select', expressions: q.columns.map(ident), input: [input] });
  const chosen = run.sort ?? q.sort;
  const keys = chosen ? sortKeys(chosen.by, chosen.desc) : null;
  if (opts.csvLimit) return { datasetId: q.datasetId, main: limited(sorted(select(source()), keys), opts.csvLimit), values };
  if (widget.kind === 'table') {
    return {
      datasetId: q.datasetId,
      main: limited(sorted(select(source()), keys), TABLE_PAGE_SIZE, run.page * TABLE_PAGE_SIZE),
      count: { type: 'group', by: [], expressions: ['count(*) AS "total"'], input: [source()] },
      values,
    };
  }
  return { datasetId: q.datasetId, main: limited(sorted(select(source()), keys), q.limit), values };
}

/** Every dataset a dashboard's widgets and parameters name: the only ones its readers may reach. */
export function datasetsOfState(state: { widgets: Widget[]; parameters: Parameter[] }): Set<string> {
  const out = new Set<string>();
  for (const w of state.widgets) if (w.query) out.add(w.query.datasetId);
  for (const p of state.parameters) if (p.source.kind !== 'STATIC') out.add(p.source.datasetId);
  return out;
}

/** The pipeline of a parameter's choices: a column's distinct values, or the first column of an expression. */
export function parameterValuesPlan(p: Parameter, search: string | undefined): { datasetId: string; main: Node } | null {
  if (p.source.kind === 'STATIC') return null;
  const expr = p.source.kind === 'DYNAMIC' ? ident(p.source.column) : p.source.expression;
  const dataset: Node = { type: 'dataset', uuid: p.source.datasetId };
  const filtered: Node = search ? { type: 'filter', expression: `lower(to_string(${expr})) LIKE ${lit(`%${search.toLowerCase()}%`)}`, input: [dataset] } : dataset;
  const group: Node = { type: 'group', by: [`to_string(${expr}) AS "value"`], expressions: [], input: [filtered] };
  const nonNull: Node = { type: 'filter', expression: '"value" IS NOT NULL', input: [group] };
  return { datasetId: p.source.datasetId, main: { type: 'limit', length: 1000, input: [{ type: 'sort', by: ['"value"'], input: [nonNull] }] } };
}
