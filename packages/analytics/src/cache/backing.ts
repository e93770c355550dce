/** Where cached results live. Values are rows (plain JSON data); keys are opaque strings. */
export interface CacheBacking {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Current generation of each counter (0 when never bumped). */
  generations(names: string[]): Promise<number[]>;
  bump(name: string): Promise<void>;
  close?(): Promise<void>;
}

/** In-process LRU with a time to live; the default backing for a single node. */
export class MemoryLruBacking implements CacheBacking {
  private entries = new Map<string, { value: unknown; expires: number }>();
  private gens = new Map<string, number>();
  constructor(private readonly maxEntries = 500) {}

  async get(key: string) {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.expires < Date.now()) return undefined;
    this.entries.set(key, e); // most recently used last
    return e.value;
  }
  async set(key: string, value: unknown, ttlMs: number) {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
  async generations(names: string[]) {
    return names.map((n) => this.gens.get(n) ?? 0);
  }
  async bump(name: string) {
    this.gens.set(name, (this.gens.get(name) ?? 0) + 1);
    // Entries of older generations can never be read again; drop them now rather than wait for the LRU.
    for (const k of [...this.entries.keys()]) if (k.includes(`|${name}=`)) this.entries.delete(k);
  }
  get size() {
    return this.entries.size;
  }
}
