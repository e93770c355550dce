import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { makeFastH3 } from './fast';
import { H3_BUNDLE, RAW_H3_FACTORY, cellsFn, verifiedTables } from './raw';

/** DuckDB hands scalar functions at most this many rows per call (STANDARD_VECTOR_SIZE). */
const CAP = 2048;
/** Points per claimed block: small, so a descheduled worker holds up the JS thread only briefly. */
const BLOCK = 128;
/**
 * Control words: 0 job sequence (-1 stops), 1 res, 2 n, 3 next block start (claim counter), 4 points done,
 * 5 points the workers computed (all jobs; what shows the workers take part).
 */
const CTL_WORDS = 16;
const CLOSED = 1 << 30;

/**
 * The worker evaluates makeFastH3's compiled source. Transpilers that keep function names (tsx, esbuild's keepNames)
 * wrap inner arrow functions in a module-level `__name(fn, "name")` helper the worker does not have: without this
 * stand-in the worker threw a ReferenceError at start and every point was computed on the JS thread alone.
 */
const WORKER_SRC = `
var __name = (fn) => fn;
const { workerData, parentPort } = require('node:worker_threads');
${RAW_H3_FACTORY}
const raw = makeRawH3(require('node:fs').readFileSync(workerData.bundle, 'utf8'), require);
const makeFastH3 = ${makeFastH3.toString()};
const fast = workerData.tables ? makeFastH3(workerData.tables) : null;
const cells = (lat, lng, res, from, to, lo, hi) => {
  if (!fast) return raw.cells(lat, lng, res, from, to, lo, hi);
  fast(lat, lng, res, from, to, lo, hi);
  for (let i = from; i < to; i++) if (hi[i] === 0xffffffff) raw.cells(lat, lng, res, i, i + 1, lo, hi);
};
const { sab, cap } = workerData;
const ctl = new Int32Array(sab, 0, ${CTL_WORDS});
const lat = new Float64Array(sab, ${CTL_WORDS * 4}, cap), lng = new Float64Array(sab, ${CTL_WORDS * 4} + cap * 8, cap);
const lo = new Uint32Array(sab, ${CTL_WORDS * 4} + cap * 16, cap), hi = new Uint32Array(sab, ${CTL_WORDS * 4} + cap * 20, cap);
let seen = 0;
parentPort.postMessage('ready');
for (;;) {
  Atomics.wait(ctl, 0, seen);
  seen = Atomics.load(ctl, 0);
  if (seen < 0) break;
  for (;;) {
    const s = Atomics.add(ctl, 3, ${BLOCK});
    const n = Atomics.load(ctl, 2);
    if (s >= n) break;
    const e = Math.min(n, s + ${BLOCK});
    cells(lat, lng, Atomics.load(ctl, 1), s, e, lo, hi);
    Atomics.add(ctl, 4, e - s);
    Atomics.add(ctl, 5, e - s);
    Atomics.notify(ctl, 4);
  }
}`;

/**
 * Computes H3 cells for one DuckDB vector synchronously. A scalar-function callback must return its
 * output before DuckDB moves on, so the JS thread and the workers pull 128-point blocks from a shared
 * counter (work stealing) and the JS thread then waits (Atomics.wait) only for blocks still in flight.
 * A worker starved of CPU thus costs at most one block's delay, and a free core roughly halves the time.
 */
export class H3Pool {
  readonly lat: Float64Array;
  readonly lng: Float64Array;
  readonly lo: Uint32Array;
  readonly hi: Uint32Array;
  private readonly ctl: Int32Array;
  private workers: Worker[] = [];
  private seq = 0;
  /** Resolves once every worker has started (or failed and been dropped). */
  readonly ready: Promise<void>;
  /** Why a worker stopped, if one did: it is dropped and the others (or the JS thread) carry on. */
  failure: Error | undefined;

  constructor(workerCount = defaultWorkers()) {
    const sab = new SharedArrayBuffer(CTL_WORDS * 4 + CAP * 24);
    this.ctl = new Int32Array(sab, 0, CTL_WORDS);
    this.lat = new Float64Array(sab, CTL_WORDS * 4, CAP);
    this.lng = new Float64Array(sab, CTL_WORDS * 4 + CAP * 8, CAP);
    this.lo = new Uint32Array(sab, CTL_WORDS * 4 + CAP * 16, CAP);
    this.hi = new Uint32Array(sab, CTL_WORDS * 4 + CAP * 20, CAP);
    Atomics.store(this.ctl, 3, CLOSED);
    const tables = workerCount > 0 ? verifiedTables() : undefined;
    const started: Promise<void>[] = [];
    for (let i = 0; i < workerCount; i++) {
      // execArgv: none of the parent's flags: `--input-type=module` would make the evaluated CommonJS source a module.
      const w = new Worker(WORKER_SRC, { eval: true, execArgv: [], workerData: { sab, cap: CAP, bundle: H3_BUNDLE, tables } });
      w.unref();
      started.push(new Promise((resolve) => {
        w.once('message', () => resolve());
        w.once('error', (err) => {
          this.failure = err;
          process.emitWarning(`H3 worker stopped, indexing goes on without it: ${err.message}`);
          this.drop(w);
          resolve();
        });
      }));
      this.workers.push(w);
    }
    this.ready = Promise.all(started).then(() => undefined);
  }

  static readonly capacity = CAP;
  get workerCount(): number { return this.workers.length; }
  /** Points the workers (not the JS thread) have computed since the pool started. */
  get workerPoints(): number { return Atomics.load(this.ctl, 5); }

  private drop(w: Worker): void {
    this.workers = this.workers.filter((x) => x !== w);
  }

  /** Fills lo/hi for points [0, n) already written to lat/lng. */
  compute(n: number, res: number): void {
    const cells = cellsFn();
    if (this.workers.length === 0 || n < 2 * BLOCK) {
      cells(this.lat, this.lng, res, 0, n, this.lo, this.hi);
      return;
    }
    const ctl = this.ctl;
    // Claims stay closed until the job's fields are in place.
    Atomics.store(ctl, 3, CLOSED);
    Atomics.store(ctl, 1, res);
    Atomics.store(ctl, 2, n);
    Atomics.store(ctl, 4, 0);
    Atomics.store(ctl, 0, ++this.seq);
    Atomics.store(ctl, 3, 0);
    Atomics.notify(ctl, 0);
    for (;;) {
      const s = Atomics.add(ctl, 3, BLOCK);
      if (s >= n) break;
      const e = Math.min(n, s + BLOCK);
      cells(this.lat, this.lng, res, s, e, this.lo, this.hi);
      Atomics.add(ctl, 4, e - s);
    }
    const deadline = Date.now() + 5_000;
    for (let done = Atomics.load(ctl, 4); done < n; done = Atomics.load(ctl, 4)) {
      Atomics.wait(ctl, 4, done, 50);
      if (Date.now() > deadline) {
        // A worker that stopped answering: redo everything here (same deterministic values) and go solo.
        cells(this.lat, this.lng, res, 0, n, this.lo, this.hi);
        this.close();
        return;
      }
    }
  }

  close(): void {
    Atomics.store(this.ctl, 0, -1);
    Atomics.notify(this.ctl, 0);
    for (const w of this.workers.splice(0)) void w.terminate();
  }
}

let configuredWorkers: number | null = null;

/**
 * The worker threads this process's pool starts with (the server's STUDIO_H3_WORKERS; 0 = compute on the JS thread
 * only; null = the default). Takes effect for a pool not yet started: call it before the first H3 function runs.
 */
export function setH3Workers(workers: number | null): void {
  configuredWorkers = workers;
}

/** Default: one worker per core beyond the first (the JS thread is the other one), at most 8. */
const defaultWorkers = () => configuredWorkers ?? Math.max(0, Math.min(8, availableParallelism() - 1));

let pool: H3Pool | undefined;
/** One pool per process, created on first use; its workers do not keep the process alive. */
export const h3Pool = () => (pool ??= new H3Pool());
