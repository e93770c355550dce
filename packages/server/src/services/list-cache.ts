import { sql } from 'kysely';
import type { Db } from '../store/db';

interface Entry {
  version: string;
  body: string;
  /** Epoch ms after which the body may be wrong without any write (a lock in it runs out). */
  expiresAt: number;
}

export interface ListCacheOptions {
  /** Most answers kept per node; 0 turns the cache off (STUDIO_LIST_CACHE_ENTRIES). */
  maxEntries: number;
  /** Longest an answer is reused even when nothing was written (a bound on time-derived fields). */
  maxAgeMs: number;
}

/**
 * List answers kept per API node, valid for one catalog version (store/migrations/006-catalog-version):
 * each list call reads the version (one indexed row, the same round trip as a health check) and answers
 * from memory when it has the serialized answer of that call, for that caller, at that version. Any
 * committed write anywhere in the catalog, from any node, moves the version, so a node never answers a
 * list older than the last write it could see — no pub/sub, no invalidation messages to lose.
 *
 * Keys hold the caller's user id and the request's path and query; what else an answer depends on
 * (the caller's organizations, admin flag, shares, tags) lives in versioned tables.
 */
export class ListCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Db,
    private readonly opts: ListCacheOptions,
  ) {}

  get enabled(): boolean {
    return this.opts.maxEntries > 0;
  }

  /** The catalog version as this transaction-free read sees it. */
  async version(): Promise<string> {
    const { rows } = await sql<{ version: string }>`select version::text as version from catalog_version`.execute(this.db);
    return rows[0]!.version;
  }

  /**
   * The answer for `key`: from memory when it was computed at the current version, otherwise from
   * `compute` (then kept). Answers are kept serialized, so no caller can change a cached answer.
   */
  async answer(key: string, compute: () => Promise<unknown>): Promise<string> {
    if (!this.enabled) return JSON.stringify(await compute());
    // The version is read before the data: an answer kept under version V is at least as new as V.
    const version = await this.version();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && hit.expiresAt > Date.now()) {
      // Re-inserting keeps the Map in least-recently-used order for eviction.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.body;
    }
    const value = await compute();
    const body = JSON.stringify(value);
    this.entries.delete(key);
    this.entries.set(key, { version, body, expiresAt: Math.min(Date.now() + this.opts.maxAgeMs, earliestLockExpiry(value)) });
    while (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return body;
  }

  /** How many answers this node holds (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}

/** A list item's live lock turns into no lock when it expires, with no write: the answer lives until then. */
function earliestLockExpiry(value: unknown): number {
  const items = (value as { items?: unknown })?.items;
  let earliest = Infinity;
  if (!Array.isArray(items)) return earliest;
  for (const item of items) {
    const expiresAt = (item as { lock?: { expiresAt?: string } | null })?.lock?.expiresAt;
    if (expiresAt) earliest = Math.min(earliest, Date.parse(expiresAt));
  }
  return earliest;
}
