import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { DataTable, ErrorMessage, formatDate } from '../app/ui';
import { PageHeader } from './AdminPages';

/** Errors the web app met and users' notes about them, kept for 30 days when the studio has no Sentry DSN. */
export function ClientErrorsPage() {
  const list = useLoad(() => client.admin.clientErrors(), []);
  const items = list.data ?? [];
  return (
    <section className="page" aria-labelledby="page-title">
      <PageHeader
        title="Client errors"
        lead="Errors the web app met in users' browsers, and what users wrote about them, newest first (30 days). With STUDIO_SENTRY_DSN set they go to that Sentry server instead."
      />
      <ErrorMessage message={list.error} onRetry={list.reload} />
      {!list.loading && !list.error && items.length === 0 && <p className="empty">No errors reported.</p>}
      {items.length > 0 && (
        <DataTable
          label="Client errors"
          rows={items}
          rowKey={(r) => r.id}
          columns={[
            { header: 'When', cell: (r) => formatDate(r.createdAt), className: 'muted' },
            { header: 'Kind', cell: (r) => (r.kind === 'error' ? 'Error' : 'Feedback') },
            {
              header: 'What',
              cell: (r) =>
                r.detail ? (
                  <details>
                    <summary>{r.message}</summary>
                    <pre className="small">{r.detail}</pre>
                  </details>
                ) : (
                  r.message
                ),
            },
            { header: 'Page', cell: (r) => (r.url ? <code className="small">{new URL(r.url, window.location.origin).pathname}</code> : '—') },
            { header: 'User', cell: (r) => r.userEmail ?? '(deleted)', className: 'muted' },
            { header: 'Reference', cell: (r) => (r.eventId ? <code className="small">{r.eventId.slice(0, 8)}</code> : '—') },
          ]}
        />
      )}
    </section>
  );
}
