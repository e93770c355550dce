import { useMemo, useState } from 'react';
import { client } from '../app/api';
import { errorMessage } from '../app/useLoad';
import { fmt, pivot } from './options';
import { GROUP_ID, useRows } from './useRows';
import { ChartCard } from './ChartCard';
import type { SetSpec, ViewSpec } from './Views';
import type { Params } from './QueryBar';

const MEASURES = [
  { id: 'normalized_visits', name: 'Normalized visits' },
  { id: 'raw_visits', name: 'Raw visits' },
];
const DIM_NAMES: Record<string, string> = { geography: 'Geography', period: 'Period', place: 'Place', age: 'Age', gender: 'Gender', income: 'Income' };

/** Movement Pivot: a plain pivot grid (rows × columns, sums of the measure) with the CSV export. */
export function PivotView({ view, params, set }: { view: ViewSpec; params: Params; set: SetSpec }) {
  const data = useRows('movement-pivot', params);
  const [measure, setMeasure] = useState('normalized_visits');
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const spec = (params.pivot as { rows: string[]; columns: string[] }) ?? { rows: [], columns: [] };
  const grid = useMemo(() => pivot(data.rows, spec.rows, spec.columns, measure), [data.rows, spec.rows, spec.columns, measure]);
  const canExport = set.templateParameters.find((p) => p.id === 'movement_pivot_canExport')?.value === true;
  const c = view.charts[0]!;

  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      const res = await client.analytics.download(GROUP_ID, 'movement-pivot', params, 'csv');
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = 'movement-pivot.csv';
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setExportError(errorMessage(e));
    } finally {
      setExporting(false);
    }
  };

  const total = (rk: string[] | null, ck: string[] | null) => {
    let sum = 0;
    for (const [k, v] of grid.cells) {
      const [r, col] = k.split('|') as [string, string];
      if ((rk === null || r === JSON.stringify(rk)) && (ck === null || col === JSON.stringify(ck))) sum += v;
    }
    return sum;
  };

  const actions = (
    <div className="toolbar">
      <label className="qb-inline">
        Measure{' '}
        <select value={measure} onChange={(e) => setMeasure(e.target.value)}>
          {MEASURES.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      </label>
      <button type="button" className="button button-small" disabled={!canExport || exporting} onClick={() => void exportCsv()}
        title={canExport ? 'Download the pivot rows as CSV' : 'Export is not enabled for this analytic set (movement_pivot_canExport)'}>
        {exporting ? 'Exporting…' : 'Export CSV'}
      </button>
    </div>
  );

  return (
    <div className="chart-grid" data-grid-columns={view.gridColumns} style={{ gridTemplateColumns: `repeat(${view.gridColumns}, minmax(0, 1fr))` }}>
      <ChartCard id={c.id} title={c.title} span={c.colSpan} data={data} actions={actions}>
        {exportError && <div className="error" role="alert">{exportError}</div>}
        {!canExport && <p className="muted small">Export is off for this analytic set.</p>}
        {/* Wider than the card with many columns: a scroll region a keyboard reaches (WCAG 2.1.1). */}
        <div className="pivot-scroll" tabIndex={0} role="region" aria-label="Movement pivot, scrollable">
          <table className="table pivot-table" aria-label="Movement pivot">
            <thead>
              {spec.columns.length === 0 ? (
                <tr>
                  {spec.rows.map((d) => <th key={d} scope="col">{DIM_NAMES[d]}</th>)}
                  <th scope="col" className="num">{MEASURES.find((m) => m.id === measure)?.name}</th>
                </tr>
              ) : spec.columns.map((d, level) => (
                <tr key={d}>
                  {spec.rows.map((r, i) => <th key={r} scope="col">{level === spec.columns.length - 1 ? DIM_NAMES[r] : i === 0 ? DIM_NAMES[d] : ''}</th>)}
                  {grid.colKeys.map((ck) => <th key={JSON.stringify(ck)} scope="col" className="num">{ck[level]}</th>)}
                  <th scope="col" className="num">{level === spec.columns.length - 1 ? 'Total' : ''}</th>
                </tr>
              ))}
            </thead>
            <tbody>
              {grid.rowKeys.map((rk) => (
                <tr key={JSON.stringify(rk)}>
                  {rk.map((v, i) => <th key={i} scope="row">{v}</th>)}
                  {spec.columns.length === 0 ? <td className="num">{fmt(total(rk, null))}</td> : (
                    <>
                      {grid.colKeys.map((ck) => {
                        const v = grid.cells.get(`${JSON.stringify(rk)}|${JSON.stringify(ck)}`);
                        return <td key={JSON.stringify(ck)} className="num">{v === undefined ? '' : fmt(v)}</td>;
                      })}
                      <td className="num total">{fmt(total(rk, null))}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ChartCard>
    </div>
  );
}
