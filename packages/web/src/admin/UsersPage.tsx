import { useMemo, useState } from 'react';
import { MAX_QUOTA, SEATS, type Seat, type User } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { DataTable, Dialog, ErrorMessage, Field, TextField, useAction, type Column } from '../app/ui';
import { RowMenu } from '../list/RowMenu';
import { MergeAccountsDialog } from './MergeAccountsDialog';
import { ResetLinkDialog } from './ResetLinkDialog';

/**
 * /workspace/admin/users (administrators): every user with their organizations, seats and quota, filtered by a
 * word of the name or email and by organization; "Edit" sets a member's seat in each organization (a viewer seat
 * makes them a viewer, any other a maker: ADM-009) and their quota (0 to 65535 records, 0 for none: ADM-008).
 * "Reset link" makes a password reset link to hand over (ResetLinkDialog).
 * "Merge accounts" moves one account's records, tags and memberships to another after a preview (ADM-022).
 * Each change is in the audit log.
 */
export function UsersPage() {
  const users = useLoad(() => client.admin.users().then((p) => p.items), []);
  const [filter, setFilter] = useState('');
  const [org, setOrg] = useState('');
  const [editing, setEditing] = useState<User | null>(null);
  const [merging, setMerging] = useState(false);
  const [resetting, setResetting] = useState<User | null>(null);
  const orgs = useMemo(() => {
    const all = new Map<string, string>();
    for (const u of users.data ?? []) for (const m of u.memberships) all.set(m.organizationId, m.organizationName);
    return [...all].sort((a, b) => a[1].localeCompare(b[1]));
  }, [users.data]);
  const shown = useMemo(() => {
    const words = filter.trim().toLowerCase();
    return (users.data ?? []).filter((u) => (!words || `${u.name} ${u.email}`.toLowerCase().includes(words)) && (!org || u.memberships.some((m) => m.organizationId === org)));
  }, [users.data, filter, org]);

  const columns: Column<User>[] = [
    { header: 'Name', cell: (u) => u.name },
    { header: 'Email', cell: (u) => u.email },
    { header: 'Organizations', cell: (u) => u.memberships.map((m) => `${m.organizationName} (${m.role}, ${m.seat} seat)`).join('; ') || '—' },
    { header: 'Quota', cell: (u) => (u.quotaPolicy ? `${u.quotaPolicy} records` : 'No limit') },
    { header: 'Administrator', cell: (u) => (u.isAdmin ? 'Yes' : 'No') },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'row-actions',
      // One "Actions" menu, not a button each: the row stays narrow enough for 1024 px with long names.
      cell: (u) => (
        <RowMenu
          name={u.name}
          items={[
            { label: 'Edit', aria: `Edit ${u.name}`, onSelect: () => setEditing(u) },
            { label: 'Reset link', aria: `Password reset link for ${u.name}`, onSelect: () => setResetting(u) },
          ]}
        />
      ),
    },
  ];

  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header page-header-stacked">
        <h1 id="page-title">Users</h1>
        <p className="muted">Who works in the studio: their organizations, seats and quotas.</p>
        <button type="button" className="button" onClick={() => setMerging(true)} disabled={!users.data}>
          Merge accounts
        </button>
      </header>
      <div className="toolbar">
        <TextField label="Filter" type="search" value={filter} placeholder="A word of a name or email" onChange={(e) => setFilter(e.target.value)} />
        <Field label="Organization">
          <select value={org} onChange={(e) => setOrg(e.target.value)}>
            <option value="">All organizations</option>
            {orgs.map(([id, name]) => <option key={id} value={id}>{name}</option>)}
          </select>
        </Field>
      </div>
      <ErrorMessage message={users.error} onRetry={users.reload} />
      {users.data && <DataTable label="Users" columns={columns} rows={shown} rowKey={(u) => u.id} busy={users.loading} />}
      {editing && <EditUserDialog user={editing} onClose={() => setEditing(null)} onSaved={users.reload} />}
      {resetting && <ResetLinkDialog user={resetting} onClose={() => setResetting(null)} />}
      {merging && users.data && <MergeAccountsDialog users={users.data} onClose={() => setMerging(false)} onMerged={users.reload} />}
    </section>
  );
}

function EditUserDialog({ user, onClose, onSaved }: { user: User; onClose: () => void; onSaved: () => void }) {
  const [seats, setSeats] = useState<Record<string, Seat>>(() => Object.fromEntries(user.memberships.map((m) => [m.organizationId, m.seat as Seat])));
  const [quota, setQuota] = useState(String(user.quotaPolicy));
  const presets = useLoad(() => client.admin.quotaPolicies(), []);
  const preset = presets.data?.find((p) => String(p.value) === quota);
  const save = useAction();
  const quotaValue = Number(quota);
  const quotaOk = /^\d+$/.test(quota) && quotaValue <= MAX_QUOTA;
  return (
    <Dialog title={`Edit ${user.name}`} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            for (const m of user.memberships) {
              if (seats[m.organizationId] !== m.seat) await client.admin.setSeat(user.id, m.organizationId, seats[m.organizationId]!);
            }
            if (quotaValue !== user.quotaPolicy) await client.admin.setQuota(user.id, quotaValue);
            onSaved();
            onClose();
          });
        }}
      >
        {user.memberships.map((m) => (
          <Field key={m.organizationId} label={`Seat in ${m.organizationName}`}>
            <select value={seats[m.organizationId]} onChange={(e) => setSeats({ ...seats, [m.organizationId]: e.target.value as Seat })}>
              {SEATS.map((s) => <option key={s} value={s}>{s === 'viewer' ? 'viewer (can only view)' : `${s} (maker)`}</option>)}
            </select>
          </Field>
        ))}
        <Field label="Preset">
          <select value={preset?.id ?? ''} onChange={(e) => { const chosen = presets.data?.find((p) => p.id === e.target.value); if (chosen) setQuota(String(chosen.value)); }} disabled={!presets.data}>
            <option value="" disabled>Custom</option>
            {(presets.data ?? []).map((p) => <option key={p.id} value={p.id}>{`${p.name} — ${p.value.toLocaleString('en')} records`}</option>)}
          </select>
        </Field>
        <TextField label={`Quota (records, 0 for no limit, at most ${MAX_QUOTA})`} inputMode="numeric" value={quota} onChange={(e) => setQuota(e.target.value.trim())} aria-invalid={!quotaOk} />
        {!quotaOk && <p className="error" role="alert">{`A whole number from 0 to ${MAX_QUOTA}`}</p>}
        <ErrorMessage message={save.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={!quotaOk || save.pending}>{save.pending ? 'Saving…' : 'Save'}</button>
        </div>
      </form>
    </Dialog>
  );
}
