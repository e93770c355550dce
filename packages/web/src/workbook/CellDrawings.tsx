import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import type { ChartCell, MapCell, WorkbookState } from '@studio/schema';
import { WORKBOOK_CHART_KINDS } from '@studio/schema';
import { EChart } from '../analytics/Chart';
import { errorMessage } from '../app/useLoad';
import { makesTable } from './cells';
import { DRAWN_ROWS, chartCellOption } from './drawings';
import type { CellResult, WorkbookRunner } from './run';

const KeplerCellMap = lazy(() => import('./KeplerCellMap'));

/** The rows of a source cell's result, loaded again whenever that result changes. */
function useSourceRows(runner: WorkbookRunner, state: WorkbookState, name: string, source: CellResult | undefined) {
  const [rows, setRows] = useState<{ key: string; rows: Record<string, unknown>[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!source) return undefined;
    const abort = new AbortController();
    setError(null);
    runner.rowsOf(state, name, DRAWN_ROWS, abort.signal).then(
      (r) => !abort.signal.aborted && setRows({ key: source.key, rows: r }),
      (e: unknown) => !abort.signal.aborted && setError(errorMessage(e)),
    );
    return () => abort.abort();
    // The rows follow the source's result; the state is read when they load.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runner, source]);
  return { rows: rows && source && rows.key === source.key ? rows.rows : null, error };
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
  const { rows, error } = useSourceRows(runner, state, cell.source, source);
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

/** A cell's result as Arrow, loaded again whenever that result changes (what kepler.gl reads in a map cell). */
function useSourceArrow(runner: WorkbookRunner, state: WorkbookState, name: string, source: CellResult | undefined) {
  const [arrow, setArrow] = useState<{ key: string; bytes: Uint8Array } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!source) return undefined;
    const abort = new AbortController();
    setError(null);
    runner.arrowOf(state, name, DRAWN_ROWS, abort.signal).then(
      (bytes) => !abort.signal.aborted && setArrow({ key: source.key, bytes }),
      (e: unknown) => !abort.signal.aborted && setError(errorMessage(e)),
    );
    return () => abort.abort();
    // The data follows the source's result; the state is read when it loads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runner, source]);
  return { arrow: arrow && source && arrow.key === source.key ? arrow : null, error };
}

/** A map cell: a cell's result in a kepler.gl view, with the layer kepler makes for its place columns. */
export function MapCellBody({ cell, state, source, runner, readOnly, onChange }: { cell: MapCell; state: WorkbookState; source: CellResult | undefined; runner: WorkbookRunner; readOnly: boolean; onChange: (c: MapCell) => void }) {
  const { arrow, error } = useSourceArrow(runner, state, cell.source, source);
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
          <KeplerCellMap key={arrow.key} name={cell.source} arrow={arrow.bytes} rows={rows} label={`${rows} rows of ${cell.source} on a kepler.gl map`} />
        </Suspense>
      )}
    </div>
  );
}
