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
  // ADM-024: the account's defaults (its tags), added where missing; says what it added.
  const [provisioned, setProvisioned] = useState<string | null>(null);
  const provision = (o: { id: string; name: string }) =>
    void action.run(async () => {
      const { createdTags } = await client.admin.provisionAccount(o.id);
      setProvisioned(createdTags.length ? `${o.name} now has the tags ${createdTags.map((t) => `“${t}”`).join(' and ')}.` : `${o.name} already has its default tags.`);
    });
  const items = orgs.data?.items ?? [];
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Organizations" lead="Teams that share maps, datasets and quotas." />
      {provisioned && <p role="status">{provisioned}</p>}
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
            {
              header: <span className="visually-hidden">Actions</span>,
              className: 'row-actions',
              cell: (o) => (
                <button type="button" className="button button-small" disabled={action.pending} aria-label={`Provision ${o.name}`} title="Adds the organization's default tags (Needs review, Published) where missing" onClick={() => provision(o)}>
                  Provision
                </button>
              ),
            },
          ]}
        />
      )}
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
