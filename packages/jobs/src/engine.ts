import { PgBoss, fromPglite, type PGliteLike } from 'pg-boss';

/**
 * Where the jobs live: the catalog's own database, so that every node that shares the catalog shares
 * the queue. The embedded PGlite instance (one process, in-process workers) or a PostgreSQL URL
 * (any number of nodes; a job is claimed with `for update skip locked` and kept by its heartbeat).
 */
export type JobDatabase = { kind: 'pglite'; pglite: PGliteLike } | { kind: 'postgres'; connectionString: string };

export interface JobEngineOptions {
  /** Run handlers on this node. `false`: an API node started worker-less only queues and cancels. Default `true`. */
  worker?: boolean;
  /**
   * A running job's heartbeat, in seconds (pg-boss's minimum is 10). A node that stops beating for this
   * long (killed, frozen, cut off) loses the job, and another node's worker retries it. Default 10.
   */
  heartbeatSeconds?: number;
  /** How often idle workers look for work, in seconds. Default 1. */
  pollingIntervalSeconds?: number;
  /** How often a node looks for jobs whose node stopped beating, in seconds. Default 5. */
  superviseIntervalSeconds?: number;
  /** How long `stop()` waits for running handlers before failing them back to the queue, in ms. Default 5,000. */
  stopTimeoutMs?: number;
  /** The database schema of the queue's tables. Default `jobs`. */
  schema?: string;
  /** Errors of the engine itself (a lost connection, a failed heartbeat): logged by the caller. */
  onError?: (err: Error) => void;
}

/** A job as its handler sees it. */
export interface RunningJob<T> {
  id: string;
  data: T;
  /** 0 on the first run; one more on each retry (after a crash, a handover at shutdown or an error). */
  attempt: number;
  /** Aborted when the job is cancelled, taken by another node, or this node stops. */
  signal: AbortSignal;
}

export interface JobKind<T> {
  /** The queue's name: letters, digits, `-` and `_`. */
  name: string;
  /** How many times a job that failed (or whose node died) runs again before it fails for good. Default 2. */
  retryLimit?: number;
  /** How long one run may take, in seconds, before it counts as failed. Default 3,600. */
  expireInSeconds?: number;
  /** The work. Throwing fails the run (retried up to `retryLimit`); returning completes the job. */
  run(job: RunningJob<T>): Promise<void>;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface JobStatus<T = unknown> {
  id: string;
  data: T;
  state: JobState;
  attempt: number;
  retryLimit: number;
  startedAt: Date | null;
  completedAt: Date | null;
}

/**
 * One job interface over pg-boss, on the embedded catalog and on PostgreSQL alike: queues per kind,
 * workers on every node unless told otherwise, heartbeats, retries after a crash, cancel.
 */
export class JobEngine {
  private stopped = false;
  private readonly kinds = new Map<string, JobKind<never>>();
  /** This node's worker of each kind (none on a worker-less node). */
  private readonly workers = new Map<string, string>();

  private constructor(
    private readonly boss: PgBoss,
    private readonly options: Required<Omit<JobEngineOptions, 'onError' | 'schema'>>,
  ) {}

  static async open(database: JobDatabase, options: JobEngineOptions = {}): Promise<JobEngine> {
    const settings = {
      worker: options.worker ?? true,
      heartbeatSeconds: Math.max(10, options.heartbeatSeconds ?? 10),
      pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1,
      superviseIntervalSeconds: options.superviseIntervalSeconds ?? 5,
      stopTimeoutMs: options.stopTimeoutMs ?? 5_000,
    };
    const common = {
      schema: options.schema ?? 'jobs',
      superviseIntervalSeconds: settings.superviseIntervalSeconds,
      // The registry of instances, queue statistics and cron are pg-boss features the studio does not read.
      registerInstance: false,
      schedule: false,
    };
    const boss =
      database.kind === 'pglite'
        ? new PgBoss({ ...common, db: fromPglite(database.pglite), backend: 'pglite' })
        : new PgBoss({ ...common, connectionString: database.connectionString, max: 4 });
    boss.on('error', (err: Error) => options.onError?.(err));
    await boss.start();
    return new JobEngine(boss, settings);
  }

  /** Declares a kind of job: its queue (created once, shared by every node) and, on a worker node, its worker. */
  async define<T>(kind: JobKind<T>): Promise<void> {
    if (this.kinds.has(kind.name)) throw new Error(`Job kind ${kind.name} is defined twice`);
    this.kinds.set(kind.name, kind as JobKind<never>);
    const queue = {
      retryLimit: kind.retryLimit ?? 2,
      expireInSeconds: kind.expireInSeconds ?? 3_600,
      heartbeatSeconds: this.options.heartbeatSeconds,
      // Finished jobs stay a week: the Jobs panel shows what ran and how it ended.
      deleteAfterSeconds: 7 * 24 * 3_600,
    };
    const existing = await this.boss.getQueue(kind.name);
    if (existing) await this.boss.updateQueue(kind.name, { retryLimit: queue.retryLimit, expireInSeconds: queue.expireInSeconds, deleteAfterSeconds: queue.deleteAfterSeconds });
    else await this.boss.createQueue(kind.name, queue).catch(async (err: unknown) => {
      // Two nodes starting together both try; the second finds the queue made.
      if (!(await this.boss.getQueue(kind.name))) throw err;
    });
    if (!this.options.worker) return;
    const workerId = await this.boss.work<T>(kind.name, { pollingIntervalSeconds: this.options.pollingIntervalSeconds, batchSize: 1 }, async ([job]) => {
      await kind.run({ id: job!.id, data: job!.data, attempt: job!.retryCount, signal: job!.signal });
    });
    this.workers.set(kind.name, workerId);
  }

  /** Queues a job; `id` (a UUID) lets the caller name it first, e.g. to store it beside the record it builds. */
  async enqueue<T extends object>(kind: string, data: T, opts: { id?: string } = {}): Promise<string> {
    this.assertKind(kind);
    const id = await this.boss.send(kind, data, opts.id ? { id: opts.id } : {});
    if (!id) throw new Error(`The ${kind} job was not queued`);
    // This node's worker fetches now instead of at its next poll (up to pollingIntervalSeconds later): a job
    // asked for on a worker node starts at once. Other nodes still find it by polling.
    const workerId = this.workers.get(kind);
    if (workerId && !this.stopped) this.boss.notifyWorker(workerId);
    return id;
  }

  async status<T>(kind: string, id: string): Promise<JobStatus<T> | null> {
    this.assertKind(kind);
    const [job] = await this.boss.findJobs<T>(kind, { id });
    if (!job) return null;
    return { id: job.id, data: job.data, state: job.state, attempt: job.retryCount, retryLimit: job.retryLimit, startedAt: job.startedOn ?? null, completedAt: job.completedOn ?? null };
  }

  /**
   * Cancels a job queued or running anywhere: it will not run (again), and the node running it sees its
   * signal aborted at its next heartbeat. Answers whether a job was cancelled (false: it had already ended).
   */
  async cancel(kind: string, id: string): Promise<boolean> {
    this.assertKind(kind);
    // pg-boss types the answer as `{}`; it carries the counts (`requested`, `affected`) all the same.
    const res = (await this.boss.cancel(kind, id)) as { affected?: number };
    return (res.affected ?? 0) > 0;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Stops this node's workers: handlers still running after `stopTimeoutMs` are aborted and their jobs
   * failed back to the queue, where another node's worker retries them (a handover, not a loss). `timeoutMs`: a
   * shorter wait, when the process has a deadline to stop by.
   */
  async stop(timeoutMs = this.options.stopTimeoutMs): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  }

  private assertKind(kind: string): void {
    if (!this.kinds.has(kind)) throw new Error(`Unknown job kind ${kind}`);
  }
}
