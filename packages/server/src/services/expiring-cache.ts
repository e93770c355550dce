import { SharedLoads } from '@studio/schema';
/**
 * Values kept for a fixed time each, at most `limit` of them: the oldest written goes first when a new
 * one would pass the limit. The bearer-token cache and the reused tile access checks are both this, so a
 * change made on another node (a revoked share, a signed-out token) takes effect within `ttlMs` everywhere.
 * `now` is injectable so tests can step time instead of sleeping.
 */
export interface ExpiringCacheOptions {
  /** How long an entry answers, in ms; 0 or less keeps nothing. */
  ttlMs: number;
  /** Entries held at most. */
  limit: number;
  /** The clock (default Date.now). */
  now?: () => number;
}

export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  /** Loads under way, by key: callers that miss together share one (a burst of tiles after an entry ran out). */
  private readonly loads = new SharedLoads<V>();
  private readonly now: () => number;

  constructor(private readonly opts: ExpiringCacheOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.opts.ttlMs <= 0) return;
    // Written again, an entry becomes the newest: delete first so Map order stays write order.
    this.entries.delete(key);
    if (this.entries.size >= this.opts.limit) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: this.now() + this.opts.ttlMs });
  }

  /**
   * The entry, or `load`'s answer kept for next time. Concurrent misses of one key wait for the same load, so
   * a hundred tile requests arriving as a credential's entry runs out cost one catalog round trip, not a
   * hundred. A load that fails is not kept (each waiting caller gets its error); `keep` says which answers
   * are kept (e.g. grants, not refusals).
   */
  getOrLoad(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const held = this.get(key);
    if (held !== undefined) return Promise.resolve(held);
    return this.loads.run(key, async () => {
      const value = await load();
      if (keep(value)) this.set(key, value);
      return value;
    });
  }

  /** Drops every entry, or those whose value matches. */
  forget(matches?: (value: V) => boolean): void {
    if (!matches) return this.entries.clear();
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
