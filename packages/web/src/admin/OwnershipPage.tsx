import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { StudioRecord, Visibility } from '@studio/schema';
import { client } from '../app/api';
import { RECORD_KINDS } from '../app/record-links';
import { useLoad } from '../app/useLoad';
import { DataTable, ErrorMessage, Field, TextField, formatDate, useAction } from '../app/ui';
import { PageHeader } from './AdminPages';
import { ChangeOwnerDialog, OwnershipButtons, visibilityLabel, type OwnedRecord } from './ChangeOwnerDialog';

/** The kinds whose owner an administrator changes (analytics-and-admin §6: maps, insights and datasets). */
const KINDS = {
  maps: { collection: 'maps', type: 'map', noun: 'map', plural: 'Maps' },
  insights: { collection: 'insights', type: 'insight', noun: 'dashboard', plural: 'Dashboards' },
  datasets: { collection: 'datasets', type: 'dataset', noun: 'dataset', plural: 'Datasets' },
} as const;
type Kind = keyof typeof KINDS;

/** How many records one page shows: the ones changed last, a search narrows them. */
const SHOWN = 200;

/**
 * /workspace/admin/ownership (administrators): every map, dashboard or dataset of every organization, found by a
 * word of its name, with its owner and who may read it in the studio; an administrator hands one to another owner
 * (CAT-001/002/003 in admin mode) or opens it to everyone signed in / makes it private (ADM-006). Both are audited.
 */
export function OwnershipPage() {
  const [kind, setKind] = useState<Kind>('maps');
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  // The list follows the search box after a pause in typing, not on every key.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed.trim()), 300);
    return () => clearTimeout(timer);
  }, [typed]);
  const spec = KINDS[kind];
  const records = useLoad(
    () => client.records(spec.collection).list({ isAdmin: true, search: search || undefined, sortBy: 'updatedAt', sortOrder: 'desc', limit: SHOWN }),
    [kind, search],
  );
  const [transferring, setTransferring] = useState<OwnedRecord | null>(null);
  const visibility = useAction();
  const items = records.data?.items ?? [];
  const setVisibility = (r: StudioRecord, next: Visibility) =>
    void visibility.run(async () => {
      await client.admin.setVisibility(spec.type, r.id, next);
      records.reload();
    });
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Ownership" lead="Maps, dashboards and datasets of every organization: who owns each, and who may open it in the studio." />
      <div className="toolbar">
        <Field label="Kind">
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            {Object.entries(KINDS).map(([k, v]) => <option key={k} value={k}>{v.plural}</option>)}
          </select>
        </Field>
        <TextField label="Name" type="search" value={typed} placeholder="A word of its name" onChange={(e) => setTyped(e.target.value)} />
      </div>
      <ErrorMessage message={records.error ?? visibility.error} onRetry={records.error ? records.reload : undefined} />
      {!records.loading && !records.error && items.length === 0 && <p className="empty">{search ? `No ${spec.noun} has “${search}” in its name.` : `There is no ${spec.noun} yet.`}</p>}
      {(records.data?.total ?? 0) > items.length && <p className="muted small">{`The ${items.length} changed last of ${records.data?.total}: a word of the name narrows them.`}</p>}
      {items.length > 0 && (
        <DataTable
          label={spec.plural}
          rows={items}
          rowKey={(r) => r.id}
          busy={records.loading}
          columns={[
            { header: 'Name', cell: (r) => <Link to={RECORD_KINDS[spec.type].href(r.id)}>{r.name}</Link> },
            { header: 'Owner', cell: (r) => r.owner.email },
            { header: 'In the studio', cell: (r) => visibilityLabel(r.visibility) },
            { header: 'Changed', cell: (r) => formatDate(r.updatedAt), className: 'muted nowrap' },
            {
              header: <span className="visually-hidden">Actions</span>,
              className: 'row-actions',
              cell: (r) => (
                <OwnershipButtons name={r.name} visibility={r.visibility} busy={visibility.pending} onSetVisibility={(next) => setVisibility(r, next)}
                  onChangeOwner={() => setTransferring({ collection: spec.collection, id: r.id, name: r.name, noun: spec.noun, ownerId: r.ownerId, ownerEmail: r.owner.email })} />
              ),
            },
          ]}
        />
      )}
      {transferring && <ChangeOwnerDialog record={transferring} onClose={() => setTransferring(null)} onChanged={records.reload} />}
    </section>
  );
}
