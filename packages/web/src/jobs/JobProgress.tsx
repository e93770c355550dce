import { useEffect, useRef } from 'react';
import { isFinished } from '@studio/schema';
import { client } from '../app/api';
import { useAction } from '../app/ui';
import { useLoad, useReloadWhile } from '../app/useLoad';
import { JOB_POLL_MS, jobStatusText, jobTitle } from './jobText';

/**
 * The newest job of a record (a hex-tile dataset being built): its progress, and Cancel while it runs. Asks
 * again every second until the job ends, then calls `onEnded` (the page reloads the record).
 * `startedJobId`: a job the page has just started. Its end reloads the record even when it ended before
 * the first look (a refresh whose query fails at once), which a job never seen running would not.
 * `onActive`: told whether a job runs now, whoever started it (a record's editors see each other's jobs), so the
 * page can hold back a second start of the same work.
 */
export function JobProgress({ resourceId, onEnded, startedJobId = null, onActive }: { resourceId: string; onEnded: () => void; startedJobId?: string | null; onActive?: (active: boolean) => void }) {
  const jobs = useLoad(() => client.jobs.list({ resourceId, limit: 1 }), [resourceId]);
  const cancel = useAction();
  const job = jobs.data?.items[0];
  const wasActive = useRef(false);
  const endReported = useRef(false);

  const active = Boolean(job && !isFinished(job.status));
  useReloadWhile(active, jobs, JOB_POLL_MS);
  useEffect(() => onActive?.(active), [active, onActive]);
  // The job seen running, or the one just started, ended: the page reloads its record, once.
  useEffect(() => {
    if (!job || jobs.loading) return;
    const ended = !active && (wasActive.current || job.id === startedJobId);
    if (ended && !endReported.current) {
      endReported.current = true;
      onEnded();
    }
    wasActive.current = active;
  }, [job, active, jobs.loading, onEnded, startedJobId]);

  if (!job || !active) return null;
  return (
    <div className="job-progress card" role="status" aria-label={jobTitle(job)}>
      <div className="job-progress-line">
        <strong>{jobTitle(job)}</strong>
        <span className="muted">{jobStatusText(job)}</span>
        <button type="button" className="button" disabled={cancel.pending} onClick={() => void cancel.run(async () => {
          await client.jobs.cancel(job.id);
          jobs.reload();
        })}>
          {cancel.pending ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
      <progress max={100} value={job.percent} aria-label="Progress" />
      {cancel.error && <p className="error small">{cancel.error}</p>}
    </div>
  );
}
