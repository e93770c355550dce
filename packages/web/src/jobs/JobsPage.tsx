import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { isFinished, type Job } from '@studio/schema';
import { client } from '../app/api';
import { saveBlob } from '../app/save-blob';
import { DataTable, ErrorMessage, formatDate, useAction } from '../app/ui';
import { useLoad, useReloadWhile } from '../app/useLoad';
import { JOB_POLL_MS, jobStatusText, jobTitle } from './jobText';

/**
 * What a job works on: a link to its dataset's page (hex tiles build a dataset; a refresh renews one), or for
 * a query run in the background, its result once it has one.
 */
function JobRecord({ job }: { job: Job }) {
  const downloading = useAction();
  if (job.kind === 'query-execution') {
    if (job.status !== 'succeeded') return <span className="muted">A query</span>;
    return (
      <button type="button" className="link-button" disabled={downloading.pending} onClick={() => void downloading.run(async () => saveBlob(await client.connections.result(job.id), `query-${job.id.slice(0, 8)}.csv`))}>
        Download the result (CSV)
      </button>
    );
  }
  if (!job.resourceId) return <span className="muted">(deleted)</span>;
  return <Link to={`/workspace/datasets/${job.resourceId}`}>Open the dataset</Link>;
}

/**
 * The Jobs panel: the caller's background work, newest first — what it is, where it got, how it ended — with
 * Cancel for work not yet finished. The list asks again every second while something runs.
 */
export function JobsPage() {
  const list = useLoad(() => client.jobs.list({ limit: 100 }), []);
  const cancel = useAction();
  const items = list.data?.items ?? [];
  const active = items.some((j) => !isFinished(j.status));

  useEffect(() => {
    document.title = 'Jobs · Studio';
  }, []);
  useReloadWhile(active, list, JOB_POLL_MS);

  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header page-header-stacked">
        <h1 id="page-title">Jobs</h1>
        <p className="muted">Long work the studio runs in the background: hex tiles being built, live datasets refreshing. It goes on when you leave this page, and when the server that started it stops, another one finishes it.</p>
      </header>
      <ErrorMessage message={list.error ?? cancel.error} onRetry={list.reload} />
      {!list.loading && !list.error && items.length === 0 && <p className="empty">No jobs yet. Building hex tiles or refreshing a live dataset from its page starts one.</p>}
      {items.length > 0 && (
        <DataTable
          label="Jobs"
          rows={items}
          rowKey={(j) => j.id}
          columns={[
            { header: 'Job', cell: (j) => jobTitle(j) },
            { header: 'Status', cell: (j) => (
              <span className={`job-status job-status-${j.status}`}>
                {jobStatusText(j)}
                {!isFinished(j.status) && <progress max={100} value={j.percent} aria-label={`Progress of ${jobTitle(j)}`} />}
              </span>
            ) },
            { header: 'Started', cell: (j) => formatDate(j.startedAt ?? j.createdAt), className: 'muted' },
            { header: 'Record', cell: (j) => <JobRecord job={j} /> },
            { header: '', cell: (j) => (isFinished(j.status) ? null : (
              <button type="button" className="button" disabled={cancel.pending} onClick={() => void cancel.run(async () => {
                await client.jobs.cancel(j.id);
                list.reload();
              })}>
                Cancel
              </button>
            )) },
          ]}
        />
      )}
    </section>
  );
}
