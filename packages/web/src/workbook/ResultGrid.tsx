import type { CellResult } from './run';

const cellText = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return String(v);
};

/** A cell's result under it: the first rows with each column's type, the row count, the time taken and where it ran. */
export function ResultGrid({ cellName, result }: { cellName: string; result: CellResult }) {
  return (
    <div className="cell-result">
      <p className="muted small" role="status" aria-label={`Result of ${cellName}`}>
        {`${result.rowCount.toLocaleString('en-US')} ${result.rowCount === 1 ? 'row' : 'rows'} · ${Math.round(result.ms)} ms · ${result.engine}`}
        {result.rowCount > result.rows.length && ` · first ${result.rows.length} shown`}
      </p>
      <div className="cell-grid">
        <table className="table" aria-label={`Rows of ${cellName}`}>
          <thead>
            <tr>
              {result.columns.map((c) => (
                <th key={c.name} scope="col">
                  {c.name}
                  <span className="column-type">{c.type}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((r, n) => (
              <tr key={n}>{result.columns.map((c) => <td key={c.name}>{cellText(r[c.name])}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
