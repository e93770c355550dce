import { Suspense, lazy, useEffect, useState } from 'react';
import Markdown from 'markdown-to-jsx';
import { widgetShape, type Widget, type WidgetResult } from '@studio/schema';
import { EChart, type ChartClick } from '../../analytics/Chart';
import { ErrorMessage } from '../../app/ui';
import { errorMessage } from '../../app/useLoad';
import { chartOption, change, formatNumber } from '../options';

const PivotWidget = lazy(() => import('./PivotWidget'));
/** Period starts in epoch milliseconds: drawn as days, so a click names no value to filter by. */
const EPOCH_COLUMN = /epoch_?ms$/i;

/** What a widget shows its rows with, and how a click on it cross-filters the others. */
export interface WidgetRunner {
  run: (w: Widget, page: number, sort: { by: string; desc: boolean } | undefined, signal: AbortSignal) => Promise<WidgetResult>;
  /** Runs again when this changes (parameter values, cross-filters, the widget itself). */
  key: string;
}

/**
 * A widget query the server answered 499 joined a shared run whose other readers had all left (a page
 * change in that instant): this reader is still here, so it asks again (twice at most).
 */
async function runWhileShared<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= 2 || signal.aborted || (e as { status?: number }).status !== 499) throw e;
    }
  }
}

function useResult(w: Widget, runner: WidgetRunner, page: number, sort?: { by: string; desc: boolean }) {
  const [state, setState] = useState<{ result: WidgetResult | null; error: string | null; loading: boolean }>({ result: null, error: null, loading: true });
  const sortKey = sort ? `${sort.by}:${sort.desc}` : '';
  useEffect(() => {
    if (!w.query && !w.analytic) return undefined;
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    runWhileShared(() => runner.run(w, page, sort, abort.signal), abort.signal).then(
      (result) => !abort.signal.aborted && setState({ result, error: null, loading: false }),
      (e: unknown) => !abort.signal.aborted && setState({ result: null, error: errorMessage(e), loading: false }),
    );
    return () => abort.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the runner's key stands for its inputs
  }, [runner.key, page, sortKey]);
  return state;
}

/** Where a map widget's frame points: a signed-in reader's preview of the map, unless the page says otherwise. */
export type MapFrame = (mapId: string) => Promise<string | null>;
const previewFrame: MapFrame = async (mapId) => `/preview/${mapId}?embed=1`;

/** A map widget: the frame `mapFrame` answers, or why there is none (a published page, the map not published). */
function MapWidget({ widget, mapFrame }: { widget: Widget; mapFrame: MapFrame }) {
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let stale = false;
    mapFrame(widget.mapId!).then((s) => !stale && setSrc(s), () => !stale && setSrc(null));
    return () => {
      stale = true;
    };
  }, [widget.mapId, mapFrame]);
  if (src === undefined) return <div className="chart-placeholder" role="status">Loading the map…</div>;
  if (src === null) return <p className="muted widget-note">This map is not published, so readers of this page cannot see it. Its owner can publish it to show it here.</p>;
  return <iframe className="widget-map" title={widget.title || 'Map'} src={src} />;
}

/** One widget's body by kind; its errors stay inside it. */
export function WidgetView({ widget, runner, onCrossFilter, mapFrame = previewFrame }: { widget: Widget; runner: WidgetRunner; onCrossFilter: (column: string, value: string | number | boolean | null) => void; mapFrame?: MapFrame }) {
  if (widget.kind === 'text') return <div className="widget-text"><Markdown options={{ disableParsingRawHTML: true }}>{widget.text ?? ''}</Markdown></div>;
  if (widget.kind === 'image') return <img className="widget-image" src={widget.imageUrl} alt={widget.title || 'Image'} />;
  if (widget.kind === 'map') return <MapWidget widget={widget} mapFrame={mapFrame} />;
  return <DataWidget widget={widget} runner={runner} onCrossFilter={onCrossFilter} />;
}

function DataWidget({ widget, runner, onCrossFilter }: { widget: Widget; runner: WidgetRunner; onCrossFilter: (column: string, value: string | number | boolean | null) => void }) {
  const [page, setPage] = useState(0);
  const [sort, setSort] = useState<{ by: string; desc: boolean } | undefined>(undefined);
  const { result, error, loading } = useResult(widget, runner, page, sort);
  const shape = widgetShape(widget);
  if (error) return <ErrorMessage message={error} />;
  if (!result) return <div className="chart-placeholder" role="status">Loading…</div>;
  const busy = loading ? ' is-refreshing' : '';
  if (widget.kind === 'kpi') {
    const value = result.rows[0]?.[shape.dimensions.length];
    const delta = change(value, result.previous?.[shape.dimensions.length]);
    return (
      <div className={`widget-kpi${busy}`} data-state="ready">
        <output className="kpi-value">{formatNumber(value, widget.options)}</output>
        {delta !== null && <span className={`kpi-change ${delta >= 0 ? 'up' : 'down'}`}>{`${delta >= 0 ? '▲' : '▼'} ${Math.abs(delta * 100).toFixed(1)}% vs previous period`}</span>}
      </div>
    );
  }
  if (widget.kind === 'table') {
    const pages = Math.max(1, Math.ceil((result.total ?? result.rows.length) / 100));
    return (
      <div className={`widget-table${busy}`} data-state="ready">
        <table>
          <thead>
            <tr>
              {result.columns.map((c) => (
                <th key={c.name} aria-sort={sort?.by === c.name ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                  <button type="button" onClick={() => setSort({ by: c.name, desc: sort?.by === c.name ? !sort.desc : false })}>{c.name}</button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row, n) => (
              <tr key={n} onClick={() => result.columns[0] && onCrossFilter(result.columns[0].name, row[0] as string)}>
                {row.map((v, i) => <td key={i}>{typeof v === 'number' ? formatNumber(v, widget.options) : String(v ?? '')}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
        <footer className="table-pager">
          <span>{`${result.total ?? result.rows.length} rows · page ${page + 1} of ${pages}`}</span>
          <button type="button" className="button button-small" disabled={page === 0} onClick={() => setPage(page - 1)}>Previous</button>
          <button type="button" className="button button-small" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </footer>
      </div>
    );
  }
  if (result.rows.length === 0) return <div className="chart-placeholder">No rows for these filters.</div>;
  if (widget.kind === 'pivot') {
    const layout = widget.pivot ?? { rows: shape.dimensions.slice(0, 1), columns: shape.dimensions.slice(1), measure: shape.measures[0] };
    return (
      <Suspense fallback={<div className="chart-placeholder" role="status">Loading the pivot table…</div>}>
        <PivotWidget result={result} layout={layout} label={widget.title || 'Pivot table'} />
      </Suspense>
    );
  }
  const click = (e: ChartClick) => {
    const column = shape.dimensions[0] ?? shape.columns[0];
    if (column && !EPOCH_COLUMN.test(column) && e.name !== undefined && widget.kind !== 'scatter' && widget.kind !== 'histogram') onCrossFilter(column, e.name === '(empty)' ? null : e.name);
  };
  return (
    <div className={`widget-chart${busy}`} data-state="ready">
      <EChart option={chartOption(widget, result)} label={widget.title || widget.kind} height={240} onClick={click} />
    </div>
  );
}
