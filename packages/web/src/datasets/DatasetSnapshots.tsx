import type { Dataset, DatasetSnapshot } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { ErrorMessage } from '../app/ui';
import { formatBytes, formatCount } from './format';

/** A snapshot's date to the minute: two replacements on one day must read apart. */
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

const pinnedWords = (n: number) => (n === 0 ? 'No version' : n === 1 ? '1 version' : `${formatCount(n)} versions`);

/**
 * A table dataset's kept data (#51): what an upload, the workbench or a refresh replaced (kept for the retention
 * period, then while a version pins it) and its current data once a map or dashboard version pinned it. The API says
 * how many versions pin each, not which: the versions belong to records the dataset's reader may not see.
 */
export function DatasetSnapshots({ d }: { d: Dataset }) {
  // A replacement makes a snapshot: the list is asked for again when the data changes.
  const snapshots = useLoad(() => client.datasets.snapshots(d.id), [d.id, d.metadata.ingestedAt]);
  const items: DatasetSnapshot[] = snapshots.data ?? [];
  return (
    <section className="card dataset-section" aria-labelledby="snapshots-title">
      <h2 id="snapshots-title">Snapshots</h2>
      <ErrorMessage message={snapshots.error} onRetry={snapshots.reload} />
      {snapshots.data && items.length === 0 && <p className="muted">No earlier data kept: replacing this dataset's data keeps the data it had, and a version saved with “Pin data” keeps what it showed.</p>}
      {items.length > 0 && (
        <table className="records" aria-label="Snapshots">
          <thead>
            <tr>
              <th scope="col">Data of</th>
              <th scope="col">Rows</th>
              <th scope="col">Size</th>
              <th scope="col">State</th>
              <th scope="col">Pinned by</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id}>
                <td>
                  <time dateTime={s.createdAt}>{when(s.createdAt)}</time>
                </td>
                <td>{formatCount(s.rowCount)}</td>
                <td>{formatBytes(s.bytes)}</td>
                <td>{s.replacedAt ? <>Replaced <time dateTime={s.replacedAt}>{when(s.replacedAt)}</time></> : 'Current data'}</td>
                <td>{pinnedWords(s.pinnedBy)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
