import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { Dataset } from '@studio/schema';
import { client } from '../app/api';
import { ErrorMessage, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { formatBytes } from '../datasets/format';

/** Files the studio ingests, by name (the server reads the object's own type otherwise). */
const IMPORTABLE = /\.(csv|tsv|parquet|geojson|json|ndjson|jsonl)(\.gz)?$/i;

/**
 * A storage connection's bucket, one level at a time: folders open in place, the path above each level
 * leads back, and an object of a format the studio reads imports as a new dataset.
 */
export function ObjectBrowser({ connectionId }: { connectionId: string }) {
  const [prefix, setPrefix] = useState('');
  const listing = useLoad(() => client.connections.objects(connectionId, prefix), [connectionId, prefix]);
  const importing = useAction();
  const [imported, setImported] = useState<Dataset | null>(null);
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const parts = prefix.split('/').filter(Boolean);

  const importObject = (key: string) => {
    setImported(null);
    setBusyKey(key);
    void importing.run(async () => {
      try {
        setImported(await client.connections.importObject(connectionId, { key }));
      } finally {
        setBusyKey(null);
      }
    });
  };

  return (
    <div className="object-browser" role="region" aria-label="Objects">
      <nav className="object-path" aria-label="Folder">
        <button type="button" className="link-button" onClick={() => setPrefix('')}>(bucket)</button>
        {parts.map((p, k) => (
          <span key={k}>
            {' / '}
            <button type="button" className="link-button" onClick={() => setPrefix(`${parts.slice(0, k + 1).join('/')}/`)}>{p}</button>
          </span>
        ))}
      </nav>
      {listing.error && <ErrorMessage message={listing.error} onRetry={listing.reload} />}
      {!listing.data && !listing.error && <p className="muted" role="status">Loading…</p>}
      {listing.data && (
        <table className="object-table">
          <thead><tr><th>Name</th><th>Size</th><th>Modified</th><th /></tr></thead>
          <tbody>
            {listing.data.items.length === 0 && <tr><td colSpan={4} className="muted">Nothing here</td></tr>}
            {listing.data.items.map((item) => (
              <tr key={item.key}>
                <td>
                  {item.type === 'folder' ? (
                    <button type="button" className="link-button" onClick={() => setPrefix(item.key)}>{`▸ ${item.name}`}</button>
                  ) : item.name}
                </td>
                <td>{item.size === undefined ? '' : formatBytes(item.size)}</td>
                <td>{item.lastModified ? new Date(item.lastModified).toLocaleString() : ''}</td>
                <td>
                  {item.type === 'object' && IMPORTABLE.test(item.name) && (
                    <button type="button" className="button" disabled={importing.pending} aria-label={`Import ${item.name}`} onClick={() => importObject(item.key)}>
                      {busyKey === item.key ? 'Importing…' : 'Import as dataset'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {listing.data?.truncated && <p className="muted">The first 1000 entries are shown.</p>}
      <ErrorMessage message={importing.error} />
      {imported && <p role="status">Imported: <Link to={`/workspace/datasets/${imported.id}`}>{imported.name}</Link>{` (${imported.metadata.rowCount ?? 0} rows)`}</p>}
    </div>
  );
}
