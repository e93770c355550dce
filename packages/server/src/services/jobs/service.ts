import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { JobEngine, type JobDatabase, type JobEngineOptions, type RunningJob } from '@studio/jobs';
import { JOB_TRANSITIONS, conflict, isFinished, isStudioError, notFound, bestEffort, reportFailure, type Job, type JobKind, type JobListQuery, type JobStatus } from '@studio/schema';
import type { Db } from '../../store/db';
import type { Updateable } from 'kysely';
import type { JobsTable } from '../../store/tables';
import type { Caller } from '../../http/caller';
import { every } from '../every';

type JobRow = Selectable<JobsTable>;

/** What a job's work sees: the queue's view of it and a way to say how far it got. */
export interface JobRun<T> extends RunningJob<T> {
  /** How far the work got (0–100) and, when it counts rows, how many; written at most once a second. */
  progress(percent: number, rows?: number): void;
  /**
   * Whether the job was ended meanwhile (cancelled): `signal` aborts only at the queue's next heartbeat (10 s
   * or more), so work about to make its result visible asks first.
   */
  ended(): Promise<boolean>;
}

/** One kind of background work: what runs, and what its record becomes when the job ends without success. */
export interface StudioJobKind<T> {
  kind: JobKind;
  /** Runs after a failure or a lost node before the job fails for good. Default 2. */
  retryLimit?: number;
  run(job: JobRun<T>): Promise<void>;
  /**
   * The job ended without success — failed for good, or cancelled — wherever it ran: leave its record in a
   * state the user can act on (e.g. a dataset in error with the reason). Runs once per job.
   */
  ended?(data: T, outcome: 'failed' | 'cancelled', message: string): Promise<void>;
}

/** A job queued or running whose row has not moved for this long is checked against the queue (its node may be gone). */
const QUIET_MS = 30_000;
/** Progress writes, at most one per job in this interval. */
const PROGRESS_EVERY_MS = 1_000;

export interface JobSettings extends JobEngineOptions {
  /** How often this node checks the jobs nobody reports on (ms). Default 15,000. */
  sweepEveryMs?: number;
}

/**
 * Background jobs: a row per job in the catalog (what users see) and the same id in the queue (what
 * workers claim). A job is submitted inside the request that asks for the work, which answers at once
 * with the record pending and the job's id; a worker on any node runs it, reports progress, and ends it.
 */
export class JobService {
  private engine: JobEngine | null = null;
  private readonly kinds = new Map<JobKind, StudioJobKind<never>>();
  private stopSweeping: (() => void) | null = null;

  /**
   * `mayEdit`: whether the caller may edit the record a job works on. A record's jobs are its editors' to follow
   * and cancel, whoever started them: an editor who opens a map on a dataset whose owner's tile cut is under way
   * follows that cut instead of starting a second one (#50). Default: nobody but the job's starter and administrators.
   */
  constructor(
    private readonly db: Db,
    private readonly nodeId: string,
    private readonly mayEdit: (caller: Caller, resourceId: string) => Promise<boolean> = async () => false,
  ) {}

  /** Declares a kind; all kinds are declared before `start`. */
  register<T>(kind: StudioJobKind<T>): void {
    this.kinds.set(kind.kind, kind as StudioJobKind<never>);
  }

  /** Opens the queue and, unless the node is worker-less, starts its workers and its sweep. */
  async start(database: JobDatabase, settings: JobSettings = {}): Promise<void> {
    this.engine = await JobEngine.open(database, { schema: 'job_queue', ...settings });
    for (const kind of this.kinds.values()) {
      await this.engine.define({ name: kind.kind, retryLimit: kind.retryLimit, run: (job) => this.runJob(kind, job as RunningJob<never>) });
    }
    this.stopSweeping = every(settings.sweepEveryMs ?? 15_000, () => this.sweep(), 'Checking background jobs');
  }

  /** Stops this node's workers; jobs still running (after `timeoutMs`, if given) go back to the queue for another node. */
  async stop(timeoutMs?: number): Promise<void> {
    this.stopSweeping?.();
    await this.engine?.stop(timeoutMs);
  }

  /**
   * A job's row, `queued`, written in the caller's unit of work beside the record it builds; `enqueue`
   * hands it to the workers once that unit has committed (a worker must find the record it reads).
   */
  async create(caller: Caller | null, kind: JobKind, resourceId: string | null, id: string = randomUUID()): Promise<string> {
    // No caller: the studio's own upkeep (the scheduled thinning of versions), in nobody's Jobs panel.
    await this.db.insertInto('jobs').values({ id, kind, resource_id: resourceId, created_by: caller?.user.id ?? null, status: 'queued' }).execute();
    return id;
  }

  /** Queues a created job; if the queue refuses, the job fails with the reason and the error is thrown. */
  async enqueue<T extends object>(id: string, kind: JobKind, data: T): Promise<Job> {
    try {
      await this.queue().enqueue(kind, data, { id });
    } catch (e) {
      await this.finish(id, 'failed', 'The job could not be queued');
      throw e;
    }
    return toWire((await this.row(id))!);
  }

  /** A job the caller started, or one on a record the caller may edit (administrators: any job). */
  async get(caller: Caller, id: string): Promise<Job> {
    return toWire(await this.visible(caller, id));
  }

  /** The caller's jobs (with `resourceId`, for administrators and the record's editors: anyone's on it), newest first. */
  async list(caller: Caller, query: JobListQuery): Promise<Job[]> {
    let q = this.db.selectFrom('jobs').selectAll().orderBy('created_at', 'desc').limit(query.limit);
    const everyones = query.resourceId !== undefined && (caller.isAdmin || (await this.mayEdit(caller, query.resourceId)));
    if (!everyones) q = q.where('created_by', '=', caller.user.id);
    if (query.resourceId) q = q.where('resource_id', '=', query.resourceId);
    if (query.status === 'active') q = q.where('status', 'in', ['queued', 'running']);
    if (query.status === 'finished') q = q.where('status', 'in', ['succeeded', 'failed', 'cancelled']);
    return (await q.execute()).map(toWire);
  }

  /** The newest queued or running job of a kind on a record, whoever started it; null when there is none. */
  async active(kind: JobKind, resourceId: string): Promise<Job | null> {
    const row = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', kind)
      .where('resource_id', '=', resourceId)
      .where('status', 'in', ['queued', 'running'])
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    return row ? toWire(row) : null;
  }

  /** Cancels a queued or running job: it stops at its next step on whichever node runs it. */
  async cancel(caller: Caller, id: string): Promise<Job> {
    const row = await this.visible(caller, id);
    if (isFinished(row.status)) throw conflict(`The job has already ended (${row.status})`);
    const kind = this.kindOf(row);
    const status = await this.queue().status<never>(row.kind, id);
    await this.queue().cancel(row.kind, id);
    const ended = await this.finish(id, 'cancelled', `Cancelled by ${caller.user.name || caller.user.email}`);
    if (ended && status) await kind.ended?.(status.data, 'cancelled', 'The job was cancelled');
    return toWire((await this.row(id))!);
  }

  /**
   * Jobs whose row has been quiet: asks the queue what became of them. A job whose node stopped waits for
   * a retry (queued, with why) or failed for good (its record is told); one the queue lost fails.
   */
  async sweep(now = Date.now()): Promise<number> {
    const quiet = await this.db
      .selectFrom('jobs')
      .selectAll()
      .where('status', 'in', ['queued', 'running'])
      .where('updated_at', '<', new Date(now - QUIET_MS))
      .limit(100)
      .execute();
    let changed = 0;
    for (const row of quiet) {
      const kind = this.kinds.get(row.kind as JobKind);
      if (!kind) continue;
      const status = await this.queue().status<never>(row.kind, row.id);
      if (!status || status.state === 'failed' || status.state === 'cancelled' || (status.state === 'completed' && row.status === 'running')) {
        // A run that ended without writing its own end (its node died between the two) counts as failed.
        const message = status?.state === 'cancelled' ? 'The job was cancelled' : 'The job stopped: the node running it was lost and no retry is left';
        const outcome = status?.state === 'cancelled' ? 'cancelled' : 'failed';
        if (await this.finish(row.id, outcome, message)) {
          if (status) await bestEffort(kind.ended?.(status.data, outcome, message) ?? Promise.resolve(), `Ending the record of job ${row.id}`);
          changed++;
        }
      } else if (status.state === 'retry' && row.status === 'running') {
        await this.move(row.id, 'queued', { message: 'Waiting for a retry: the node running it stopped' });
        changed++;
      } else {
        // Queued and waiting, or running and beating in the queue: note that it was looked at.
        await this.db.updateTable('jobs').set({ updated_at: new Date(now) }).where('id', '=', row.id).execute();
      }
    }
    return changed;
  }

  private async runJob(kind: StudioJobKind<never>, job: RunningJob<never>): Promise<void> {
    // From queued, or still running when the node that ran it before died before the sweep saw it.
    const started = await this.move(job.id, 'running', { attempt: job.attempt, node_id: this.nodeId, started_at: new Date(), percent: 0, rows_done: null, message: null }, { attempt: job.attempt, orEarlier: true });
    // Cancelled (or otherwise ended) before this worker took it: nothing to run.
    if (!started) return;
    let last = 0;
    let pending: Promise<unknown> = Promise.resolve();
    const progress = (percent: number, rows?: number) => {
      const now = Date.now();
      if (now - last < PROGRESS_EVERY_MS) return;
      last = now;
      pending = bestEffort(
        this.db.updateTable('jobs').set({ percent: Math.max(0, Math.min(100, percent)), rows_done: rows ?? null, updated_at: new Date() }).where('id', '=', job.id).where('status', '=', 'running').where('attempt', '=', job.attempt).execute(),
        `Recording the progress of job ${job.id}`,
      );
    };
    try {
      const ended = async () => {
        const row = await this.row(job.id);
        return !row || isFinished(row.status);
      };
      await kind.run({ ...job, progress, ended });
      await pending;
      await this.finish(job.id, 'succeeded', null, job.attempt);
    } catch (e) {
      await pending;
      const current = await this.row(job.id);
      if (!current || isFinished(current.status)) return; // cancelled meanwhile: the cancel ended it
      const message = isStudioError(e) ? e.message : 'The job failed on the server';
      // What the user is told stays short; the server's log keeps the whole error.
      if (!isStudioError(e) || e.status >= 500) reportFailure(`The ${kind.kind} job ${job.id} (attempt ${job.attempt})`, e);
      // Bad input found by the work (4xx) will fail the same way again: it ends now, with its reason.
      const final = (isStudioError(e) && e.status < 500) || job.attempt >= (kind.retryLimit ?? 2);
      if (final) {
        // The record says why before the job reads as failed: whoever sees the job end finds its record ended too.
        await kind.ended?.(job.data, 'failed', message);
        await this.finish(job.id, 'failed', message, job.attempt);
        return;
      }
      // A node stopping hands its jobs back: another node (or this one, restarted) runs them again.
      const why = this.engine?.isStopped ? 'Waiting for another node: the one running it stopped' : `Retrying after: ${message}`;
      await this.move(job.id, 'queued', { message: why }, { attempt: job.attempt });
      throw e;
    }
  }

  /**
   * Moves a job's status when the move is allowed from where it is; answers whether it moved. A run's own
   * writes name its attempt: a run its node lost (stopped, cut off) that ends late must not overwrite the
   * retry that took its place on another node.
   */
  private async move(id: string, to: JobStatus, set: Omit<Updateable<JobsTable>, 'id' | 'status'> = {}, ofAttempt?: { attempt: number; orEarlier?: boolean }): Promise<boolean> {
    const from = (Object.keys(JOB_TRANSITIONS) as JobStatus[]).filter((s) => JOB_TRANSITIONS[s].includes(to) || (s === 'running' && to === 'running'));
    let q = this.db
      .updateTable('jobs')
      .set({ ...set, status: to, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', 'in', from);
    if (ofAttempt) q = q.where('attempt', ofAttempt.orEarlier ? '<=' : '=', ofAttempt.attempt);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  private finish(id: string, to: 'succeeded' | 'failed' | 'cancelled', message: string | null, ofAttempt?: number): Promise<boolean> {
    return this.move(id, to, { message, finished_at: new Date(), ...(to === 'succeeded' ? { percent: 100 } : {}) }, ofAttempt === undefined ? undefined : { attempt: ofAttempt });
  }

  private row(id: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  private async visible(caller: Caller, id: string): Promise<JobRow> {
    const row = await this.row(id);
    const mine = row && (row.created_by === caller.user.id || caller.isAdmin);
    if (!row || !(mine || (row.resource_id !== null && (await this.mayEdit(caller, row.resource_id))))) throw notFound('Job not found');
    return row;
  }

  private kindOf(row: JobRow): StudioJobKind<never> {
    const kind = this.kinds.get(row.kind as JobKind);
    if (!kind) throw new Error(`Unknown job kind ${row.kind}`);
    return kind;
  }

  private queue(): JobEngine {
    if (!this.engine) throw new Error('The job queue is not open');
    return this.engine;
  }
}

function toWire(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind as JobKind,
    resourceId: row.resource_id,
    status: row.status,
    percent: Number(row.percent),
    rows: row.rows_done === null ? null : Number(row.rows_done),
    message: row.message,
    attempt: row.attempt,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: row.started_at ? new Date(row.started_at).toISOString() : null,
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}
