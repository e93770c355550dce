import { z } from 'zod';
import { Id, IsoDate } from './common';
import { StudioError } from './errors';
import { isStateObject, parseVersionedState, type StateUpgrade } from './versioned-state';

/**
 * Dashboards (insights, catalog §1, §5, §7): a page of widgets on a grid, filtered by parameters.
 * The saved state is versioned like the map state: `version` plus UPGRADES[n] (n → n + 1), so a
 * dashboard saved by an older studio opens, and one saved by a newer studio is refused (422) instead
 * of being half-read and overwritten. The server parses every saved state with `parseDashboardState`;
 * the builder in the browser parses with the same validators.
 */
export const DASHBOARD_STATE_VERSION = 1;

export const CHART_KINDS = ['bar', 'stackedBar', 'line', 'area', 'scatter', 'pie', 'histogram', 'heatmap'] as const;
export const WIDGET_KINDS = [...CHART_KINDS, 'kpi', 'table', 'pivot', 'text', 'image', 'map'] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];
export const DATA_WIDGET_KINDS: readonly WidgetKind[] = [...CHART_KINDS, 'kpi', 'table', 'pivot'];

/** Aggregates a widget measure may use; `count` needs no column. */
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max', 'median'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** The parameter form types of catalog §3, and where a parameter's choices come from. */
export const PARAMETER_TYPES = ['TEXT', 'DROPDOWN', 'DROPDOWN_GROUP', 'SINGLE_PERIOD', 'RANGE_PERIOD', 'STICKER_SELECTOR', 'PIVOT_TABLE'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
export const PERIOD_TYPES: readonly ParameterType[] = ['SINGLE_PERIOD', 'RANGE_PERIOD'];
/** Several values at once: the widget keeps rows whose column is any of them. */
export const MULTI_VALUE_TYPES: readonly ParameterType[] = ['STICKER_SELECTOR', 'DROPDOWN_GROUP', 'PIVOT_TABLE'];

/** Relative periods of a SINGLE_PERIOD parameter, counted back from today (UTC), today included. */
export const RELATIVE_PERIODS = { 'last-7-days': 7, 'last-30-days': 30, 'last-90-days': 90, 'last-365-days': 365 } as const;
export type RelativePeriod = keyof typeof RELATIVE_PERIODS;

/** Column names as the data has them; quoted as identifiers wherever they reach SQL. */
export const ColumnName = z.string().min(1, 'Column name must not be empty').max(200);
const Scalar = z.union([z.string().max(1000), z.number().finite(), z.boolean()]);

export const Measure = z
  .object({ fn: z.enum(AGGREGATES), column: ColumnName.optional(), label: z.string().max(200).optional() })
  .strict()
  .refine((m) => m.fn === 'count' || m.column !== undefined, { message: 'A measure other than count needs a column' });
export type Measure = z.infer<typeof Measure>;

export const FILTER_OPS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'contains'] as const;
export const WidgetFilter = z
  .object({ column: ColumnName, op: z.enum(FILTER_OPS), value: z.union([Scalar, z.array(Scalar).min(1).max(1000)]) })
  .strict();
export type WidgetFilter = z.infer<typeof WidgetFilter>;

/**
 * What a data widget asks of its dataset, as a pipeline the server builds (filter → group → sort →
 * limit): `dimensions` group the rows (a chart's x axis, then its series or y axis), `measures`
 * aggregate them. A table without measures lists `columns`, sorted and paged on the server.
 */
export const WidgetQuery = z
  .object({
    datasetId: Id,
    dimensions: z.array(ColumnName).max(2).default([]),
    measures: z.array(Measure).max(8).default([]),
    columns: z.array(ColumnName).max(100).default([]),
    filters: z.array(WidgetFilter).max(50).default([]),
    /** Histogram: the width of a bin over the first dimension (a numeric column). */
    binWidth: z.number().positive().finite().optional(),
    /** Time charts: dates of the first dimension truncated to this unit. */
    timeUnit: z.enum(['year', 'month', 'day', 'hour']).optional(),
    sort: z.object({ by: ColumnName, desc: z.boolean().default(false) }).strict().optional(),
    limit: z.number().int().min(1).max(10_000).default(1000),
    /** KPI: the date column a period parameter filters, so the previous period can be compared. */
    dateColumn: ColumnName.optional(),
  })
  .strict();
export type WidgetQuery = z.infer<typeof WidgetQuery>;

/** The result column of a measure: its label, else `count` or `<fn>_<column>`. */
export const measureName = (m: Measure) => m.label || (m.fn === 'count' ? 'count' : `${m.fn}_${m.column}`);

/**
 * A widget answered by an analytic set's own template (its metric SQL over the bound visit panel), so a
 * dashboard made from an analytic-set view reproduces that view's numbers exactly. `parameters` are the
 * template's query parameters as the view's query bar sends them; dashboard parameters bound to the
 * widget replace the one their `column` names (`places`, `geographies`, `period`, cohorts).
 * `x`, `series` and `y` pick the result columns a chart draws; a table or pivot without them shows all.
 */
export const AnalyticSource = z
  .object({
    groupId: z.string().min(1).max(100),
    templateId: z.string().min(1).max(100),
    parameters: z
      .record(z.string().max(64), z.unknown())
      .default({})
      .refine((p) => JSON.stringify(p).length <= 20_000, { message: 'Template parameters must be under 20,000 characters' }),
    x: ColumnName.optional(),
    series: ColumnName.optional(),
    y: ColumnName.optional(),
  })
  .strict();
export type AnalyticSource = z.infer<typeof AnalyticSource>;

/** Pivot widgets: the result columns on the rows and across, and the measure summed in the cells. */
export const PivotLayout = z
  .object({ rows: z.array(ColumnName).max(6).default([]), columns: z.array(ColumnName).max(4).default([]), measure: ColumnName.optional() })
  .strict();
export type PivotLayout = z.infer<typeof PivotLayout>;

export const NUMBER_FORMATS = ['number', 'compact', 'percent', 'currency'] as const;

export const Widget = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Widget ids are 1 to 64 letters, digits, - or _'),
    kind: z.enum(WIDGET_KINDS),
    title: z.string().max(200).default(''),
    query: WidgetQuery.optional(),
    /** Instead of `query`: an analytic set's template answers the widget. */
    analytic: AnalyticSource.optional(),
    pivot: PivotLayout.optional(),
    /** Ids of the parameters that filter this widget. */
    parameterIds: z.array(z.string().max(64)).max(20).default([]),
    /** Text widgets: markdown (raw HTML is not rendered). */
    text: z.string().max(20_000).optional(),
    /** Image widgets: an https or same-origin URL. */
    imageUrl: z.string().max(2000).regex(/^(https:\/\/|\/)/, 'Image URLs start with https:// or /').optional(),
    /** Map widgets: a saved map of the catalog, shown live. */
    mapId: Id.optional(),
    options: z
      .object({
        xTitle: z.string().max(100).optional(),
        yTitle: z.string().max(100).optional(),
        numberFormat: z.enum(NUMBER_FORMATS).default('number'),
        decimals: z.number().int().min(0).max(6).default(0),
      })
      .strict()
      .default({ numberFormat: 'number', decimals: 0 }),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (DATA_WIDGET_KINDS.includes(w.kind) && !w.query && !w.analytic) ctx.addIssue({ code: 'custom', message: `A ${w.kind} widget needs a query`, path: ['query'] });
    if (w.query && w.analytic) ctx.addIssue({ code: 'custom', message: 'A widget has a query or an analytic-set template, not both', path: ['analytic'] });
    if (w.kind === 'map' && !w.mapId) ctx.addIssue({ code: 'custom', message: 'A map widget needs a mapId', path: ['mapId'] });
    if (w.kind === 'image' && !w.imageUrl) ctx.addIssue({ code: 'custom', message: 'An image widget needs an imageUrl', path: ['imageUrl'] });
  });
export type Widget = z.infer<typeof Widget>;

export const ParameterSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('STATIC'), values: z.array(z.string().max(500)).max(1000) }).strict(),
  /** The distinct values of a column of one of the dashboard's datasets. */
  z.object({ kind: z.literal('DYNAMIC'), datasetId: Id, column: ColumnName }).strict(),
  /** The first column of a pipeline's result over the dashboard's datasets (the saved SQL of the parameter). */
  z.object({ kind: z.literal('DYNAMIC_SQL'), datasetId: Id, expression: z.string().min(1).max(2000) }).strict(),
]);
export type ParameterSource = z.infer<typeof ParameterSource>;

export const Parameter = z
  .object({
    /** The name used in links: /dashboard/{id}?category=Cafe. */
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'Parameter ids are a letter then letters, digits or _'),
    label: z.string().max(200).default(''),
    type: z.enum(PARAMETER_TYPES),
    /** The column each bound widget filters (for periods, a date or timestamp column). */
    column: ColumnName,
    source: ParameterSource.default({ kind: 'STATIC', values: [] }),
    /** The value in link form ('Cafe', 'a,b', 'last-90-days', '2024-01-01..2024-03-31'); absent: no filter. */
    defaultValue: z.string().max(2000).optional(),
  })
  .strict();
export type Parameter = z.infer<typeof Parameter>;

export const LayoutItem = z.object({ i: z.string(), x: z.number().int().min(0).max(48), y: z.number().int().min(0).max(10_000), w: z.number().int().min(1).max(48), h: z.number().int().min(1).max(200) }).strict();
export type LayoutItem = z.infer<typeof LayoutItem>;

export const DashboardState = z
  .object({
    version: z.literal(DASHBOARD_STATE_VERSION),
    widgets: z.array(Widget).max(100),
    parameters: z.array(Parameter).max(30).default([]),
    layout: z.array(LayoutItem).max(100).default([]),
    /** The analytic set this dashboard reproduces, when made from one (its own metric SQL answers it). */
    analyticSet: z.object({ groupId: z.string().max(100), viewId: z.string().max(100) }).strict().optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    for (const w of s.widgets) {
      if (ids.has(w.id)) ctx.addIssue({ code: 'custom', message: `Two widgets have the id ${w.id}`, path: ['widgets'] });
      ids.add(w.id);
    }
    const params = new Set(s.parameters.map((p) => p.id));
    if (params.size !== s.parameters.length) ctx.addIssue({ code: 'custom', message: 'Two parameters have the same id', path: ['parameters'] });
    for (const w of s.widgets) {
      const unknown = w.parameterIds.find((p) => !params.has(p));
      if (unknown) ctx.addIssue({ code: 'custom', message: `Widget ${w.id} is bound to unknown parameter ${unknown}`, path: ['widgets'] });
    }
  });
export type DashboardState = z.infer<typeof DashboardState>;

/**
 * UPGRADES[n]: version n to n + 1. Version 0 is a state with widgets and no `version`: the widgets
 * stacked two per row, 6 columns wide and 8 rows high, since v0 kept no layout.
 */
export const DASHBOARD_UPGRADES: Record<number, StateUpgrade> = {
  0: (s) => {
    const widgets = Array.isArray(s.widgets) ? s.widgets : [];
    const layout = widgets.map((w, n) => ({ i: String((w as { id?: unknown }).id ?? n), x: (n % 2) * 6, y: Math.floor(n / 2) * 8, w: 6, h: 8 }));
    return { ...s, version: 1, layout };
  },
};

/** Brings a stored dashboard state to the current version and validates it; 422 on anything else. */
export function parseDashboardState(stored: unknown): DashboardState {
  if (!isStateObject(stored)) throw new StudioError(422, 'Invalid dashboard state: not an object');
  return parseVersionedState(stored, {
    what: 'dashboard',
    current: DASHBOARD_STATE_VERSION,
    upgrades: DASHBOARD_UPGRADES,
    schema: DashboardState,
    versionOf: (s) => (typeof s.version === 'number' ? s.version : 'widgets' in s ? 0 : -1),
    unknownShape: 'neither a versioned state nor a list of widgets',
  });
}

/** The empty dashboard a "Blank" template opens. */
export const emptyDashboardState = (): DashboardState => ({ version: DASHBOARD_STATE_VERSION, widgets: [], parameters: [], layout: [] });

/**
 * How a data widget's result columns read, whatever answers it: `dimensions` first (a chart's x axis,
 * then its series), then `measures`; `columns` is a table's list when it has no measures.
 */
export function widgetShape(w: Widget): { dimensions: string[]; measures: string[]; columns: string[] } {
  if (w.analytic) {
    const { x, series, y } = w.analytic;
    return y ? { dimensions: [x, series].filter((c): c is string => c !== undefined), measures: [y], columns: [] } : { dimensions: [], measures: [], columns: [] };
  }
  const q = w.query;
  if (!q) return { dimensions: [], measures: [], columns: [] };
  return q.measures.length ? { dimensions: q.dimensions, measures: q.measures.map(measureName), columns: [] } : { dimensions: [], measures: [], columns: q.columns };
}

// --- parameter values ------------------------------------------------------------------------------

/** A parameter value after checking: what the widget filters compile from. */
export type ParameterValue =
  | { kind: 'values'; values: string[] }
  | { kind: 'text'; text: string }
  | { kind: 'range'; from: string; to: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const validDate = (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
const day = (d: Date) => d.toISOString().slice(0, 10);

/** Period text ('last-90-days' or 'YYYY-MM-DD..YYYY-MM-DD') as a range of days, both ends included; null when it is neither. */
export function periodRange(text: string, today: Date): { from: string; to: string } | null {
  const days = RELATIVE_PERIODS[text as RelativePeriod];
  if (days) {
    const end = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()));
    return { from: day(new Date(end.getTime() - (days - 1) * 86_400_000)), to: day(end) };
  }
  const m = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(text);
  if (!m || !validDate(m[1]!) || !validDate(m[2]!) || m[1]! > m[2]!) return null;
  return { from: m[1]!, to: m[2]! };
}

/** The period of the same length just before `range` (a KPI's "previous period"). */
export function previousRange(range: { from: string; to: string }): { from: string; to: string } {
  const from = Date.parse(`${range.from}T00:00:00Z`);
  const to = Date.parse(`${range.to}T00:00:00Z`);
  const days = Math.round((to - from) / 86_400_000) + 1;
  return { from: day(new Date(from - days * 86_400_000)), to: day(new Date(from - 86_400_000)) };
}

/**
 * Checks a value given in link form against its parameter's type: 422 naming the parameter when it
 * does not fit. An empty value means "no filter" (null).
 */
export function parseParameterValue(p: Parameter, raw: string | undefined, today: Date): ParameterValue | null {
  if (raw === undefined || raw === '') return null;
  const bad = (why: string) => new StudioError(422, `Invalid value for parameter ${p.id}: ${why}`);
  if (raw.length > 2000) throw bad('longer than 2000 characters');
  if (PERIOD_TYPES.includes(p.type)) {
    const range = periodRange(raw, today);
    if (!range) throw bad(p.type === 'SINGLE_PERIOD' ? `expected one of ${Object.keys(RELATIVE_PERIODS).join(', ')} or YYYY-MM-DD..YYYY-MM-DD` : 'expected YYYY-MM-DD..YYYY-MM-DD');
    return { kind: 'range', ...range };
  }
  if (p.type === 'TEXT') return { kind: 'text', text: raw };
  const values = MULTI_VALUE_TYPES.includes(p.type) ? raw.split(',').map((v) => v.trim()).filter(Boolean) : [raw];
  if (values.length > 100) throw bad('more than 100 values');
  if (p.source.kind === 'STATIC' && p.source.values.length > 0) {
    const unknown = values.find((v) => !(p.source as { values: string[] }).values.includes(v));
    if (unknown !== undefined) throw bad(`${JSON.stringify(unknown)} is not one of its choices`);
  }
  return { kind: 'values', values };
}

/** A click on a bar, slice, row or map feature: rows whose column equals the value. */
export const CrossFilter = z.object({ widgetId: z.string().max(64), column: ColumnName, value: Scalar.nullable() }).strict();
export type CrossFilter = z.infer<typeof CrossFilter>;

/** What a widget query request carries besides the widget: the link-form parameter values and cross-filters. */
export const WidgetRunBody = z
  .object({
    parameters: z.record(z.string().max(64), z.string().max(2000)).default({}),
    crossFilters: z.array(CrossFilter).max(20).default([]),
    /** Tables: the page (100 rows each) and the sort the reader picked. */
    page: z.number().int().min(0).max(100_000).default(0),
    sort: z.object({ by: ColumnName, desc: z.boolean().default(false) }).strict().optional(),
  })
  .strict();
export type WidgetRunBody = z.infer<typeof WidgetRunBody>;

/** A draft widget run by its editor before the dashboard is saved (under the editor's own access). */
export const DraftWidgetRunBody = WidgetRunBody.extend({ widget: Widget, parameterDefs: z.array(Parameter).max(30).default([]) }).strict();

export const TABLE_PAGE_SIZE = 100;
/** CSV export of one widget's rows. */
export const CSV_EXPORT_MAX_ROWS = 1_000_000;

export const WidgetResult = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.array(z.unknown())),
  /** Tables: every matching row, for paging. */
  total: z.number().optional(),
  /** KPI with a period: the measures over the previous period of the same length. */
  previous: z.array(z.unknown()).nullable().optional(),
});
export type WidgetResult = z.infer<typeof WidgetResult>;

/** Most widgets one batch request may ask for (a dashboard page shows fewer). */
export const WIDGET_BATCH_MAX = 100;

/**
 * Several widgets of one saved dashboard or publication at once, with the parameter values and
 * cross-filters they share; each widget its own page and sort. One request instead of one per widget:
 * the page's widgets are checked, authorized and answered together (browsers also open at most six
 * connections to a host).
 */
export const WidgetBatchBody = z
  .object({
    parameters: WidgetRunBody.shape.parameters,
    crossFilters: WidgetRunBody.shape.crossFilters,
    widgets: z
      .array(z.object({ id: z.string().max(64), page: WidgetRunBody.shape.page, sort: WidgetRunBody.shape.sort }).strict())
      .min(1, 'Name at least one widget')
      .max(WIDGET_BATCH_MAX, `At most ${WIDGET_BATCH_MAX} widgets per request`),
  })
  .strict();
export type WidgetBatchBody = z.infer<typeof WidgetBatchBody>;

/**
 * One line of a batch answer (NDJSON, in the order widgets finish): the result of `widgets[index]`, or
 * the error that widget alone met (a deleted dataset, a time limit), as a single widget request would
 * have answered it.
 */
export const WidgetBatchLine = z.object({
  index: z.number().int().min(0),
  widgetId: z.string(),
  item: WidgetResult.optional(),
  error: z.object({ status: z.number().int(), message: z.string() }).optional(),
});
export type WidgetBatchLine = z.infer<typeof WidgetBatchLine>;

/** The publication options of maps, insights and reports (one schema; catalog §7 uploadOptions). */
export const UploadOptions = z
  .object({
    insightId: Id.optional(),
    mapId: Id.optional(),
    /** A string sets the password, null or '' removes it, absent keeps it. */
    password: z.string().max(200).nullable().optional(),
    title: z.string().max(500).optional(),
    description: z.string().max(10_000).optional(),
  })
  .strict();
export type UploadOptions = z.infer<typeof UploadOptions>;

/** The header that carries a publication's password (never the query string: it would reach logs). */
export const PUBLICATION_PASSWORD_HEADER = 'x-publication-password';
/** The header that carries the grant the password call answers, sent instead of the password. */
export const PUBLICATION_GRANT_HEADER = 'x-publication-grant';

/** A dashboard publication, an insight's own or a report, as the API answers it (no state: lists, infoOnly). */
export const PublicationInfo = z.object({
  id: Id,
  kind: z.enum(['insight', 'report']),
  insightId: Id,
  name: z.string(),
  description: z.string(),
  publishedAt: IsoDate,
  updatedAt: IsoDate,
  passwordProtected: z.boolean(),
  datasetIds: z.array(Id),
  views: z.number(),
});
export type PublicationInfo = z.infer<typeof PublicationInfo>;
export type PublicationKind = PublicationInfo['kind'];

/** The publication with its snapshot, for its readers. */
export const Publication = PublicationInfo.extend({ latestState: DashboardState });
export type Publication = z.infer<typeof Publication>;
