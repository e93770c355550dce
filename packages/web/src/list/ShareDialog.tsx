import { useState, type FormEvent } from 'react';
import { StudioApiError } from '@studio/client';
import type { ResourceRole, ShareBody, StudioRecord, Visibility } from '@studio/schema';
import { client } from '../app/api';
import { useUser } from '../app/session';
import { useLoad } from '../app/useLoad';
import { Dialog, ErrorMessage, Field, TextField, useAction } from '../app/ui';
import { canSetVisibility, shareRecord, type CollectionConfig } from './collections';

export const ROLE_LABELS: Record<ResourceRole, string> = {
  'limited-viewer': 'Limited viewer (read only)',
  viewer: 'Viewer (read, copy)',
  editor: 'Editor (read, edit, delete)',
};
const ROLES = Object.keys(ROLE_LABELS) as ResourceRole[];

function RoleSelect({ label, value, onChange }: { label: string; value: ResourceRole; onChange: (r: ResourceRole) => void }) {
  return (
    <Field label={label} className="field-narrow">
      <select value={value} onChange={(e) => onChange(e.target.value as ResourceRole)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABELS[r]}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * Who a record is shared with, and sharing it further: people by email (administrators look the
 * account up and share with it; others share with the email, which reaches existing accounts too),
 * the caller's organizations, and visibility.
 */
export function ShareDialog({ config, record, onClose, onChanged }: { config: CollectionConfig; record: StudioRecord; onClose: () => void; onChanged: () => void }) {
  const user = useUser();
  const perms = useLoad(() => client.permissions.of(config.resourceType, record.id), [record.id]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<ResourceRole>('viewer');
  const [orgId, setOrgId] = useState(user.memberships[0]?.organizationId ?? '');
  const [orgRole, setOrgRole] = useState<ResourceRole>('viewer');
  const [notice, setNotice] = useState('');
  const action = useAction();

  const share = (body: Partial<ShareBody>, done: string) =>
    action.run(async () => {
      await shareRecord(config, record.id, body, user.isAdmin);
      setNotice(done);
      perms.reload();
      onChanged();
    });

  const shareWithPerson = (e: FormEvent) => {
    e.preventDefault();
    const address = email.trim().toLowerCase();
    void action.run(async () => {
      let body: Partial<ShareBody> = { emails: [{ email: address, role }] };
      if (user.isAdmin) {
        try {
          const found = await client.admin.findUserByEmail(address);
          body = { users: [{ userId: found.id, role }] };
        } catch (err) {
          // No account yet: the email grant reaches whoever signs up with it.
          if (!(err instanceof StudioApiError && err.status === 404)) throw err;
        }
      }
      await shareRecord(config, record.id, body, user.isAdmin);
      setNotice(`Shared with ${address} as ${role}.`);
      setEmail('');
      perms.reload();
      onChanged();
    });
  };

  const revoke = (id: string, who: string) =>
    action.run(async () => {
      await client.permissions.revoke(id);
      setNotice(`Access of ${who} removed.`);
      perms.reload();
      onChanged();
    });

  const p = perms.data;
  const entries = p
    ? [
        ...p.users.map((u) => ({ id: u.id, who: u.name ? `${u.name} (${u.email})` : u.email, kind: 'Person', role: u.role })),
        ...p.emails.map((u) => ({ id: u.id, who: u.email, kind: 'Email', role: u.role })),
        ...p.organizations.map((o) => ({ id: o.id, who: o.name, kind: 'Organization', role: o.role })),
      ]
    : [];

  return (
    <Dialog title={`Share “${record.name}”`} onClose={onClose} wide>
      <form className="form share-row" onSubmit={shareWithPerson} aria-label="Share with a person">
        <TextField grow label="Email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@company.com" autoComplete="off" />
        <RoleSelect label="Role" value={role} onChange={setRole} />
        <button type="submit" className="button button-primary" disabled={action.pending}>
          Share
        </button>
      </form>

      {user.memberships.length > 0 && (
        <form
          className="form share-row"
          aria-label="Share with an organization"
          onSubmit={(e) => {
            e.preventDefault();
            const name = user.memberships.find((m) => m.organizationId === orgId)?.organizationName ?? 'the organization';
            void share({ organizations: [{ organizationId: orgId, role: orgRole }] }, `Shared with ${name} as ${orgRole}.`);
          }}
        >
          <Field label="Organization" className="field-grow">
            <select value={orgId} onChange={(e) => setOrgId(e.target.value)}>
              {user.memberships.map((m) => (
                <option key={m.organizationId} value={m.organizationId}>
                  {m.organizationName}
                </option>
              ))}
            </select>
          </Field>
          <RoleSelect label="Organization role" value={orgRole} onChange={setOrgRole} />
          <button type="submit" className="button" disabled={action.pending}>
            Share with organization
          </button>
        </form>
      )}

      {canSetVisibility(config, user.isAdmin) && (
        <Field label="Visibility">
          <select
            value={p?.visibility ?? record.visibility}
            disabled={!p}
            onChange={(e) => void share({ visibility: e.target.value as Visibility }, e.target.value === 'public_read' ? 'Anyone with the link can now view it.' : 'Only people it is shared with can view it now.')}
          >
            <option value="private">Private — only people and organizations below</option>
            <option value="public_read">Public — anyone with the link can view</option>
          </select>
        </Field>
      )}

      <p className="notice" role="status">
        {notice}
      </p>
      <ErrorMessage message={action.error} />

      <h3 className="section-title">Who has access</h3>
      <ErrorMessage message={perms.error} onRetry={perms.reload} />
      <ul className="permissions" aria-label="Who has access">
        <li>
          <span>
            <strong>{record.owner.name || record.owner.email}</strong> <span className="muted">{record.owner.email}</span>
          </span>
          <span className="muted">Owner</span>
        </li>
        {entries.map((e) => (
          <li key={e.id}>
            <span>
              <strong>{e.who}</strong> <span className="muted">{e.kind}</span>
            </span>
            <span className="permission-actions">
              <span className="muted">{e.role}</span>
              <button type="button" className="link-button danger" aria-label={`Revoke access of ${e.who}`} onClick={() => void revoke(e.id, e.who)}>
                Revoke
              </button>
            </span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
