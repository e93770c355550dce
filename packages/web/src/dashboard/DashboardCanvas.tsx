import { useMemo, useState } from 'react';
import GridLayout, { WidthProvider, type Layout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import type { CrossFilter, DashboardState, LayoutItem, Parameter, Widget, WidgetResult } from '@studio/schema';
import { ParameterBar } from './ParameterBar';
import { WidgetView, type MapFrame } from './widgets/WidgetView';
import { client } from '../app/api';
import { widgetBatcher } from './widget-batch';

const Grid = WidthProvider(GridLayout);

export interface CanvasSource {
  /** Rows of one widget with the current values and cross-filters. */
  run: (w: Widget, body: { parameters: Record<string, string>; crossFilters: CrossFilter[]; page: number; sort?: { by: string; desc: boolean } }, signal: AbortSignal) => Promise<WidgetResult>;
  choices: (p: Parameter) => Promise<string[]>;
  /** CSV of one widget (up to 1M rows), in the spreadsheet-safe form: a person downloads it. */
  csv: (w: Widget, body: { parameters: Record<string, string>; crossFilters: CrossFilter[] }) => Promise<Response>;
  /** Where map widgets point (default: the signed-in preview of the map). */
  mapFrame?: MapFrame;
}

/** Saves a blob under a file name (the browser's download). */
function download(blob: Blob, name: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/**
 * The page of widgets on a 12-column grid with the parameter bar and the cross-filter chips; the
 * builder and the published page both draw it. `editing` turns on drag and resize and the widget menus.
 */
export function DashboardCanvas({ state, values, onValues, source, editing, onLayout, onEdit, onRemove }: {
  state: DashboardState;
  values: Record<string, string>;
  onValues: (v: Record<string, string>) => void;
  source: CanvasSource;
  editing: boolean;
  onLayout?: (l: LayoutItem[]) => void;
  onEdit?: (w: Widget) => void;
  onRemove?: (w: Widget) => void;
}) {
  const [crossFilters, setCrossFilters] = useState<CrossFilter[]>([]);
  const body = useMemo(() => ({ parameters: values, crossFilters }), [values, crossFilters]);
  const layout = state.layout.filter((l) => state.widgets.some((w) => w.id === l.i));
  const crossFilter = (widgetId: string) => (column: string, value: string | number | boolean | null) =>
    setCrossFilters((cf) => [...cf.filter((f) => f.widgetId !== widgetId), { widgetId, column, value }]);

  const exportPng = (w: Widget) => {
    const el = document.querySelector<HTMLElement & { echartsInstance?: { getDataURL: (o: object) => string } }>(`[data-widget="${w.id}"] .echart`);
    const url = el?.echartsInstance?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' });
    if (url) fetch(url).then((r) => r.blob()).then((b) => download(b, `${w.title || w.id}.png`));
  };
  const exportCsv = async (w: Widget) => {
    const res = await source.csv(w, body);
    download(await res.blob(), `${w.title || w.id}.csv`);
  };

  return (
    <div className="dashboard-canvas">
      <ParameterBar parameters={state.parameters} values={values} choices={source.choices} onChange={(id, v) => onValues({ ...values, [id]: v })} />
      {crossFilters.length > 0 && (
        <div className="filter-chips" aria-label="Cross-filters">
          {crossFilters.map((f) => (
            <button key={f.widgetId} type="button" className="sticker" onClick={() => setCrossFilters((cf) => cf.filter((x) => x !== f))}>
              {`Filtered by ${f.column} = ${f.value ?? '(empty)'} ×`}
            </button>
          ))}
        </div>
      )}
      {state.widgets.length === 0 && <p className="empty">This dashboard has no widgets yet.</p>}
      <Grid className="dashboard-grid" layout={layout} cols={12} rowHeight={32} margin={[12, 12]} isDraggable={editing} isResizable={editing} draggableHandle=".widget-header" onLayoutChange={(l: Layout[]) => editing && onLayout?.(l)}>
        {state.widgets.map((w) => (
          <section key={w.id} className="widget card" data-widget={w.id} aria-label={w.title || w.kind}>
            <header className="widget-header">
              <h2>{w.title}</h2>
              <div className="widget-actions">
                {(w.query || w.analytic) && <button type="button" className="icon-button" title="Export CSV" aria-label={`Export ${w.title || w.id} as CSV`} onClick={() => void exportCsv(w)}>⤓</button>}
                {(w.query || w.analytic) && !['kpi', 'table', 'pivot'].includes(w.kind) && <button type="button" className="icon-button" title="Export PNG" aria-label={`Export ${w.title || w.id} as PNG`} onClick={() => exportPng(w)}>▣</button>}
                {editing && <button type="button" className="icon-button" aria-label={`Edit ${w.title || w.id}`} onClick={() => onEdit?.(w)}>✎</button>}
                {editing && <button type="button" className="icon-button" aria-label={`Remove ${w.title || w.id}`} onClick={() => onRemove?.(w)}>×</button>}
              </div>
            </header>
            {/* A body whose rows or chart outgrow the widget scrolls, so a keyboard must reach it (WCAG 2.1.1). */}
            <div className="widget-body" tabIndex={0} role="region" aria-label={`${w.title || w.kind} contents`}>
              <WidgetView widget={w} mapFrame={source.mapFrame} onCrossFilter={crossFilter(w.id)} runner={{ key: JSON.stringify([w, body]), run: (widget, page, sort, signal) => source.run(widget, { ...body, page, sort }, signal) }} />
            </div>
          </section>
        ))}
      </Grid>
    </div>
  );
}

/** Where a saved or draft dashboard's widgets run for a signed-in user. */
export function studioSource(dashboardId: string | null, saved: DashboardState | null, current: DashboardState): CanvasSource {
  // A widget unchanged since the save runs as the saved dashboard's (under its owner's access, which a
  // shared reader needs); one added or edited since runs as a draft under the editor's own access.
  const savedAs = (w: Widget) => dashboardId !== null && saved !== null && JSON.stringify(saved.widgets.find((x) => x.id === w.id)) === JSON.stringify(w) && JSON.stringify(saved.parameters) === JSON.stringify(current.parameters);
  // The saved widgets of the page go as one request.
  const batched = dashboardId ? widgetBatcher((body, onLine, signal) => client.dashboards.runWidgets(dashboardId, body, onLine, signal)) : null;
  return {
    run: (w, body, signal) => (batched && savedAs(w) ? batched({ widgetId: w.id, ...body }, signal) : client.dashboards.runDraft(w, current.parameters, body, signal)),
    choices: (p) => (dashboardId && saved?.parameters.some((x) => JSON.stringify(x) === JSON.stringify(p)) ? client.dashboards.parameterValues(dashboardId, p.id) : client.dashboards.draftParameterValues(p)),
    csv: (w, body) => client.dashboards.widgetCsv(savedAs(w) ? dashboardId : null, w, current.parameters, body, 'safe'),
  };
}
