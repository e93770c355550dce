import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { bestEffort } from '@studio/schema';
import { checkKey } from '../store';

export interface ReadThroughCacheOptions {
  /** The folder of cached objects, one file per storage key (wiped of half-written files at open). */
  dir: string;
  /** Bytes kept on disk; past them the least recently used objects are removed. Default 2 GiB. */
  maxBytes?: number;
  /**
   * An object handed out less than this long ago stays even past the budget (ms): its path may be on its way
   * to a DuckDB instance that has not opened it yet. Default 10 minutes.
   */
  graceMs?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

interface Entry {
  size: number;
  usedAt: number;
}

const TMP = '.incoming';

/**
 * A bounded folder of objects fetched from a remote store, keyed by their storage key. Storage keys are
 * immutable (a new version of a dataset gets a new key), so a cached file never goes stale; it only goes
 * away when the budget needs its room or its key is deleted. DuckDB reads local paths only (httpfs cannot
 * be installed here), and the SQL sandbox's allowed paths point into this folder.
 */
export class ReadThroughCache {
  /** In least-recently-used order: a use moves an entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private readonly fetching = new Map<string, Promise<string>>();
  private bytes = 0;
  readonly maxBytes: number;
  private readonly graceMs: number;
  private readonly now: () => number;

  private constructor(readonly dir: string, opts: ReadThroughCacheOptions) {
    this.maxBytes = opts.maxBytes ?? 2 * 1024 ** 3;
    this.graceMs = opts.graceMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Opens the folder, keeping what an earlier run of this node cached (oldest first) and dropping half-written files. */
  static async open(opts: ReadThroughCacheOptions): Promise<ReadThroughCache> {
    const cache = new ReadThroughCache(opts.dir, opts);
    await rm(path.join(opts.dir, TMP), { recursive: true, force: true });
    await mkdir(path.join(opts.dir, TMP), { recursive: true });
    const found: { key: string; size: number; mtime: number }[] = [];
    for (const name of await readdir(opts.dir, { recursive: true })) {
      const key = name.split(path.sep).join('/');
      if (key === TMP || key.startsWith(`${TMP}/`)) continue;
      const s = await stat(path.join(opts.dir, name));
      if (s.isFile()) found.push({ key, size: s.size, mtime: s.mtimeMs });
    }
    // An earlier run's files count as used long ago: they are the first to go.
    for (const f of found.sort((a, b) => a.mtime - b.mtime)) cache.remember(f.key, f.size, 0);
    await cache.evict();
    return cache;
  }

  /** Bytes on disk now. */
  get size(): number {
    return this.bytes;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The local path of `key` when it is here (counting as a use), else null. */
  cached(key: string): string | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.remember(key, entry.size, this.now());
    return this.fileOf(key);
  }

  /**
   * The local path of `key`, fetched with `fetch(toFile)` when not here. Concurrent asks for one key share
   * one fetch; a failed fetch leaves nothing behind.
   */
  async path(key: string, fetch: (toFile: string) => Promise<void>): Promise<string> {
    const file = this.fileOf(key);
    if (this.cached(key)) return file;
    const running = this.fetching.get(key);
    if (running) return running;
    const fetched = (async () => {
      const tmp = path.join(this.dir, TMP, randomUUID());
      try {
        await fetch(tmp);
        await this.place(key, tmp);
        return file;
      } finally {
        await rm(tmp, { force: true });
      }
    })().finally(() => this.fetching.delete(key));
    this.fetching.set(key, fetched);
    return fetched;
  }

  /** Takes `fromFile` in as `key` (moved when it can be, copied otherwise): the node that stored an object reads it next. */
  async add(key: string, fromFile: string): Promise<void> {
    const tmp = path.join(this.dir, TMP, randomUUID());
    try {
      try {
        await rename(fromFile, tmp);
      } catch {
        await copyFile(fromFile, tmp); // another filesystem
      }
      await this.place(key, tmp);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** Forgets `prefix` itself and every key under `prefix/`, removing their files. */
  async forget(prefix: string): Promise<void> {
    for (const key of [...this.entries.keys()]) {
      if (key === prefix || key.startsWith(`${prefix}/`)) this.drop(key);
    }
    await rm(this.fileOf(prefix), { recursive: true, force: true });
  }

  private fileOf(key: string): string {
    return path.join(this.dir, checkKey(key));
  }

  private async place(key: string, tmp: string): Promise<void> {
    const file = this.fileOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const { size } = await stat(tmp);
    await rename(tmp, file);
    this.remember(key, size, this.now());
    await this.evict();
  }

  private remember(key: string, size: number, usedAt: number): void {
    this.drop(key);
    this.entries.set(key, { size, usedAt });
    this.bytes += size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
  }

  /** Removes the least recently used files until the budget holds, sparing those within their grace. */
  private async evict(): Promise<void> {
    if (this.bytes <= this.maxBytes) return;
    const spareAfter = this.now() - this.graceMs;
    for (const [key, entry] of [...this.entries]) {
      if (this.bytes <= this.maxBytes) break;
      if (entry.usedAt > spareAfter) continue;
      this.drop(key);
      // A reader that opened the file keeps reading it: unlinking leaves open handles alone.
      await bestEffort(rm(this.fileOf(key), { force: true }), `Removing the cached object ${key}`);
    }
  }
}
