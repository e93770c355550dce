import { useState, type FormEvent } from 'react';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { DataTable, ErrorMessage, Field, TextField, formatDate, useAction } from '../app/ui';

export function PageHeader({ title, lead }: { title: string; lead: string }) {
  return (
    <header className="page-header page-header-stacked">
      <h1 id="page-title">{title}</h1>
      <p className="muted">{lead}</p>
    </header>
  );
}

export function OrganizationsPage() {
  const orgs = useLoad(() => client.admin.organizations(), []);
  const [name, setName] = useState('');
  const action = useAction();
  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await client.admin.createOrganization(name.trim());
      setName('');
      orgs.reload();
    });
  };
  const items = orgs.data?.items ?? [];
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Organizations" lead="Teams that share maps, datasets and quotas." />
      <form className="form share-row card" onSubmit={create} aria-label="Create an organization">
        <TextField grow label="Organization name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        <button type="submit" className="button button-primary" disabled={action.pending || !name.trim()}>
          Create organization
        </button>
      </form>
      <ErrorMessage message={action.error ?? orgs.error} onRetry={orgs.error ? orgs.reload : undefined} />
      {!orgs.loading && !orgs.error && items.length === 0 && <p className="empty">No organizations yet — create the first one above.</p>}
      {items.length > 0 && (
        <DataTable
          label="Organizations"
          rows={items}
          rowKey={(o) => o.id}
          columns={[
            { header: 'Name', cell: (o) => <strong>{o.name}</strong> },
            { header: 'Makers', cell: (o) => o.makerRoleUsersCount },
            { header: 'Viewers', cell: (o) => o.viewerRoleUsersCount },
            { header: 'Maker quota', cell: (o) => o.makerQuotaPolicy },
            { header: 'Created', cell: (o) => formatDate(o.createdAt), className: 'muted' },
            { header: 'Id', cell: (o) => <code className="small">{o.id}</code> },
          ]}
        />
      )}
    </section>
  );
}

export function InvitePage() {
  const orgs = useLoad(() => client.admin.organizations(), []);
  const [orgId, setOrgId] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'maker' | 'viewer'>('maker');
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const action = useAction();
  const chosen = orgId || orgs.data?.items[0]?.id || '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const address = email.trim().toLowerCase();
      const inv = await client.admin.invite(chosen, address, role);
      setLink({ email: address, url: `${window.location.origin}${inv.acceptUrl}` });
      setEmail('');
    });
  };
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Invite people" lead="Invite someone into an organization. Send them the link: it creates their account." />
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
      {link && (
        <div className="card notice-card" role="status">
          <p>
            Invitation for <strong>{link.email}</strong> created. Send this link (it works once):
          </p>
          <input className="copy-field" readOnly aria-label="Invitation link" value={link.url} onFocus={(e) => e.currentTarget.select()} />
        </div>
      )}
    </section>
  );
}

export function AuditLogPage() {
  const [offset, setOffset] = useState(0);
  const PAGE = 50;
  const log = useLoad(() => client.admin.auditLogs({ offset, limit: PAGE }), [offset]);
  const items = log.data?.items ?? [];
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Audit log" lead="Who did what, newest first." />
      <ErrorMessage message={log.error} onRetry={log.reload} />
      {!log.loading && !log.error && items.length === 0 && <p className="empty">No activity recorded yet.</p>}
      {items.length > 0 && (
        <DataTable
          label="Audit log"
          rows={items}
          rowKey={(e) => text(e.id)}
          columns={[
            { header: 'When', cell: (e) => new Date(text(e.at)).toLocaleString(), className: 'muted nowrap' },
            { header: 'Who', cell: (e) => text(e.actorEmail) || 'system' },
            { header: 'Action', cell: (e) => <code>{text(e.action)}</code> },
            { header: 'Resource', cell: (e) => <>{text(e.resourceType)} <code className="small">{text(e.resourceId)}</code></>, className: 'muted' },
          ]}
        />
      )}
      <div className="pager">
        <button type="button" className="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Newer
        </button>
        <button type="button" className="button" disabled={items.length < PAGE} onClick={() => setOffset(offset + PAGE)}>
          Older
        </button>
      </div>
    </section>
  );
}

/** Saved data connections the server refuses to connect to, with the reason and what to change. */
export function RefusedConnectionsPage() {
  const list = useLoad(() => client.admin.refusedConnections(), []);
  const items = list.data ?? [];
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader
        title="Refused connections"
        lead="Saved data connections whose address is private, loopback or link-local and not listed in STUDIO_CONNECTION_HOSTS, or is the studio's own catalog. They cannot connect until the server's setting lists them or their owner changes the host."
      />
      <ErrorMessage message={list.error} onRetry={list.reload} />
      {!list.loading && !list.error && items.length === 0 && <p className="empty">Every saved connection may connect.</p>}
      {items.length > 0 && (
        <DataTable
          label="Refused connections"
          rows={items}
          rowKey={(c) => c.id}
          columns={[
            { header: 'Connection', cell: (c) => c.name },
            { header: 'Kind', cell: (c) => c.connectionType, className: 'muted' },
            { header: 'Address', cell: (c) => <code>{`${c.host}:${c.port}`}</code> },
            { header: 'Why', cell: (c) => c.reason, className: 'muted' },
          ]}
        />
      )}
    </section>
  );
}
