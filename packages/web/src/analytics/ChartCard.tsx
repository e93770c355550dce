import type { ReactNode } from 'react';
import { ErrorMessage } from '../app/ui';
import type { Rows } from './useRows';

/** A chart's box: its title, and its loading, empty or error state instead of an empty canvas. */
export function ChartCard({ id, title, span, data, children, actions }: { id: string; title: string; span: number; data: Rows; children: ReactNode; actions?: ReactNode }) {
  const state = data.error ? 'error' : data.loading && !data.rows.length ? 'loading' : data.rows.length ? 'ready' : 'empty';
  return (
    <section className="chart-card card" style={{ gridColumn: `span ${span}` }} aria-label={title} data-chart={id} data-state={state}>
      <header className="chart-card-header">
        <h2>{title}</h2>
        {actions}
      </header>
      {state === 'error' && <ErrorMessage message={data.error} onRetry={data.reload} />}
      {state === 'loading' && <div className="chart-placeholder" role="status">Loading…</div>}
      {state === 'empty' && <div className="chart-placeholder">No visits for these parameters.</div>}
      {state === 'ready' && (
        <div className={`chart-body${data.loading ? ' is-refreshing' : ''}`} aria-busy={data.loading}>
          {children}
        </div>
      )}
    </section>
  );
}
