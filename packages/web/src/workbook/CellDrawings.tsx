import { Suspense, lazy, useEffect, useMemo, useRef, useState } from 'react';
import type { ChartCell, MapCell, WorkbookState } from '@studio/schema';
import { WORKBOOK_CHART_KINDS } from '@studio/schema';
import { EChart } from '../analytics/Chart';
import { errorMessage } from '../app/useLoad';
import { makesTable } from './cells';
import { DRAWN_ROWS, chartCellOption } from './drawings';
import type { CellResult, WorkbookRunner } from './run';

const KeplerCellMap = lazy(() => import('./KeplerCellMap'));

/**
 * What a drawing reads of its source cell's result (rows for a chart, Arrow for a map), loaded again whenever
 * that result changes; the request of a result that was replaced is aborted.
 */
function useSourceData<T>(source: CellResult | undefined, load: (signal: AbortSignal) => Promise<T>) {
  const [data, setData] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    if (!source) return undefined;
    const abort = new AbortController();
    setError(null);
    latest.current(abort.signal).then(
      (value) => !abort.signal.aborted && setData({ key: source.key, value }),
      (e: unknown) => !abort.signal.aborted && setError(errorMessage(e)),
    );
    return () => abort.abort();
  }, [source]);
  return { data: data && source && data.key === source.key ? data : null, error };
}

function SourcePicker({ value, state, cellId, readOnly, onChange }: { value: string; state: WorkbookState; cellId: string; readOnly: boolean; onChange: (name: string) => void }) {
  const above = state.cells.slice(0, state.cells.findIndex((c) => c.id === cellId)).filter(makesTable);
  return (
    <label className="step-field">
      Draws
      <select aria-label="Source cell" value={value} disabled={readOnly} onChange={(e) => onChange(e.target.value)}>
        <option value="">Pick a cell…</option>
        {above.map((c) => <option key={c.id} value={c.name}>{c.name}</option>)}
      </select>
    </label>
  );
}

/** A chart cell: a bar, line, scatter or pie chart of a cell above, drawn with ECharts. */
export function ChartCellBody({ cell, state, source, runner, readOnly, onChange }: { cell: ChartCell; state: WorkbookState; source: CellResult | undefined; runner: WorkbookRunner; readOnly: boolean; onChange: (c: ChartCell) => void }) {
  const { data, error } = useSourceData(source, (signal) => runner.rowsOf(state, cell.source, DRAWN_ROWS, signal));
  const rows = data?.value ?? null;
  const option = useMemo(() => (rows ? chartCellOption(cell, rows) : null), [rows, cell]);
  const columns = source?.columns ?? [];
  return (
    <div className="cell-drawing">
      <div className="step-row">
        <SourcePicker value={cell.source} state={state} cellId={cell.id} readOnly={readOnly} onChange={(s) => onChange({ ...cell, source: s })} />
        <label className="step-field">
          Chart
          <select value={cell.chart} disabled={readOnly} onChange={(e) => onChange({ ...cell, chart: e.target.value as ChartCell['chart'] })}>
            {WORKBOOK_CHART_KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        {(['x', 'y'] as const).map((axis) => (
          <label key={axis} className="step-field">
            {axis === 'x' ? (cell.chart === 'scatter' ? 'X' : 'Category') : 'Value'}
            <select aria-label={axis === 'x' ? 'X column' : 'Y column'} value={cell[axis]} disabled={readOnly} onChange={(e) => onChange({ ...cell, [axis]: e.target.value })}>
              <option value="">Pick a column…</option>
              {columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
            </select>
          </label>
        ))}
      </div>
      {error && <p className="error" role="alert">{error}</p>}
      {!source && cell.source && <p className="muted">{`Run ${cell.source} to draw it.`}</p>}
      {option && <EChart option={option} label={`${cell.chart} chart of ${cell.y} by ${cell.x}`} height={280} />}
      {source && !option && <p className="muted">Pick the columns to draw.</p>}
    </div>
  );
}

/** A map cell: a cell's result in a kepler.gl view, with the layer kepler makes for its place columns. */
export function MapCellBody({ cell, state, source, runner, readOnly, onChange }: { cell: MapCell; state: WorkbookState; source: CellResult | undefined; runner: WorkbookRunner; readOnly: boolean; onChange: (c: MapCell) => void }) {
  const { data: arrow, error } = useSourceData(source, (signal) => runner.arrowOf(state, cell.source, DRAWN_ROWS, signal));
  const rows = source ? Math.min(source.rowCount, DRAWN_ROWS) : 0;
  return (
    <div className="cell-drawing">
      <div className="step-row">
        <SourcePicker value={cell.source} state={state} cellId={cell.id} readOnly={readOnly} onChange={(s) => onChange({ ...cell, source: s })} />
      </div>
      {error && <p className="error" role="alert">{error}</p>}
      {!source && cell.source && <p className="muted">{`Run ${cell.source} to map it.`}</p>}
      {arrow && (
        <Suspense fallback={<p className="muted" role="status">Loading the map…</p>}>
          {/* A new result is a new map: kepler keeps its datasets in its own store. */}
          <KeplerCellMap key={arrow.key} name={cell.source} arrow={arrow.value} rows={rows} label={`${rows} rows of ${cell.source} on a kepler.gl map`} />
        </Suspense>
      )}
    </div>
  );
}
