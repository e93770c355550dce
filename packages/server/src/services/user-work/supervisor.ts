import { fork, type ChildProcess } from 'node:child_process';
import { readFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { StudioError, bestEffort } from '@studio/schema';
import { fromWire, toWire, type FromWorker, type ToWorker, type WorkAnswers, type WorkRequest, type WorkerOptions } from './protocol';

/**
 * A few user-work processes (worker-main.ts) beside the API, started on first use and again after one ends.
 * Each request goes to the least busy one; its answer, or why the process ended, comes back as the request's
 * answer, so a crash, a hang or a memory blow-up costs the requests that process was running and nothing else:
 * - a request past its time is cancelled in DuckDB, and its process killed if it does not stop within GRACE_MS;
 * - a process whose resident memory passes `memoryCapBytes` is killed (read from /proc every WATCH_MS while busy);
 * - a process that ends by itself (SIGSEGV in the engine, V8 out of memory) is reported and replaced.
 */
export interface UserWorkPoolOptions {
  /** A name for log lines and the process title: 'sql' or 'files'. */
  name: string;
  /** Processes at most. */
  size: number;
  /** A folder of the data directory: each process gets a subfolder, removed when it ends. */
  dir: string;
  /** DuckDB memory of one process's sandbox instances together. */
  memoryLimit: string;
  maxInstances: number;
  spillLimit: string;
  /** Threads each process gives the H3 functions (STUDIO_H3_WORKERS; null or unset: the default). */
  h3Workers?: number | null;
  /** Resident memory a process may reach before it is killed (bytes). */
  memoryCapBytes: number;
  /** Where the pool reports a process that ended or was killed. */
  log?: (level: 'warn' | 'error', message: string, details: Record<string, unknown>) => void;
}

export interface RunOptions {
  /** Cancels the request (the client went away, the user pressed Cancel). */
  signal?: AbortSignal;
  /** The request is cancelled after this long and answers `timeoutMessage`. */
  timeoutMs?: number;
  timeoutMessage?: string;
  /** Answers a table name the query wrote with the file the caller may read (or throws a StudioError). */
  resolve?: (name: string) => Promise<string>;
}

/** How long a cancelled request may take to stop before its process is killed. */
const GRACE_MS = 2000;
const WATCH_MS = 200;
const PAGE_BYTES = 4096;

interface Call {
  id: number;
  resolve: (value: unknown) => void;
  reject: (e: unknown) => void;
  opts: RunOptions;
  timedOut: boolean;
  /** Sent to the process (it was still starting before). */
  posted: boolean;
  timers: NodeJS.Timeout[];
  onAbort?: () => void;
}

interface Worker {
  /** Null until the entry is found and the process forked. */
  proc: ChildProcess | null;
  dir: string;
  calls: Map<number, Call>;
  ready: Promise<void>;
  /** Why the pool itself ended the process, if it did. */
  killedFor: 'memory' | 'timeout' | 'close' | null;
  watch: NodeJS.Timeout | null;
}

/**
 * The child's entry: in production the bundle's own file beside main.js; run from the TypeScript sources (tests,
 * `npm run dev`), the same entry bundled once into packages/server/dist-user-work (scripts/builds.mjs
 * buildUserWorker): plain JavaScript starts in a fraction of a second where tsx took 1-4 s on two busy cores.
 */
let entry: Promise<string> | null = null;
function workerEntry(): Promise<string> {
  entry ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    if (!here.endsWith('.ts')) return path.join(path.dirname(here), 'user-work.js');
    const builds = path.resolve(path.dirname(here), '../../../../../scripts/builds.mjs');
    const { buildUserWorker } = (await import(pathToFileURL(builds).href)) as { buildUserWorker: () => Promise<string> };
    return buildUserWorker();
  })();
  entry.catch(() => (entry = null));
  return entry;
}

export const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

export class UserWorkPool {
  private readonly workers: Worker[] = [];
  private nextId = 0;
  private spawned = 0;
  private closed = false;

  constructor(private readonly opts: UserWorkPoolOptions) {}

  /** Processes running now (for tests and metrics). */
  get processes(): number[] {
    return this.workers.flatMap((w) => (w.proc?.pid ? [w.proc.pid] : []));
  }

  /** Starts one process ahead of the first request (a server does at start, so the first query does not wait). */
  async warm(): Promise<void> {
    await (this.workers[0] ?? this.spawn()).ready;
  }

  run<K extends WorkRequest['op']>(request: Extract<WorkRequest, { op: K }>, opts: RunOptions = {}): Promise<WorkAnswers[K]> {
    if (this.closed) return Promise.reject(new StudioError(503, 'The studio is stopping'));
    if (opts.signal?.aborted) return Promise.reject(new StudioError(499, 'The query was cancelled'));
    const worker = this.pick();
    const id = this.nextId++;
    return new Promise<WorkAnswers[K]>((resolve, reject) => {
      const call: Call = { id, resolve: resolve as (v: unknown) => void, reject, opts, timedOut: false, posted: false, timers: [] };
      worker.calls.set(id, call);
      if (opts.signal) {
        call.onAbort = () => this.cancel(worker, call);
        opts.signal.addEventListener('abort', call.onAbort, { once: true });
      }
      void worker.ready.then(
        () => {
          if (!worker.calls.has(id)) return; // cancelled while the process started
          call.posted = true;
          this.post(worker, { type: 'call', id, request });
          this.watch(worker);
          // The time counts from when the work reaches the process: a process still starting is not the query's fault.
          if (opts.timeoutMs) {
            const timer = setTimeout(() => {
              call.timedOut = true;
              this.cancel(worker, call);
            }, opts.timeoutMs);
            call.timers.push(timer);
          }
        },
        () => undefined, // the exit handler answers the call
      );
    });
  }

  private pick(): Worker {
    const idle = this.workers.find((w) => w.calls.size === 0);
    if (idle) return idle;
    if (this.workers.length < this.opts.size) return this.spawn();
    return this.workers.reduce((a, b) => (b.calls.size < a.calls.size ? b : a));
  }

  private spawn(): Worker {
    const dir = path.join(this.opts.dir, `${this.opts.name}-${process.pid}-${this.spawned++}`);
    const options: WorkerOptions = { dir, memoryLimit: this.opts.memoryLimit, maxInstances: this.opts.maxInstances, spillLimit: this.opts.spillLimit, h3Workers: this.opts.h3Workers ?? null };
    // V8's heap stays well under the process cap, so JavaScript that grows without end fails in V8 first.
    const heapMb = Math.max(128, Math.floor((this.opts.memoryCapBytes * 0.75) / 2 ** 20));
    const worker: Worker = { proc: null, dir, calls: new Map(), ready: Promise.resolve(), killedFor: null, watch: null };
    worker.ready = (async () => {
      const file = await workerEntry();
      await mkdir(dir, { recursive: true });
      const proc = fork(file, [JSON.stringify(options)], {
        execArgv: [`--max-old-space-size=${heapMb}`],
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' },
      });
      worker.proc = proc;
      proc.on('message', (m: FromWorker) => this.onMessage(worker, m));
      proc.on('exit', (code, signal) => this.onExit(worker, code, signal));
      proc.on('error', () => undefined); // 'exit' follows and answers the calls
      if (this.closed) proc.kill('SIGKILL');
      await new Promise<void>((resolve, reject) => {
        proc.once('message', (m: FromWorker) => (m.type === 'ready' ? resolve() : reject(new Error('The user-work process did not start'))));
        proc.once('exit', () => reject(new Error('The user-work process ended before it started')));
      });
    })();
    // A process that could not start answers the calls waiting for it.
    worker.ready.catch((e: unknown) => {
      if (!worker.proc) this.onExit(worker, null, null, e);
    });
    this.workers.push(worker);
    return worker;
  }

  private post(worker: Worker, m: ToWorker): void {
    if (worker.proc?.connected) worker.proc.send(m);
  }

  private onMessage(worker: Worker, m: FromWorker): void {
    if (m.type === 'resolve') {
      const call = worker.calls.get(m.id);
      const resolve = call?.opts.resolve;
      const answer = resolve ? resolve(m.name) : Promise.reject(new StudioError(404, `Dataset not found: ${m.name}`));
      answer.then(
        (p) => this.post(worker, { type: 'resolved', id: m.id, rid: m.rid, path: p }),
        (e: unknown) => this.post(worker, { type: 'resolved', id: m.id, rid: m.rid, error: toWire(e) }),
      );
      return;
    }
    if (m.type !== 'done' && m.type !== 'failed') return;
    const call = worker.calls.get(m.id);
    if (!call) return;
    this.finish(worker, call);
    if (m.type === 'done') call.resolve(m.value);
    else if (call.timedOut) call.reject(this.timeoutError(call));
    else call.reject(fromWire(m.error));
  }

  private finish(worker: Worker, call: Call): void {
    worker.calls.delete(call.id);
    for (const t of call.timers) clearTimeout(t);
    if (call.onAbort) call.opts.signal?.removeEventListener('abort', call.onAbort);
    if (worker.calls.size === 0 && worker.watch) {
      clearInterval(worker.watch);
      worker.watch = null;
    }
  }

  private timeoutError(call: Call): StudioError {
    return new StudioError(422, call.opts.timeoutMessage ?? `The work took longer than ${Math.round((call.opts.timeoutMs ?? 0) / 1000)} s and was stopped`);
  }

  /** Asks the process to stop the call; one that does not within GRACE_MS is killed. */
  private cancel(worker: Worker, call: Call): void {
    if (!call.posted) {
      this.finish(worker, call);
      return call.reject(new StudioError(499, 'The query was cancelled'));
    }
    this.post(worker, { type: 'cancel', id: call.id });
    const grace = setTimeout(() => {
      if (!worker.calls.has(call.id)) return;
      worker.killedFor = 'timeout';
      worker.proc?.kill('SIGKILL');
    }, GRACE_MS);
    grace.unref();
    call.timers.push(grace);
  }

  /** While a process has work, its resident memory is read every WATCH_MS; past the cap it is killed. */
  private watch(worker: Worker): void {
    if (worker.watch) return;
    worker.watch = setInterval(() => {
      const pid = worker.proc?.pid;
      if (!pid) return;
      readFile(`/proc/${pid}/statm`, 'utf8').then(
        (statm) => {
          const rss = Number(statm.split(' ')[1]) * PAGE_BYTES;
          if (rss > this.opts.memoryCapBytes && worker.killedFor === null) {
            worker.killedFor = 'memory';
            worker.proc?.kill('SIGKILL');
          }
        },
        () => undefined, // the process just ended
      );
    }, WATCH_MS);
    worker.watch.unref();
  }

  private onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null, notStarted?: unknown): void {
    const i = this.workers.indexOf(worker);
    if (i >= 0) this.workers.splice(i, 1);
    if (worker.watch) clearInterval(worker.watch);
    const calls = [...worker.calls.values()];
    if (worker.killedFor !== 'close' && (calls.length || code !== 0)) {
      this.opts.log?.(worker.killedFor ? 'warn' : 'error', `A ${this.opts.name} worker process ended`, {
        pid: worker.proc?.pid,
        code,
        signal,
        killedFor: worker.killedFor,
        requests: calls.length,
        ...(notStarted !== undefined && { notStarted: String((notStarted as Error)?.message ?? notStarted) }),
      });
    }
    for (const call of calls) {
      this.finish(worker, call);
      call.reject(this.exitError(worker, call, signal ?? `exit code ${code}`));
    }
    void bestEffort(rm(worker.dir, { recursive: true, force: true }), `Removing the folder of a ${this.opts.name} worker`);
  }

  private exitError(worker: Worker, call: Call, how: string): StudioError {
    if (worker.killedFor === 'close') return new StudioError(503, 'The studio is stopping');
    if (call.timedOut) return this.timeoutError(call);
    if (worker.killedFor === 'memory') {
      return new StudioError(422, `The work needed more than ${mb(this.opts.memoryCapBytes)} of memory and was stopped; nothing was saved`);
    }
    return new StudioError(500, 'The data engine stopped while doing this work (its worker process ended); nothing was saved and the studio goes on', how);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.killedFor = 'close';
            const proc = w.proc;
            if (!proc || proc.exitCode !== null || proc.signalCode !== null) return resolve();
            proc.once('exit', () => resolve());
            proc.kill('SIGKILL');
          }),
      ),
    );
  }
}
