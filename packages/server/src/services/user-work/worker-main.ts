/**
 * A user-work process: the one place user SQL and uploaded-file conversion run (supervisor.ts starts a few of
 * them beside the API). A native crash (DuckDB's stack on deeply nested JSON), a loop that never ends (a format
 * library on a crafted file) or a memory blow-up ends this process, never the API: the supervisor answers the
 * request it was running and starts another.
 *
 * It holds no catalog and no secrets: a query's table names are resolved by the API (a `resolve` message, with
 * the caller's access), and the only files it can read are the ones the locked instances are opened for.
 */
import { rename, copyFile, rm } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { convertUpload, quoteLiteral } from '@studio/engine';
import { registerH3Functions, setH3Workers } from '@studio/pipeline';
import { registerSpatialFunctions } from '@studio/spatial';
import { StudioError } from '@studio/schema';
import { LockedInstances } from '../sql-sandbox/locked-instances';
import { rewriteSql } from '../sql-sandbox/rewrite';
import { paramsFromWire, toWire, type FromWorker, type ToWorker, type WireParams, type WorkAnswers, type WorkRequest, type WorkerOptions } from './protocol';

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
setH3Workers(options.h3Workers ?? null);
const instances = new LockedInstances({
  dir: options.dir,
  memoryLimit: options.memoryLimit,
  maxInstances: options.maxInstances,
  spillLimit: options.spillLimit,
  functions: async (c) => { registerH3Functions(c); await registerSpatialFunctions(c); },
});

const send = (m: FromWorker) => process.send!(m);
/** Connections of running calls, to interrupt on `cancel`. */
const running = new Map<number, DuckDBConnection>();
const cancelled = new Set<number>();
/** Calls not yet answered (a cancel of one that ended is dropped). */
const active = new Set<number>();
/** Table names asked of the API, by request. */
const asked = new Map<number, { resolve: (path: string) => void; reject: (e: unknown) => void }>();
let nextAsk = 0;

function resolverFor(id: number) {
  return (name: string) =>
    new Promise<string>((resolve, reject) => {
      const rid = nextAsk++;
      asked.set(rid, { resolve, reject });
      send({ type: 'resolve', id, rid, name });
    });
}

const params = (p: WireParams) => (Object.keys(p).length ? paramsFromWire(p) : undefined);

/** Runs `work` on a locked instance for `files`, interruptible by the call's `cancel`. */
function onFiles<T>(id: number, files: string[], work: (c: DuckDBConnection, out: string) => Promise<T>): Promise<T> {
  return instances.with(files, async (c, out) => {
    running.set(id, c);
    try {
      if (cancelled.has(id)) throw new StudioError(499, 'The query was cancelled');
      return await work(c, out);
    } finally {
      running.delete(id);
    }
  });
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

async function perform(id: number, r: WorkRequest): Promise<WorkAnswers[WorkRequest['op']]> {
  switch (r.op) {
    case 'compile': {
      const q = await instances.with([], (c) => rewriteSql(c, r.query, resolverFor(id)));
      return { sql: q.sql, files: [...q.files] };
    }
    case 'parameterNames':
      return onFiles(id, r.files, async (c) => {
        const prepared = await c.prepare(r.sql);
        const names: string[] = [];
        for (let i = 1; i <= prepared.parameterCount; i++) names.push(prepared.parameterName(i));
        return [...new Set(names)];
      });
    case 'copyToParquet':
      return onFiles(id, r.files, async (c, out) => {
        const written = await c.runAndReadAll(`COPY (${r.sql}) TO ${quoteLiteral(out)} (FORMAT parquet)`, params(r.params));
        await moveFile(out, r.file);
        return Number(written.getRows()[0]?.[0] ?? 0);
      });
    case 'readRows':
      return onFiles(id, r.files, async (c) => (await c.runAndReadAll(r.sql, params(r.params))).getRows() as unknown[][]);
    case 'convert':
      return convertUpload(r.format, r.input, r.outBase, r.options);
  }
}

process.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'call':
      active.add(m.id);
      perform(m.id, m.request)
        .then(
          (value) => send({ type: 'done', id: m.id, value }),
          (e: unknown) => send({ type: 'failed', id: m.id, error: toWire(e) }),
        )
        .finally(() => {
          active.delete(m.id);
          cancelled.delete(m.id);
        });
      return;
    case 'cancel':
      if (!active.has(m.id)) return;
      cancelled.add(m.id);
      running.get(m.id)?.interrupt();
      return;
    case 'resolved': {
      const waiting = asked.get(m.rid);
      asked.delete(m.rid);
      if (m.error) waiting?.reject(new StudioError(m.error.status ?? 422, m.error.message, m.error.details));
      else waiting?.resolve(m.path!);
    }
  }
});

// The API going away ends this process too: nothing here outlives the server that started it. A terminal's Ctrl-C
// reaches the whole process group: the API then gives requests in flight 8 s (stop.ts), so this process waits for
// the API to close it instead of dying under a running query.
process.on('disconnect', () => process.exit(0));
process.on('SIGINT', () => undefined);
send({ type: 'ready' });
