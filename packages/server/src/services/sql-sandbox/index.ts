import type { DuckDBValue } from '@duckdb/node-api';
import { StudioError, isStudioError } from '@studio/schema';
import { UserWorkPool, type UserWorkPoolOptions } from '../user-work/supervisor';
import { paramsToWire } from '../user-work/protocol';
import { UserGate, type UserGateLimits } from '../user-work/user-gate';
import { bytesOf } from '../user-work/sizes';
import type { SandboxedQuery, TableResolver } from './rewrite';
import { engineAdvice } from './messages';

export type { SandboxedQuery, TableResolver } from './rewrite';

export interface SqlSandboxOptions {
  /** A folder of the data directory for the worker processes' instances, spill and output. */
  dir: string;
  /** The data directory, hidden from messages. */
  dataDir: string;
  /** DuckDB memory of all sandbox instances of all worker processes together (e.g. 512MB). */
  memoryLimit: string;
  /** Locked instances each worker process keeps open (default 4). */
  maxInstances?: number;
  /** Worker processes (STUDIO_SQL_WORKERS, default 2). */
  workers?: number;
  /** A query is cancelled after this long (STUDIO_SQL_TIMEOUT_MS, default 60 s). */
  timeoutMs?: number;
  /** Resident memory a worker process may reach (STUDIO_SQL_WORKER_MEMORY, default 1 GB). */
  workerMemoryBytes?: number;
  /** The most one query's instance may spill (STUDIO_SQL_SPILL, default 2GB). */
  spillLimit?: string;
  /** Threads each worker process gives the H3 functions (STUDIO_H3_WORKERS; null: the default). */
  h3Workers?: number | null;
  /** One user's queries at once and waiting (default 2 and 10). */
  perUser?: UserGateLimits;
  log?: UserWorkPoolOptions['log'];
}

/** Who runs a query and how it may be stopped. */
export interface RunAs {
  /** The user whose turn it takes (UserGate); unset: no per-user limit (the studio's own work, tests). */
  userId?: string;
  signal?: AbortSignal;
}

const GB = 2 ** 30;

/**
 * The one way user-written SQL runs on the studio's data (data queries, queries and workbench SQL that
 * make datasets, and the dashboards', workbooks' and connections' DuckDB work to come):
 * 1. `compile` rewrites the query's AST so that table names become the caller's dataset files (rewrite.ts);
 * 2. `copyToParquet`/`readRows` run it on a DuckDB instance that can read only those files (locked-instances.ts).
 * Both happen in worker processes (../user-work), never in the API's own: a query that crashes DuckDB, runs past
 * STUDIO_SQL_TIMEOUT_MS or blows up its memory ends that request (and at worst its process), not the studio.
 * Errors never show a storage path: the files are named back by the table names the user wrote.
 *
 * Pipeline expressions do not come here: they are parsed by the pipeline's own grammar with an allow-list
 * of functions and compiled to SQL (packages/pipeline/src/expr), so no user text reaches DuckDB.
 */
/** Rewritten queries kept per node. */
const COMPILED_QUERIES = 500;
const filesKey = (files: Map<string, string>) => JSON.stringify([...files]);

export class SqlSandbox {
  private readonly pool: UserWorkPool;
  private readonly gate: UserGate;
  readonly timeoutMs: number;

  constructor(private readonly opts: SqlSandboxOptions) {
    const workers = Math.max(1, opts.workers ?? 2);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.pool = new UserWorkPool({
      name: 'sql',
      size: workers,
      dir: opts.dir,
      memoryLimit: splitMemory(opts.memoryLimit, workers),
      maxInstances: opts.maxInstances ?? 4,
      spillLimit: opts.spillLimit ?? '2GB',
      memoryCapBytes: opts.workerMemoryBytes ?? GB,
      h3Workers: opts.h3Workers ?? null,
      log: opts.log,
    });
    this.gate = new UserGate(opts.perUser ?? { running: 2, queued: 10 });
  }

  /** The worker processes running now (tests, metrics). */
  get workerProcesses(): number[] {
    return this.pool.processes;
  }

  /** Starts a worker process ahead of the first query. */
  warm(): Promise<void> {
    return this.pool.warm();
  }

  /**
   * The safe SQL of `query` and the files it reads; 422 for anything refused. The tables a query names do
   * not depend on who asks, so a query seen before only has its names resolved again (with the caller's
   * access, in the same order): the parse and rewrite, two DuckDB round trips (~3-4 ms), are skipped
   * when the names lead to the same files.
   */
  async compile(query: string, resolve: TableResolver, as: RunAs = {}): Promise<SandboxedQuery> {
    try {
      const known = this.compiled.get(query);
      if (known) {
        const files = new Map<string, string>();
        for (const name of known.names) files.set(name, await resolve(name));
        const sql = known.sqlByFiles.get(filesKey(files));
        if (sql !== undefined) {
          this.compiled.delete(query);
          this.compiled.set(query, known);
          return { sql, files };
        }
      }
      const answer = await this.gate.run(as.userId, () => this.pool.run({ op: 'compile', query }, { resolve, signal: as.signal, timeoutMs: this.timeoutMs, timeoutMessage: this.timeoutMessage }), as.signal);
      const fresh = { sql: answer.sql, files: new Map(answer.files) };
      this.remember(query, fresh);
      return fresh;
    } catch (e) {
      throw this.userError(e, new Map());
    }
  }

  /** Query text → the table names it reads and its rewritten SQL per set of files (least recently used out). */
  private readonly compiled = new Map<string, { names: string[]; sqlByFiles: Map<string, string> }>();

  private remember(query: string, q: SandboxedQuery): void {
    const entry = this.compiled.get(query) ?? { names: [...q.files.keys()], sqlByFiles: new Map() };
    if (entry.sqlByFiles.size >= 8) entry.sqlByFiles.clear();
    entry.sqlByFiles.set(filesKey(q.files), q.sql);
    this.compiled.delete(query);
    this.compiled.set(query, entry);
    if (this.compiled.size > COMPILED_QUERIES) this.compiled.delete(this.compiled.keys().next().value!);
  }

  /** Names of the `$name` parameters the query binds, in order of first use. */
  async parameterNames(q: SandboxedQuery, as: RunAs = {}): Promise<string[]> {
    return this.run(q, as, () => this.pool.run({ op: 'parameterNames', sql: q.sql, files: [...q.files.values()] }, this.runOptions(as)), 'Could not parse query');
  }

  /** Runs the query into a Parquet file at `file`; answers its row count. `as.signal` interrupts it. */
  async copyToParquet(q: SandboxedQuery, params: Record<string, DuckDBValue>, file: string, as: RunAs = {}): Promise<number> {
    return this.run(q, as, () => this.pool.run({ op: 'copyToParquet', sql: q.sql, files: [...q.files.values()], params: paramsToWire(params), file }, this.runOptions(as)), 'The query failed');
  }

  /** Runs the query and answers its rows as arrays (small results: previews, tests, the bench). */
  async readRows(q: SandboxedQuery, params: Record<string, DuckDBValue> = {}, as: RunAs = {}): Promise<unknown[][]> {
    return this.run(q, as, () => this.pool.run({ op: 'readRows', sql: q.sql, files: [...q.files.values()], params: paramsToWire(params) }, this.runOptions(as)), 'The query failed');
  }

  private get timeoutMessage(): string {
    return `The query ran longer than ${Math.round(this.timeoutMs / 1000)} s and was stopped (STUDIO_SQL_TIMEOUT_MS); aggregate, filter or add a LIMIT`;
  }

  private runOptions(as: RunAs) {
    return { signal: as.signal, timeoutMs: this.timeoutMs, timeoutMessage: this.timeoutMessage };
  }

  private async run<T>(q: SandboxedQuery, as: RunAs, work: () => Promise<T>, failure: string): Promise<T> {
    try {
      return await this.gate.run(as.userId, work, as.signal);
    } catch (e) {
      if (isStudioError(e)) throw e.status >= 500 ? e : new StudioError(e.status, this.scrub(e.message, q.files), e.details ? this.scrub(e.details, q.files) : undefined);
      throw new StudioError(422, `${failure}: ${this.scrub((e as Error)?.message ?? String(e), q.files)}`);
    }
  }

  private userError(e: unknown, files: Map<string, string>): unknown {
    if (isStudioError(e)) return new StudioError(e.status, this.scrub(e.message, files), e.details ? this.scrub(e.details, files) : undefined);
    return new StudioError(422, `Could not parse query: ${this.scrub((e as Error)?.message ?? String(e), files)}`);
  }

  /** A DuckDB message without storage paths: files are named by the table the user wrote, other paths hidden. */
  scrub(message: string, files: Map<string, string>): string {
    // DuckDB quotes the rewritten statement after "LINE n:", which shows read_parquet of a storage path.
    let out = message.replace(/\n+LINE \d+:[\s\S]*$/, '');
    for (const [name, file] of files) out = out.split(file).join(name);
    out = out.split(this.opts.dataDir).join('<data>');
    // engineAdvice: DuckDB's "INSTALL excel; LOAD excel;" becomes what the studio offers instead (messages.ts).
    return engineAdvice(out.replace(/(?:[A-Za-z]:)?(?:\/[^\s/'"`,;)]+){2,}\/?/g, '<path>').replace(/<data>[^\s'"`,;)]*/g, '<path>'));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** "512MB" split between `n` worker processes, as DuckDB is told (at least 64MB each). */
function splitMemory(size: string, n: number): string {
  return `${Math.max(64, Math.floor(bytesOf(size) / n / 2 ** 20))}MB`;
}
