import type { HistoryCollection } from '@studio/schema';
import { ErrorMessage } from '../ui';
import { useLoad } from '../useLoad';
import { ChangeList } from './ChangeList';
import { history, versionViewUrl } from './versions';

/**
 * Two versions compared: for maps and dashboards the two drawn side by side (each a read-only view of that
 * version in a frame of its own, so each map has its own kepler and data), then what changed from one to the other.
 */
export function VersionCompare({ collection, id, from, to }: { collection: HistoryCollection; id: string; from: number; to: number }) {
  const diff = useLoad(() => history(collection).diff(id, from, to), [collection, id, from, to]);
  return (
    <div className="history-diff">
      {collection !== 'workbooks' && (
        <div className="history-renders">
          {[from, to].map((n, i) => (
            <figure key={`${i}:${n}`} className="history-render">
              <figcaption>
                Version {n}
                {i === 0 ? ' (from)' : ' (to)'}
              </figcaption>
              <iframe title={`Version ${n}`} src={versionViewUrl(collection, id, n, true)} />
            </figure>
          ))}
        </div>
      )}
      <ErrorMessage message={diff.error} onRetry={diff.reload} />
      {diff.loading ? <p role="status">Comparing…</p> : diff.data && <ChangeList changes={diff.data.changes} />}
    </div>
  );
}
