import { z } from 'zod';
import { Id, IsoDate } from './common';

/**
 * Background jobs (hex tiles, and the other long work) as users see them: the Jobs panel and a record's
 * page. Spec-silent; the decisions are in docs/decisions.md "Background jobs".
 */

/** The kinds of work that run as jobs, with the words the Jobs panel shows. */
export const JOB_KINDS = {
  'hex-tiles': 'Building hex tiles',
  'vector-tiles': 'Building vector tiles',
  // A table dataset's own vector tiles (#50): no new record, stored beside its data.
  'dataset-tiles': "Building a dataset's tiles",
  'dataset-refresh': 'Refreshing a live dataset',
  // An asynchronous query execution (Prefer: respond-async); the job has the execution's id.
  'query-execution': 'Running a query',
  // An upload ingested in the background (Prefer: respond-async on the upload calls).
  'dataset-ingest': 'Ingesting an upload',
  // Once, at start-up, for datasets made before ingest normalised geometry (cut at the antimeridian, …).
  'geometry-repair': "Repairing datasets' geometry",
  // Once a day, on a node that runs jobs: versions of maps, dashboards and workbooks thinned by the administrators' retention (#51).
  'history-thinning': 'Thinning the history of maps, dashboards and workbooks',
} as const;
export type JobKind = keyof typeof JOB_KINDS;
export const JobKindName = z.enum(Object.keys(JOB_KINDS) as [JobKind, ...JobKind[]]);

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

/**
 * The moves a job's status may make. running -> queued: its node stopped (a crash, a shutdown) and the
 * job waits for another node's retry. Finished statuses are final.
 */
export const JOB_TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'failed', 'cancelled'],
  running: ['queued', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export const isFinished = (status: JobStatus): boolean => JOB_TRANSITIONS[status].length === 0;

export const Job = z.object({
  id: Id,
  kind: JobKindName,
  /** The record the job builds (e.g. the hex-tile dataset); null once that record is deleted. */
  resourceId: Id.nullable(),
  status: JobStatus,
  /** 0–100. */
  percent: z.number(),
  /** Rows read or written so far, when the work counts rows. */
  rows: z.number().nullable(),
  /** Why it failed, or what it is waiting for (a retry after its node stopped). */
  message: z.string().nullable(),
  /** 0 on the first run, one more on each retry. */
  attempt: z.number().int(),
  createdAt: IsoDate,
  startedAt: IsoDate.nullable(),
  finishedAt: IsoDate.nullable(),
});
export type Job = z.infer<typeof Job>;

/** GET /v1/jobs: the caller's jobs, newest first; `resourceId` narrows to one record's. */
export const JobListQuery = z.object({
  resourceId: Id.optional(),
  status: z.enum(['active', 'finished']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type JobListQuery = z.infer<typeof JobListQuery>;
