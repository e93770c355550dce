import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from '@studio/engine';
import { bytesOf } from '../user-work/sizes';

/**
 * DuckDB instances that can read only the files they were opened for. DuckDB's lockdown settings are
 * global to an instance and cannot change once locked (../shared/notes/measured-pitfalls.md), so user SQL
 * never runs on the engine's own instance: each set of allowed files gets an in-memory instance with
 * `allowed_paths` naming exactly those files, one private folder for its spill and its query output
 * (`allowed_directories`, which also allows writing there: nothing but the sandbox's own COPY writes),
 * external access, extension install and autoload off, and the configuration locked. A mistake in the
 * AST rewrite can then no longer reach a file: DuckDB itself refuses.
 *
 * Instances are pooled by file set (least recently used first out), each with an equal share of the
 * sandbox's memory, so the sum stays within STUDIO_DUCKDB_MEMORY whatever runs at once.
 */
export interface LockedInstancesOptions {
  /** A folder of the data directory; each instance gets a subfolder, removed when it closes. */
  dir: string;
  /** Total memory of all sandbox instances (a DuckDB size, e.g. 512MB), split evenly. */
  memoryLimit: string;
  /** Instances kept open at once (default 4). */
  maxInstances?: number;
  /** The most one instance may spill to disk (DuckDB's max_temp_directory_size, e.g. 2GB); unset: DuckDB's default. */
  spillLimit?: string;
  /** Registers scalar functions user SQL may call (the pipeline's H3 functions), before locking. */
  functions?: (connection: DuckDBConnection) => void | Promise<void>;
}

interface Locked {
  key: string;
  dir: string;
  instance: Promise<DuckDBInstance>;
  users: number;
  evicted: boolean;
  /** Connections kept between queries (opening one costs about a millisecond, a fifth of a small query's sandbox cost). */
  idle: DuckDBConnection[];
}

const IDLE_CONNECTIONS = 2;


export class LockedInstances {
  private readonly open = new Map<string, Locked>();
  private readonly max: number;
  private readonly perInstance: string;
  private closed = false;

  constructor(private readonly opts: LockedInstancesOptions) {
    this.max = Math.max(1, opts.maxInstances ?? 4);
    this.perInstance = `${Math.max(32, Math.floor(bytesOf(opts.memoryLimit) / this.max / 2 ** 20))}MB`;
  }

  /** Memory limit of each instance, as DuckDB is told. */
  get memoryPerInstance(): string {
    return this.perInstance;
  }

  /**
   * Runs `work` on a connection of an instance that reads only `files`, with `out`, a file name in the
   * instance's own folder that `work` may write (the sandbox's COPY target).
   */
  async with<T>(files: readonly string[], work: (c: DuckDBConnection, out: string) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('The SQL sandbox is closed');
    const key = [...new Set(files)].sort().join('\n');
    let entry = this.open.get(key);
    if (entry) {
      // Most recently used goes last.
      this.open.delete(key);
      this.open.set(key, entry);
    } else {
      entry = this.create(key, [...new Set(files)]);
      this.open.set(key, entry);
      this.evict();
    }
    entry.users++;
    const out = path.join(entry.dir, `out-${randomUUID()}.parquet`);
    let connection: DuckDBConnection | null = null;
    let healthy = false;
    try {
      connection = entry.idle.pop() ?? (await (await entry.instance).connect());
      const result = await work(connection, out);
      healthy = true;
      return result;
    } finally {
      // A connection whose work failed (or was interrupted) is not reused: it may hold an aborted transaction.
      if (connection && healthy && !entry.evicted && entry.idle.length < IDLE_CONNECTIONS) entry.idle.push(connection);
      else connection?.closeSync();
      await rm(out, { force: true });
      entry.users--;
      if (entry.evicted && entry.users === 0) await this.dispose(entry);
    }
  }

  private create(key: string, files: string[]): Locked {
    const dir = path.join(this.opts.dir, randomUUID());
    const instance = (async () => {
      await mkdir(path.join(dir, 'spill'), { recursive: true });
      const db = await DuckDBInstance.create(':memory:', { memory_limit: this.perInstance, temp_directory: path.join(dir, 'spill') });
      const c = await db.connect();
      try {
        await this.opts.functions?.(c);
        const list = (xs: string[]) => `[${xs.map(quoteLiteral).join(', ')}]`;
        if (files.length) await c.run(`SET allowed_paths = ${list(files)}`);
        await c.run(`SET allowed_directories = ${list([dir + path.sep])}`);
        // A query past its spill share fails with DuckDB's out-of-space error instead of filling the disk.
        if (this.opts.spillLimit) await c.run(`SET max_temp_directory_size = ${quoteLiteral(this.opts.spillLimit)}`);
        await c.run('SET enable_external_access = false');
        await c.run('SET autoinstall_known_extensions = false');
        await c.run('SET autoload_known_extensions = false');
        await c.run('SET lock_configuration = true');
      } finally {
        c.closeSync();
      }
      return db;
    })();
    // A failed start leaves nothing behind for the next caller of this key.
    instance.catch(() => {
      if (this.open.get(key)?.instance === instance) this.open.delete(key);
      void rm(dir, { recursive: true, force: true });
    });
    return { key, dir, instance, users: 0, evicted: false, idle: [] };
  }

  private evict(): void {
    for (const [key, entry] of this.open) {
      if (this.open.size <= this.max) break;
      this.open.delete(key);
      entry.evicted = true;
      if (entry.users === 0) void this.dispose(entry);
    }
  }

  private async dispose(entry: Locked): Promise<void> {
    for (const c of entry.idle.splice(0)) c.closeSync();
    try {
      (await entry.instance).closeSync();
    } catch {
      // It never opened: create() already cleaned up.
    }
    await rm(entry.dir, { recursive: true, force: true });
  }

  /** Number of open instances (for tests and the bench). */
  get size(): number {
    return this.open.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.open.values()];
    this.open.clear();
    await Promise.all(entries.map((e) => (e.users === 0 ? this.dispose(e) : ((e.evicted = true), undefined))));
  }
}
