import { useState } from 'react';
import type { AdminPublishedMap, Visibility } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { DataTable, ErrorMessage, Field, formatDate, useAction } from '../app/ui';
import { ChangeOwnerDialog, OwnershipButtons, visibilityLabel } from './ChangeOwnerDialog';
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
  const setVisibility = (m: AdminPublishedMap, next: Visibility) =>
    void visibility.run(async () => {
      await client.admin.setVisibility('map', m.mapId, next);
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
            { header: 'In the studio', cell: (m) => visibilityLabel(m.visibility) },
            {
              header: <span className="visually-hidden">Actions</span>,
              className: 'row-actions',
              cell: (m) => (
                <OwnershipButtons name={m.name} visibility={m.visibility} busy={visibility.pending} onChangeOwner={() => setTransferring(m)} onSetVisibility={(next) => setVisibility(m, next)} />
              ),
            },
          ]}
        />
      )}
      {transferring && (
        <ChangeOwnerDialog
          record={{ collection: 'maps', id: transferring.mapId, name: transferring.name, noun: 'map', ownerId: transferring.ownerId, ownerEmail: transferring.ownerEmail }}
          onClose={() => setTransferring(null)}
          onChanged={maps.reload}
        />
      )}
    </section>
  );
}
