import { Worker } from 'node:worker_threads';

/**
 * An SQLite database file written by node:sqlite on a worker thread, so that the thread making the rows (reading
 * DuckDB, building geometry blobs) and SQLite's own work (binding, B-tree inserts: about as long again for 1M points)
 * run on two cores at once. Statements are queued and answered in order; `drain` waits until at most a few are
 * still queued, which bounds what is held in memory (a few DuckDB chunks' worth). A failed statement fails every
 * call after it, and `close` throws it.
 *
 * Rows are sent a batch at a time as columns (`RowColumn`): numbers and blobs as typed arrays moved to the worker
 * without a copy, other values as an array. The worker inserts them many rows a statement, as BatchedInsert does.
 */

/** One column of a batch of rows. */
export type RowColumn =
  /** Doubles (with `integer`: whole numbers, stored as integers); row r is null where `nulls[r]` is 1. */
  | { f64: Float64Array; nulls?: Uint8Array; integer?: boolean }
  /** Blobs laid end to end in `bytes`; row r is `lengths[r]` bytes long, null where that is -1. */
  | { bytes: Uint8Array; lengths: Int32Array }
  /** Values as node:sqlite binds them (null, number, bigint, text, bytes); booleans become the integers 1 and 0. */
  | { values: ArrayLike<unknown> };

// The worker, as source evaluated in a worker thread (plain CommonJS: the server runs as one esbuild bundle, where a
// worker file beside the sources would not exist). `__name`: see pipeline/src/h3/pool.ts.
const WORKER_SRC = `
var __name = (fn) => fn;
const { workerData, parentPort } = require('node:worker_threads');
const emit = process.emitWarning;
process.emitWarning = (w, ...rest) => { if (!/SQLite/i.test(String(w && w.message || w))) emit.call(process, w, ...rest); };
const { DatabaseSync } = require('node:sqlite');
process.emitWarning = emit;
const db = new DatabaseSync(workerData.file);
const statements = new Map();
const prepared = (sql) => { let s = statements.get(sql); if (!s) statements.set(sql, (s = db.prepare(sql))); return s; };
// Rows waiting for a full statement (node:sqlite's cost is per call, so many rows go in one), laid out row by row.
let pending = [], pendingRows = 0, head = null, row = null, width = 0, perCall = 0;
const insertSql = (rows) => head + ' VALUES ' + new Array(rows).fill(row).join(', ');
const flush = () => {
  if (pendingRows) prepared(insertSql(pendingRows)).run(...pending.slice(0, pendingRows * width));
  pendingRows = 0;
};
// A column as something indexed by row that holds what node:sqlite binds: filled a column at a time, each loop
// reading one kind of array (a loop over the row's mixed columns called a reader per value and ran slower).
const bindable = (c, rows) => {
  if (c.f64) {
    if (!c.nulls) return c.f64;
    const out = Array.from(c.f64);
    for (let r = 0; r < rows; r++) if (c.nulls[r]) out[r] = null;
    return out;
  }
  if (c.bytes) {
    const out = new Array(rows);
    for (let r = 0, at = 0; r < rows; r++) {
      const n = c.lengths[r];
      out[r] = n < 0 ? null : c.bytes.subarray(at, (at += n));
    }
    return out;
  }
  const out = c.values;
  for (let r = 0; r < rows; r++) {
    const v = out[r];
    if (v === true) out[r] = 1n;
    else if (v === false) out[r] = 0n;
    else if (v === undefined) out[r] = null;
  }
  return out;
};
const ops = {
  exec: (m) => { flush(); db.exec(m.sql); },
  get: (m) => { flush(); return prepared(m.sql).get(...m.params); },
  rows: (m) => {
    const template = '(' + m.columns.map((c) => (c.integer ? 'CAST(? AS INTEGER)' : '?')).join(', ') + ')';
    if (m.head !== head || template !== row) {
      flush();
      head = m.head;
      row = template;
      width = m.columns.length;
      perCall = Math.max(1, Math.min(100, Math.floor(30000 / width)));
      pending = new Array(perCall * width).fill(null);
    }
    const columns = m.columns.map((c) => bindable(c, m.rows));
    const full = prepared(insertSql(perCall));
    for (let r = 0; r < m.rows; ) {
      const take = Math.min(m.rows - r, perCall - pendingRows);
      for (let i = 0; i < width; i++) {
        const column = columns[i];
        for (let k = 0, at = pendingRows * width + i; k < take; k++, at += width) pending[at] = column[r + k];
      }
      pendingRows += take;
      r += take;
      if (pendingRows === perCall) {
        full.run(...pending);
        pendingRows = 0;
      }
    }
  },
  close: () => { flush(); db.close(); },
};
let failed = false;
parentPort.on('message', (m) => {
  if (failed) return parentPort.postMessage({ error: 'an earlier statement failed' });
  try {
    parentPort.postMessage({ result: ops[m.op](m) ?? null });
  } catch (e) {
    failed = true;
    try { db.close(); } catch {}
    parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
  }
});`;

interface Reply {
  result?: unknown;
  error?: string;
}

export class SqliteWorker {
  private readonly worker: Worker;
  /** The callers waiting for an answer, in the order their statements were sent (null: nobody waits). */
  private readonly waiting: (((r: Reply) => void) | null)[] = [];
  private drained: (() => void) | null = null;
  private failure: Error | null = null;

  /** Opens (creates) the database file `file` on a new worker thread. */
  constructor(file: string) {
    this.worker = new Worker(WORKER_SRC, { eval: true, execArgv: [], workerData: { file } });
    this.worker.on('message', (reply: Reply) => {
      if (reply.error) this.failure ??= new Error(`SQLite: ${reply.error}`);
      this.waiting.shift()?.(reply);
      if (this.drained) this.drained();
    });
    this.worker.on('error', (e) => {
      this.failure ??= e;
      for (const w of this.waiting.splice(0)) w?.({ error: e.message });
      this.drained?.();
    });
  }

  /** Statements sent and not yet answered. */
  get queued(): number {
    return this.waiting.length;
  }

  private send(message: object, transfer: ArrayBuffer[] = [], answer: ((r: Reply) => void) | null = null): void {
    if (this.failure) throw this.failure;
    this.waiting.push(answer);
    this.worker.postMessage(message, transfer);
  }

  /** Runs `sql` (statements without parameters) after what was sent before. */
  exec(sql: string): void {
    this.send({ op: 'exec', sql });
  }

  /** The first row `sql` answers. */
  get<T>(sql: string, ...params: unknown[]): Promise<T> {
    return new Promise((resolve, reject) => this.send({ op: 'get', sql, params }, [], (r) => (r.error ? reject(this.failure) : resolve(r.result as T))));
  }

  /**
   * Inserts `rows` rows given as `columns` with `head` (`INSERT INTO "t" (a, b)`, one column each); their typed
   * arrays are moved to the worker (unusable here afterwards).
   */
  insert(head: string, rows: number, columns: RowColumn[]): void {
    const transfer: ArrayBuffer[] = [];
    for (const c of columns) {
      if ('f64' in c) transfer.push(c.f64.buffer as ArrayBuffer, ...(c.nulls ? [c.nulls.buffer as ArrayBuffer] : []));
      else if ('bytes' in c) transfer.push(c.bytes.buffer as ArrayBuffer, c.lengths.buffer as ArrayBuffer);
    }
    this.send({ op: 'rows', head, rows, columns }, transfer);
  }

  /** Waits until at most `most` statements are queued (throws what failed). */
  async drain(most: number): Promise<void> {
    while (this.waiting.length > most && !this.failure) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = null;
    if (this.failure) throw this.failure;
  }

  /** Writes what is queued, closes the database and ends the thread (throws what failed). */
  async close(): Promise<void> {
    try {
      if (!this.failure) this.send({ op: 'close' });
      await this.drain(0);
    } finally {
      await this.worker.terminate();
    }
  }

  /** Ends the thread at once, whatever is queued (after a failure or an abort). */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}
