import { JOB_KINDS, isFinished, type Job } from '@studio/schema';
import { formatCount } from '../datasets/format';

/** What the job does, in the words of the Jobs panel ("Building hex tiles"). */
export const jobTitle = (job: Pick<Job, 'kind'>): string => JOB_KINDS[job.kind] ?? job.kind;

/**
 * One line on where a job is: "Queued", "Running: 45% (1,000,000 rows)", "Waiting for a retry: …",
 * "Done", "Failed: the reason", "Cancelled". The attempt is named from the first retry on.
 */
export function jobStatusText(job: Pick<Job, 'status' | 'percent' | 'rows' | 'message' | 'attempt'>): string {
  const attempt = job.attempt > 0 && !isFinished(job.status) ? ` (attempt ${job.attempt + 1})` : '';
  switch (job.status) {
    case 'queued':
      return `${job.message ?? 'Queued'}${attempt}`;
    case 'running':
      return `Running: ${Math.floor(job.percent)}%${job.rows !== null ? ` (${formatCount(job.rows)} rows)` : ''}${attempt}`;
    case 'succeeded':
      return 'Done';
    case 'failed':
      return `Failed: ${job.message ?? 'unknown error'}`;
    case 'cancelled':
      return job.message ?? 'Cancelled';
  }
}

/** How often an open page asks again while a job it shows is not finished (ms). */
export const JOB_POLL_MS = 1_000;
