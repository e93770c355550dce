import { PERIOD_TYPES, type PeriodType } from '@studio/analytics';
import { StudioError, TABLE_PAGE_SIZE, widgetShape, type AnalyticSource, type ParameterValue, type Widget, type WidgetResult } from '@studio/schema';
import type { WidgetRun } from './widget-pipeline';

/**
 * Widgets answered by an analytic set's template: the template's own parameters, with the dashboard
 * parameters bound to the widget put in place of the query parameter their `column` names, and the
 * template's rows cut to what the widget shows. The metric SQL is the analytic sets' own (the same query,
 * the same cache), so a dashboard made from a view shows that view's numbers.
 */

/** Query parameters of the templates that a dashboard parameter can set (lists of values, or the period). */
export const BINDABLE_ANALYTIC_PARAMETERS = ['geographies', 'places', 'age', 'gender', 'income', 'period'] as const;

const quarterOf = (day: string) => `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;

/** A period in days as the template's period, in the period type the widget already uses. */
export function periodOfRange(type: PeriodType, range: { from: string; to: string }): { periodType: PeriodType; start: string; end: string } {
  switch (type) {
    case 'DAILY': return { periodType: type, start: range.from, end: range.to };
    case 'MONTHLY': return { periodType: type, start: range.from.slice(0, 7), end: range.to.slice(0, 7) };
    case 'QUARTERLY': return { periodType: type, start: quarterOf(range.from), end: quarterOf(range.to) };
  }
}

/**
 * The template parameters of one run: the widget's saved ones, then each bound dashboard parameter's
 * checked value (`values` by parameter id, already parsed against its type) in place of the one its
 * column names. A parameter bound to anything else is refused: it would filter nothing.
 */
export function analyticParameters(source: AnalyticSource, bound: { column: string; id: string }[], values: Record<string, ParameterValue>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...source.parameters };
  for (const p of bound) {
    const v = values[p.id];
    if (!v) continue;
    if (!(BINDABLE_ANALYTIC_PARAMETERS as readonly string[]).includes(p.column)) {
      throw new StudioError(422, `Parameter ${p.id} filters ${p.column}, which template ${source.templateId} does not take`, `Bind it to one of ${BINDABLE_ANALYTIC_PARAMETERS.join(', ')}`);
    }
    if (p.column === 'period') {
      if (v.kind !== 'range') throw new StudioError(422, `Invalid value for parameter ${p.id}: the period of template ${source.templateId} takes a period parameter`);
      const saved = (source.parameters.period as { periodType?: unknown } | undefined)?.periodType;
      const type = PERIOD_TYPES.includes(saved as PeriodType) ? (saved as PeriodType) : 'MONTHLY';
      out.period = periodOfRange(type, v);
    } else {
      out[p.column] = v.kind === 'values' ? v.values : v.kind === 'text' ? [v.text] : [];
    }
  }
  return out;
}

type Row = Record<string, unknown>;
const same = (a: unknown, b: unknown) => (a === null || a === undefined ? b === null : String(a) === String(b));

/**
 * The widget's result from the template's rows: the rows other widgets' clicks leave (a widget is not
 * filtered by its own), the chart's columns (x, series, y) or every column, sorted and paged for tables.
 */
export function analyticResult(widget: Widget, rows: Row[], run: Pick<WidgetRun, 'crossFilters' | 'page' | 'sort'>, opts: { csv?: boolean } = {}): WidgetResult {
  const all = rows[0] ? Object.keys(rows[0]) : [];
  const shape = widgetShape(widget);
  const names = shape.measures.length ? [...shape.dimensions, ...shape.measures] : all;
  const missing = names.find((n) => rows.length > 0 && !all.includes(n));
  if (missing) throw new StudioError(422, `Template ${widget.analytic!.templateId} has no column ${missing}`, `Its columns: ${all.join(', ')}`);
  let kept = rows;
  for (const f of run.crossFilters) {
    if (f.widgetId === widget.id || !all.includes(f.column)) continue;
    kept = kept.filter((r) => same(r[f.column], f.value));
  }
  const sort = run.sort;
  if (sort) {
    if (!all.includes(sort.by)) throw new StudioError(422, `Cannot sort by ${sort.by}: the widget has no such column`);
    const dir = sort.desc ? -1 : 1;
    kept = [...kept].sort((a, b) => {
      const [x, y] = [a[sort.by], b[sort.by]];
      if (x === y) return 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  }
  const paged = widget.kind === 'table' && !opts.csv;
  const shown = paged ? kept.slice(run.page * TABLE_PAGE_SIZE, (run.page + 1) * TABLE_PAGE_SIZE) : kept;
  const typeOf = (n: string) => {
    const v = kept.find((r) => r[n] !== null && r[n] !== undefined)?.[n];
    return v === undefined ? 'null' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string';
  };
  return {
    columns: names.map((name) => ({ name, type: typeOf(name) })),
    rows: shown.map((r) => names.map((n) => r[n] ?? null)),
    ...(paged ? { total: kept.length } : {}),
  };
}
