import { DASHBOARD_STATE_VERSION, emptyDashboardState, type DashboardState, type LayoutItem, type Parameter, type Widget } from '@studio/schema';

/**
 * The builder's state changes as a map of small pure updaters (kepler.gl's reducer style): each takes
 * the state and its payload and answers a new state, so each is tested on its own.
 */
export const UPDATERS = {
  addWidget: (s: DashboardState, w: Widget): DashboardState => {
    const bottom = s.layout.reduce((y, l) => Math.max(y, l.y + l.h), 0);
    const size = w.kind === 'kpi' ? { w: 3, h: 4 } : w.kind === 'text' ? { w: 6, h: 4 } : w.kind === 'table' ? { w: 12, h: 10 } : { w: 6, h: 9 };
    return { ...s, widgets: [...s.widgets, w], layout: [...s.layout, { i: w.id, x: 0, y: bottom, ...size }] };
  },
  updateWidget: (s: DashboardState, w: Widget): DashboardState => ({ ...s, widgets: s.widgets.map((x) => (x.id === w.id ? w : x)) }),
  removeWidget: (s: DashboardState, id: string): DashboardState => ({ ...s, widgets: s.widgets.filter((w) => w.id !== id), layout: s.layout.filter((l) => l.i !== id) }),
  setLayout: (s: DashboardState, layout: LayoutItem[]): DashboardState => ({ ...s, layout: layout.map(({ i, x, y, w, h }) => ({ i, x, y, w, h })) }),
  /** A new parameter filters every data widget on a dataset that has its column (the analyst can unbind). */
  addParameter: (s: DashboardState, p: { parameter: Parameter; bindTo: string[] }): DashboardState => ({
    ...s,
    parameters: [...s.parameters, p.parameter],
    widgets: s.widgets.map((w) => (p.bindTo.includes(w.id) ? { ...w, parameterIds: [...w.parameterIds, p.parameter.id] } : w)),
  }),
  removeParameter: (s: DashboardState, id: string): DashboardState => ({
    ...s,
    parameters: s.parameters.filter((p) => p.id !== id),
    widgets: s.widgets.map((w) => ({ ...w, parameterIds: w.parameterIds.filter((x) => x !== id) })),
  }),
};
export type Action = { [K in keyof typeof UPDATERS]: { type: K; payload: Parameters<(typeof UPDATERS)[K]>[1] } }[keyof typeof UPDATERS];

export function reduce(s: DashboardState, a: Action): DashboardState {
  return (UPDATERS[a.type] as (s: DashboardState, p: unknown) => DashboardState)(s, a.payload);
}

/** A widget id not used in the state yet. */
export function newWidgetId(s: DashboardState, kind: string): string {
  for (let n = s.widgets.length + 1; ; n++) if (!s.widgets.some((w) => w.id === `${kind}-${n}`)) return `${kind}-${n}`;
}

/**
 * Templates of /dashboard/new?templateId=…: `report` (the default) opens a titled page with a text
 * block that says what to add, `blank` an empty grid.
 */
export const TEMPLATES: Record<string, { name: string; state: () => DashboardState }> = {
  report: {
    name: 'Report',
    state: () => ({
      version: DASHBOARD_STATE_VERSION,
      widgets: [{ id: 'text-1', kind: 'text', title: '', parameterIds: [], text: '# Report\n\nAdd charts, KPIs, tables and maps with **Add widget**; add filters with **Add parameter**.', options: { numberFormat: 'number', decimals: 0 } }],
      parameters: [],
      layout: [{ i: 'text-1', x: 0, y: 0, w: 12, h: 3 }],
    }),
  },
  blank: { name: 'Blank', state: emptyDashboardState },
};
export const DEFAULT_TEMPLATE = 'report';

/** Parameter values in link form from the page's query string (only the dashboard's parameter ids). */
export function valuesFromSearch(search: URLSearchParams, parameters: Parameter[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of parameters) {
    const v = search.get(p.id);
    if (v !== null && v !== '') out[p.id] = v;
  }
  return out;
}
