import { createHash } from 'node:crypto';
import { SharedLoads } from '@studio/schema';

/** The version of the bytes stored under `storageKey` (a new build or new data is a new key): in tile URLs and ETags. */
export const versionOf = (storageKey: string): string => createHash('sha256').update(storageKey).digest('base64url').slice(0, 16);

/**
 * Hot tiles in memory, per node: the bytes a tile answer sent, keyed by the tileset's version and the
 * tile (and its variant: fields, format). A version names bytes that never change (a rebuilt tileset or
 * new data is a new storage key, so a new version), so entries need no invalidation: old versions are
 * simply not asked for again and fall out as the least recently used. Bounded by bytes
 * (STUDIO_TILE_CACHE_MB).
 */
export class TileCache {
  private readonly entries = new Map<string, Buffer>();
  /** Loads under way, by key: concurrent first asks of one tile wait for the same one. */
  private readonly loads = new SharedLoads<Buffer>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (!hit) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last: the Map's order is the eviction order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  /**
   * The entry for `key`, loaded once when absent and kept: the first asks of a tile that arrive together (a
   * map opening, many viewers of one published map) share one read of the archive instead of each running
   * its own. A load that fails is not kept, and the next ask loads again.
   */
  getOrLoad(key: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.get(key);
    if (hit) return Promise.resolve(hit);
    return this.loads.run(key, async () => {
      const value = await load();
      this.set(key, value);
      return value;
    });
  }

  /** Keeps `value` unless it alone would take more than an eighth of the cache (one huge tile must not empty it). */
  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldest, bytes] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= bytes.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
