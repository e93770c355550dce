import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { H3_BUNDLE, RAW_H3_FACTORY, cellsFn } from './raw';

/** DuckDB hands scalar functions at most this many rows per call (STANDARD_VECTOR_SIZE). */
const CAP = 2048;
/** Control words: 0 = job sequence (-1 stops), 1 = res, then per worker [from, to, doneSeq] from 2. */
const CTL_WORDS = 64;

const WORKER_SRC = `
const { workerData } = require('node:worker_threads');
${RAW_H3_FACTORY}
const raw = makeRawH3(require('node:fs').readFileSync(workerData.bundle, 'utf8'), require);
const { sab, cap, index } = workerData;
const ctl = new Int32Array(sab, 0, ${CTL_WORDS});
const lat = new Float64Array(sab, ${CTL_WORDS * 4}, cap), lng = new Float64Array(sab, ${CTL_WORDS * 4} + cap * 8, cap);
const lo = new Uint32Array(sab, ${CTL_WORDS * 4} + cap * 16, cap), hi = new Uint32Array(sab, ${CTL_WORDS * 4} + cap * 20, cap);
let seen = 0;
for (;;) {
  Atomics.wait(ctl, 0, seen);
  const seq = Atomics.load(ctl, 0);
  if (seq < 0) break;
  seen = seq;
  const w = 2 + index * 3;
  raw.cells(lat, lng, ctl[1], ctl[w], ctl[w + 1], lo, hi);
  Atomics.store(ctl, w + 2, seq);
  Atomics.notify(ctl, w + 2);
}`;

/**
 * Computes H3 cells for one DuckDB vector synchronously, split between the JS thread and worker
 * threads over shared memory. A scalar-function callback must return its output before DuckDB moves
 * on, so the JS thread computes its share and then blocks (Atomics.wait) until the workers finish.
 */
export class H3Pool {
  readonly lat: Float64Array;
  readonly lng: Float64Array;
  readonly lo: Uint32Array;
  readonly hi: Uint32Array;
  private readonly ctl: Int32Array;
  private readonly workers: Worker[] = [];
  private seq = 0;
  /** Share of each vector the JS thread computes itself; the rest is split among the workers. */
  private mainShare: number;

  constructor(workerCount = defaultWorkers()) {
    const sab = new SharedArrayBuffer(CTL_WORDS * 4 + CAP * 24);
    this.ctl = new Int32Array(sab, 0, CTL_WORDS);
    this.lat = new Float64Array(sab, CTL_WORDS * 4, CAP);
    this.lng = new Float64Array(sab, CTL_WORDS * 4 + CAP * 8, CAP);
    this.lo = new Uint32Array(sab, CTL_WORDS * 4 + CAP * 16, CAP);
    this.hi = new Uint32Array(sab, CTL_WORDS * 4 + CAP * 20, CAP);
    for (let index = 0; index < workerCount; index++) {
      const w = new Worker(WORKER_SRC, { eval: true, workerData: { sab, cap: CAP, index, bundle: H3_BUNDLE } });
      w.unref();
      this.workers.push(w);
    }
    // The JS thread also converts every cell to a string and writes the output vector.
    this.mainShare = 1 / (workerCount + 1) * 0.6;
  }

  static readonly capacity = CAP;

  /** Fills lo/hi for points [0, n) already written to lat/lng. */
  compute(n: number, res: number): void {
    const W = this.workers.length;
    if (W === 0 || n < 64) {
      cellsFn()(this.lat, this.lng, res, 0, n, this.lo, this.hi);
      return;
    }
    const mainCount = Math.floor(n * this.mainShare);
    const per = Math.ceil((n - mainCount) / Math.max(1, W));
    const seq = ++this.seq;
    const ctl = this.ctl;
    ctl[1] = res;
    for (let i = 0; i < W; i++) {
      ctl[2 + i * 3] = Math.min(n, mainCount + i * per);
      ctl[3 + i * 3] = Math.min(n, mainCount + (i + 1) * per);
    }
    Atomics.store(ctl, 0, seq);
    Atomics.notify(ctl, 0);
    cellsFn()(this.lat, this.lng, res, 0, mainCount, this.lo, this.hi);
    for (let i = 0; i < W; i++) {
      const slot = 4 + i * 3;
      const deadline = Date.now() + 10_000;
      while (Atomics.load(ctl, slot) !== seq) {
        Atomics.wait(ctl, slot, Atomics.load(ctl, slot), 100);
        if (Date.now() > deadline) {
          // A worker that stopped answering: do its share here and stop using workers.
          cellsFn()(this.lat, this.lng, res, ctl[2 + i * 3]!, ctl[3 + i * 3]!, this.lo, this.hi);
          this.workers.splice(0).forEach((w) => void w.terminate());
          this.mainShare = 1;
          break;
        }
      }
    }
  }

  close(): void {
    Atomics.store(this.ctl, 0, -1);
    Atomics.notify(this.ctl, 0);
    for (const w of this.workers) void w.terminate();
  }
}

/**
 * Workers pay off only with spare cores: the JS thread and DuckDB's own threads already use two, and a
 * worker starved of CPU stalls the JS thread blocked in Atomics.wait (measured: slower on 2 cores).
 */
const defaultWorkers = () => Math.max(0, Math.min(8, availableParallelism() - 2));

let pool: H3Pool | undefined;
/** One pool per process, created on first use; its workers do not keep the process alive. */
export const h3Pool = () =>
  (pool ??= new H3Pool(process.env.STUDIO_H3_WORKERS === undefined ? undefined : Number(process.env.STUDIO_H3_WORKERS)));
