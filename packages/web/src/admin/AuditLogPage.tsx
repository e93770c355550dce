import { useState, type FormEvent } from 'react';
import { AUDIT_EXPORT_MAX, type AuditEntry, type AuditLogFilter } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { saveBlob } from '../app/save-blob';
import { DataTable, ErrorMessage, TextField, useAction } from '../app/ui';
import { PageHeader } from './AdminPages';

const PAGE = 50;
const EMPTY: AuditLogFilter = {};

/**
 * /workspace/admin/audit (administrators): who did what, newest first, narrowed by who (email), action or a
 * family of actions ("invitation" is every invitation.*), resource type and id, and days; "Export CSV"
 * downloads every entry the filter matches (up to AUDIT_EXPORT_MAX) for a spreadsheet.
 */
export function AuditLogPage() {
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState<AuditLogFilter>(EMPTY);
  const [draft, setDraft] = useState<Record<keyof AuditLogFilter, string>>({ actorId: '', actorEmail: '', action: '', resourceType: '', resourceId: '', from: '', to: '' });
  const log = useLoad(() => client.admin.auditLogs({ ...filter, offset, limit: PAGE }), [offset, filter]);
  const exporting = useAction();
  const items = log.data?.items ?? [];
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = Object.fromEntries(Object.entries(draft).filter(([, v]) => v.trim())) as AuditLogFilter;
    setOffset(0);
    setFilter(next);
  };
  const clear = () => {
    setDraft({ actorId: '', actorEmail: '', action: '', resourceType: '', resourceId: '', from: '', to: '' });
    setOffset(0);
    setFilter(EMPTY);
  };
  const field = (key: keyof AuditLogFilter) => ({ value: draft[key], onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value }) });
  const narrowed = Object.keys(filter).length > 0;
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader title="Audit log" lead="Who did what, newest first." />
      <form className="toolbar audit-filter" onSubmit={apply} aria-label="Filter the audit log">
        <TextField label="Who (email)" type="search" placeholder="someone@example.com" {...field('actorEmail')} />
        <TextField label="Action" type="search" placeholder="map.publish, or map for every map action" {...field('action')} />
        <TextField label="Resource type" type="search" placeholder="map, dataset, user…" {...field('resourceType')} />
        <TextField label="Resource id" type="search" {...field('resourceId')} />
        <TextField label="From" type="date" {...field('from')} />
        <TextField label="To" type="date" {...field('to')} />
        <div className="toolbar-actions">
          <button type="submit" className="button button-primary">Filter</button>
          <button type="button" className="button" onClick={clear} disabled={!narrowed}>Clear</button>
          <button
            type="button"
            className="button"
            disabled={exporting.pending}
            title={`Every entry the filter matches, up to ${AUDIT_EXPORT_MAX.toLocaleString()}`}
            onClick={() => void exporting.run(async () => saveBlob(await client.admin.auditLogCsv(filter), `audit-log-${new Date().toISOString().slice(0, 10)}.csv`))}
          >
            {exporting.pending ? 'Exporting…' : 'Export CSV'}
          </button>
        </div>
      </form>
      <ErrorMessage message={log.error ?? exporting.error} onRetry={log.error ? log.reload : undefined} />
      {!log.loading && !log.error && items.length === 0 && <p className="empty">{narrowed ? 'No entry matches this filter.' : 'No activity recorded yet.'}</p>}
      {items.length > 0 && (
        <DataTable<AuditEntry>
          label="Audit log"
          rows={items}
          rowKey={(e) => e.id}
          busy={log.loading}
          columns={[
            { header: 'When', cell: (e) => new Date(e.at).toLocaleString(), className: 'muted nowrap' },
            { header: 'Who', cell: (e) => e.actorEmail || 'system' },
            { header: 'Action', cell: (e) => <code>{e.action}</code> },
            { header: 'Resource', cell: (e) => <>{e.resourceType} <code className="small">{text(e.resourceId)}</code></>, className: 'muted' },
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
