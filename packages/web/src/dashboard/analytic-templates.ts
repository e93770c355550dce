import { DASHBOARD_STATE_VERSION, type DashboardState, type LayoutItem, type Parameter, type Widget, type WidgetKind } from '@studio/schema';
import type { AnalyticSetGroupWire } from '@studio/client';
import type { Params, Period } from '../analytics/QueryBar';

/** `/dashboard/new?templateId=analytic:<viewId>`: a dashboard that reproduces one analytic-set view. */
export const ANALYTIC_TEMPLATE_PREFIX = 'analytic:';
export const analyticTemplateId = (viewId: string) => `${ANALYTIC_TEMPLATE_PREFIX}${viewId}`;

type ChartSpec = AnalyticSetGroupWire['views'][number]['charts'][number];

/** The pivot's dimensions as the Movement Pivot template names its result columns. */
const PIVOT_COLUMNS: Record<string, string> = { geography: 'geography_value', place: 'place_taxonomy_value', period: 'period_value', age: 'age', gender: 'gender', income: 'income' };

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** A template period as days, both ends included: what a RANGE_PERIOD dashboard parameter holds. */
export function periodAsDays(p: Period): string {
  const first = (label: string) => (p.periodType === 'DAILY' ? label : p.periodType === 'MONTHLY' ? `${label}-01` : `${label.slice(0, 4)}-${pad((Number(label.slice(6)) - 1) * 3 + 1)}-01`);
  const last = (label: string) => {
    if (p.periodType === 'DAILY') return label;
    const y = Number(label.slice(0, 4));
    const m = p.periodType === 'MONTHLY' ? Number(label.slice(5, 7)) : Number(label.slice(6)) * 3;
    return `${y}-${pad(m)}-${pad(lastDay(y, m))}`;
  };
  return `${first(p.start)}..${last(p.end)}`;
}

/** Each view's charts as widgets: the template, the columns drawn and the parameters the view gives that chart. */
function widgetOf(viewId: string, c: ChartSpec, params: Params): Widget {
  const geos = (params.geographies as string[] | undefined) ?? [];
  const places = (params.places as string[] | undefined) ?? [];
  let parameters: Params = params;
  // The same narrowing the view applies: Indexed Foot Traffic draws one geography with several places and
  // one place across geographies; the daypart chart stacks the dayparts of one place.
  if (viewId === 'indexed-foot-traffic') parameters = c.id === 'by-place' ? { ...params, geographies: geos.slice(0, 1) } : { ...params, places: places.slice(0, 1) };
  if (c.id === 'trend-daypart') parameters = { ...params, places: places.slice(0, 1) };
  const kind: WidgetKind = c.kind === 'table' ? 'table' : c.kind === 'pivot' ? 'pivot' : c.kind === 'heatmap' ? 'heatmap' : c.id === 'trend-daypart' ? 'stackedBar' : c.kind;
  const drawsColumns = kind !== 'table' && kind !== 'pivot';
  const percent = /share|percent|pct|overlap|percentage/i.test(c.y ?? '');
  const widget: Widget = {
    id: c.id,
    kind,
    title: c.title,
    parameterIds: ['period'],
    analytic: {
      groupId: 'foot-traffic',
      templateId: c.templateId,
      parameters,
      ...(drawsColumns && c.x && { x: c.x }),
      ...(drawsColumns && c.series && c.kind !== 'heatmap' && { series: c.series }),
      // The heatmap's rows are the chains and its cells the overlap: (x, rows, value).
      ...(drawsColumns && c.kind === 'heatmap' && { series: c.y, y: c.series }),
      ...(drawsColumns && c.kind !== 'heatmap' && c.y && { y: c.y }),
    },
    options: { numberFormat: 'number', decimals: percent ? 1 : 0 },
  };
  if (c.id === 'overlap') widget.analytic = { ...widget.analytic!, series: 'place_taxonomy_value' };
  if (kind === 'pivot') {
    const pivot = (params.pivot as { rows?: string[]; columns?: string[] } | undefined) ?? {};
    widget.pivot = { rows: (pivot.rows ?? []).map((d) => PIVOT_COLUMNS[d] ?? d), columns: (pivot.columns ?? []).map((d) => PIVOT_COLUMNS[d] ?? d), measure: c.y ?? 'normalized_visits' };
  }
  return widget;
}

/**
 * The dashboard of one analytic-set view with the values it had: its charts as widgets answered by the
 * same templates (so the numbers are the view's), laid out as the view's grid on 12 columns, and a period
 * parameter bound to every widget.
 */
export function analyticDashboard(group: AnalyticSetGroupWire, viewId: string, params: Params): { name: string; state: DashboardState } {
  const view = group.views.find((v) => v.id === viewId);
  if (!view) throw new Error(`Unknown analytic set view ${viewId}: ${group.views.map((v) => analyticTemplateId(v.id)).join(', ')}`);
  const widgets = view.charts.map((c) => widgetOf(viewId, c, params));
  const layout: LayoutItem[] = [];
  let x = 0;
  let y = 0;
  for (const [n, c] of view.charts.entries()) {
    const w = Math.max(3, Math.round((12 * c.colSpan) / view.gridColumns));
    if (x + w > 12) [x, y] = [0, y + 9];
    layout.push({ i: widgets[n]!.id, x, y, w, h: widgets[n]!.kind === 'table' || widgets[n]!.kind === 'pivot' ? 12 : 9 });
    x += w;
  }
  const period = params.period as Period | undefined;
  const parameters: Parameter[] = [{
    id: 'period', label: 'Period', type: 'RANGE_PERIOD', column: 'period', source: { kind: 'STATIC', values: [] },
    ...(period && { defaultValue: periodAsDays(period) }),
  }];
  return { name: view.title, state: { version: DASHBOARD_STATE_VERSION, widgets, parameters, layout, analyticSet: { groupId: group.id, viewId } } };
}
