import { useState } from 'react';
import { SEATS, type Seat } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { ConfirmDialog, DataTable, ErrorMessage, useAction } from '../app/ui';
import { PageHeader } from './AdminPages';

type Over = Awaited<ReturnType<typeof client.admin.reconcileQuota>>['users'][number];

/** What a seat lets its member do: the role it gives (analytics-and-admin §6; ADM-009). */
const SEAT_MEANING: Record<Seat, string> = {
  standard: 'Maker: creates and edits records, up to their quota',
  maker: 'Maker: creates and edits records, up to their quota',
  admin: 'Maker: creates and edits records, up to their quota',
  viewer: 'Viewer: opens what is shared with them, creates nothing',
};

/**
 * /workspace/admin/quotas (administrators): the named quota policies (ADM-014) and the seat types (ADM-009) with how
 * many users hold each, and the quota reconciliation (ADM-023): a check that changes nothing lists who owns more
 * records than their quota; raising their quotas to their usage is confirmed first and audited.
 */
export function QuotasPage() {
  const policies = useLoad(() => client.admin.quotaPolicies(), []);
  const users = useLoad(() => client.admin.users().then((p) => p.items), []);
  const [over, setOver] = useState<Over[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const check = useAction();
  const all = users.data ?? [];
  const named = new Set((policies.data ?? []).map((p) => p.value));
  const custom = all.filter((u) => !named.has(u.quotaPolicy)).length;
  const seats = all.flatMap((u) => u.memberships.map((m) => m.seat));
  const reconcile = async (dryRun: boolean) => {
    const result = await client.admin.reconcileQuota(dryRun);
    setMessage(result.message);
    setOver(dryRun ? result.users : []);
    if (!dryRun) users.reload();
  };
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Quotas and seats" lead="How many records each user may own, and what each seat in an organization allows." />
      <ErrorMessage message={policies.error ?? users.error} onRetry={() => { policies.reload(); users.reload(); }} />
      <h2>Quota policies</h2>
      {policies.data && (
        <DataTable
          label="Quota policies"
          rows={[...policies.data, { id: 'custom', name: 'Custom', value: -1 }]}
          rowKey={(p) => p.id}
          busy={users.loading}
          columns={[
            { header: 'Policy', cell: (p) => p.name },
            { header: 'Records a user may own', cell: (p) => (p.value < 0 ? 'Any other number up to 65,535' : p.value.toLocaleString()), className: 'numeric' },
            { header: 'Users', cell: (p) => (p.value < 0 ? custom : all.filter((u) => u.quotaPolicy === p.value).length).toLocaleString(), className: 'numeric' },
          ]}
        />
      )}
      <p className="muted small">A user's policy is set in Users → Edit; administrators are not limited by it.</p>
      <h2>Seat types</h2>
      <DataTable
        label="Seat types"
        rows={[...SEATS]}
        rowKey={(s) => s}
        busy={users.loading}
        columns={[
          { header: 'Seat', cell: (s) => s },
          { header: 'Allows', cell: (s) => SEAT_MEANING[s] },
          { header: 'Members', cell: (s) => seats.filter((x) => x === s).length.toLocaleString(), className: 'numeric' },
        ]}
      />
      <h2>Reconcile quotas</h2>
      <p className="muted">Users may own more records than their quota after a merge or a lowered policy: they can then create nothing until they delete some. Check first; nothing changes until you raise their quotas.</p>
      <div className="toolbar-actions">
        <button type="button" className="button" disabled={check.pending} onClick={() => void check.run(() => reconcile(true))}>Check quotas</button>
        {over && over.length > 0 && <button type="button" className="button button-primary" disabled={check.pending} onClick={() => setConfirming(true)}>Raise their quotas to their usage</button>}
      </div>
      <ErrorMessage message={check.error} />
      {message && <p role="status">{message}</p>}
      {over && over.length > 0 && (
        <DataTable
          label="Users over their quota"
          rows={over}
          rowKey={(u) => u.id}
          columns={[
            { header: 'User', cell: (u) => u.email },
            { header: 'Quota', cell: (u) => u.quota.toLocaleString(), className: 'numeric' },
            { header: 'Records owned', cell: (u) => u.usage.toLocaleString(), className: 'numeric' },
          ]}
        />
      )}
      {confirming && over && (
        <ConfirmDialog title="Raise quotas" confirmLabel="Raise quotas" onClose={() => setConfirming(false)}
          message={`The quota of ${over.length === 1 ? over[0]!.email : `${over.length} users`} becomes the number of records they own now. This is recorded in the audit log.`}
          onConfirm={() => reconcile(false)} />
      )}
    </section>
  );
}
