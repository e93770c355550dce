import { useState, type FormEvent } from 'react';
import type { InvitationCreated, PendingInvitation } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { ConfirmDialog, DataTable, ErrorMessage, Field, TextField, formatDate, useAction } from '../app/ui';
import { RowMenu } from '../list/RowMenu';
import { PageHeader } from './AdminPages';

/**
 * /workspace/admin/invite (administrators): invite someone into an organization, and the pending invitations
 * (ADM-001) — each can be sent again (a new link; the one handed out before stops working) or deleted after a
 * confirmation. With SMTP the studio mails the link; without it the page shows the link to pass on.
 */
export function InvitePage() {
  const orgs = useLoad(() => client.admin.organizations(), []);
  const pending = useLoad(() => client.admin.invitations({ limit: 200 }), []);
  const [orgId, setOrgId] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'maker' | 'viewer'>('maker');
  const [sent, setSent] = useState<InvitationCreated | null>(null);
  const [deleting, setDeleting] = useState<PendingInvitation | null>(null);
  const action = useAction();
  const chosen = orgId || orgs.data?.items[0]?.id || '';
  const invite = (org: string, address: string, as: 'maker' | 'viewer', then?: () => void) =>
    action.run(async () => {
      setSent(await client.admin.invite(org, address, as));
      then?.();
      pending.reload();
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void invite(chosen, email.trim().toLowerCase(), role, () => setEmail(''));
  };
  const items = pending.data ?? [];
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Invite people" lead="Invite someone into an organization. The link creates their account; it works once." />
      <ErrorMessage message={orgs.error} onRetry={orgs.reload} />
      <form className="form card" onSubmit={submit} aria-label="Invite a person">
        <Field label="Organization">
          <select value={chosen} onChange={(e) => setOrgId(e.target.value)} required>
            {(orgs.data?.items ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </Field>
        <TextField label="Email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        <Field label="Organization role">
          <select value={role} onChange={(e) => setRole(e.target.value as 'maker' | 'viewer')}>
            <option value="maker">Maker — creates maps, datasets and dashboards</option>
            <option value="viewer">Viewer — views what is shared</option>
          </select>
        </Field>
        <ErrorMessage message={action.error} />
        <div>
          <button type="submit" className="button button-primary" disabled={action.pending || !chosen}>
            Create invitation
          </button>
        </div>
      </form>
      {sent && <SentNotice invitation={sent} />}

      <h2 id="pending-title">Pending invitations</h2>
      <ErrorMessage message={pending.error} onRetry={pending.reload} />
      {!pending.loading && !pending.error && items.length === 0 && <p className="empty">No invitation is waiting to be accepted.</p>}
      {items.length > 0 && (
        <DataTable
          label="Pending invitations"
          rows={items}
          rowKey={(i) => i.id}
          busy={pending.loading}
          columns={[
            { header: 'Email', cell: (i) => i.email },
            { header: 'Organization', cell: (i) => i.organizationName },
            { header: 'Role', cell: (i) => i.role },
            { header: 'Sent', cell: (i) => formatDate(i.createdAt), className: 'muted nowrap' },
            { header: 'By', cell: (i) => i.invitedBy ?? '—', className: 'muted' },
            {
              header: <span className="visually-hidden">Actions</span>,
              className: 'row-actions',
              // One "Actions" menu, not a button each: the row stays narrow enough for 1024 px with long addresses.
              cell: (i) => (
                <RowMenu
                  name={i.email}
                  items={[
                    { label: 'Send again', aria: `Send the invitation for ${i.email} again`, onSelect: () => void (action.pending || invite(i.organizationId, i.email, i.role)) },
                    { label: 'Delete', aria: `Delete the invitation for ${i.email}`, danger: true, onSelect: () => setDeleting(i) },
                  ]}
                />
              ),
            },
          ]}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete invitation"
          message={<>The invitation for <strong>{deleting.email}</strong> into {deleting.organizationName} is deleted and its link stops working. This cannot be undone.</>}
          confirmLabel="Delete invitation"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await client.admin.deleteInvitation(deleting.id);
            if (sent?.id === deleting.id) setSent(null);
            pending.reload();
          }}
        />
      )}
    </section>
  );
}

/** What became of the invitation just made or sent again: mailed, or a link to pass on; a resend says the old link stopped. */
function SentNotice({ invitation }: { invitation: InvitationCreated }) {
  const url = `${window.location.origin}${invitation.acceptUrl}`;
  return (
    <div className="card notice-card" role="status">
      <p>
        Invitation for <strong>{invitation.email}</strong> {invitation.resent ? 'sent again: the link sent before no longer works.' : 'created.'}{' '}
        {invitation.emailed ? 'It was emailed to them; you can also pass on this link (it works once):' : 'Send them this link (it works once):'}
      </p>
      <input className="copy-field" readOnly aria-label="Invitation link" value={url} onFocus={(e) => e.currentTarget.select()} />
    </div>
  );
}
