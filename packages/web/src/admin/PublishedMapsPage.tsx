import { useState } from 'react';
import type { AdminPublishedMap, User } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { DataTable, Dialog, ErrorMessage, Field, formatDate, useAction } from '../app/ui';
import { PageHeader } from './AdminPages';

/**
 * /workspace/admin/published-maps (administrators): every published map with its views (ADM-005), most viewed
 * or newest first; from here an administrator opens a publication, hands its map to another owner (CAT-001 in
 * admin mode) or sets who may read the map inside the studio (ADM-006). Each change is in the audit log.
 */
export function PublishedMapsPage() {
  const [sortBy, setSortBy] = useState<'views' | 'date'>('views');
  const maps = useLoad(() => client.admin.publishedMaps({ sortBy, count: 200 }), [sortBy]);
  const [transferring, setTransferring] = useState<AdminPublishedMap | null>(null);
  const visibility = useAction();
  const items = maps.data ?? [];
  const toggleVisibility = (m: AdminPublishedMap) =>
    void visibility.run(async () => {
      await client.admin.setVisibility('map', m.mapId, m.visibility === 'private' ? 'public_read' : 'private');
      maps.reload();
    });
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Published maps" lead="Every map published to the web, with how often it was opened." />
      <div className="toolbar">
        <Field label="Order">
          <select value={sortBy} onChange={(e) => setSortBy(e.target.value as 'views' | 'date')}>
            <option value="views">Most viewed first</option>
            <option value="date">Newest first</option>
          </select>
        </Field>
      </div>
      <ErrorMessage message={maps.error ?? visibility.error} onRetry={maps.error ? maps.reload : undefined} />
      {!maps.loading && !maps.error && items.length === 0 && <p className="empty">No map is published.</p>}
      {items.length > 0 && (
        <DataTable
          label="Published maps"
          rows={items}
          rowKey={(m) => m.mapId}
          busy={maps.loading}
          columns={[
            {
              header: 'Map',
              cell: (m) => (
                <>
                  <a href={`/public/${m.mapId}`} target="_blank" rel="noreferrer">{m.name}</a>
                  {m.passwordProtected && <span className="muted small"> (password)</span>}
                </>
              ),
            },
            { header: 'Views', cell: (m) => m.views.toLocaleString(), className: 'numeric' },
            { header: 'Published', cell: (m) => formatDate(m.publishedAt), className: 'muted nowrap' },
            { header: 'Owner', cell: (m) => m.ownerEmail },
            { header: 'In the studio', cell: (m) => (m.visibility === 'private' ? 'Shared only' : 'All signed in') },
            {
              header: <span className="visually-hidden">Actions</span>,
              className: 'row-actions',
              cell: (m) => (
                <>
                  <button type="button" className="button button-small" aria-label={`Change the owner of ${m.name}`} onClick={() => setTransferring(m)}>
                    Change owner
                  </button>
                  <button type="button" className="button button-small" disabled={visibility.pending} aria-label={`${m.visibility === 'private' ? 'Open' : 'Close'} ${m.name} ${m.visibility === 'private' ? 'to' : 'for'} everyone signed in`} onClick={() => toggleVisibility(m)}>
                    {m.visibility === 'private' ? 'Open to all' : 'Make private'}
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
      {transferring && <ChangeOwnerDialog map={transferring} onClose={() => setTransferring(null)} onChanged={maps.reload} />}
    </section>
  );
}

/** Hands a map to another user: they own it from then on (the previous owner keeps only what is shared with them). */
function ChangeOwnerDialog({ map, onClose, onChanged }: { map: AdminPublishedMap; onClose: () => void; onChanged: () => void }) {
  const users = useLoad(() => client.admin.users().then((p) => p.items), []);
  const [ownerId, setOwnerId] = useState(map.ownerId);
  const save = useAction();
  const label = (u: User) => (u.name ? `${u.name} — ${u.email}` : u.email);
  return (
    <Dialog title={`Change the owner of ${map.name}`} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            await client.admin.changeOwner('maps', map.mapId, ownerId);
            onChanged();
            onClose();
          });
        }}
      >
        <ErrorMessage message={users.error} onRetry={users.reload} />
        <Field label="New owner">
          <select value={ownerId} onChange={(e) => setOwnerId(e.target.value)} disabled={!users.data}>
            {(users.data ?? []).map((u) => (
              <option key={u.id} value={u.id}>
                {label(u)}
              </option>
            ))}
          </select>
        </Field>
        <p className="muted">The new owner may edit, share and delete the map; {map.ownerEmail} keeps only what is shared with them.</p>
        <ErrorMessage message={save.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={save.pending || ownerId === map.ownerId}>
            {save.pending ? 'Saving…' : 'Change owner'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
