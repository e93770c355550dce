import { createHash } from 'node:crypto';
import { type CacheBacking, MemoryLruBacking } from './backing';

/** Which datasets answered: an organization's bound config, or the built-in default sample. */
export type DatasetBinding = { places: string; devices: string; visits: string } | 'default';

export interface QueryCacheKey {
  organization: string;
  groupId: string;
  datasets: DatasetBinding;
  templateId: string;
  parameters: unknown;
}

export interface CacheOptions {
  /** The request's Cache-Control header; `no-cache` (or `no-store`) skips the lookup and recomputes. */
  cacheControl?: string | null;
}

/** JSON with object keys sorted, so that equal parameters give equal keys whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object).sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const bypass = (cc: string | null | undefined) => !!cc && /(^|,)\s*no-(cache|store)\s*(,|$)/i.test(cc);

/**
 * Template results keyed by (organization, datasets, templateId, parameters). Invalidation bumps a
 * generation counter that is part of every key, so stale entries become unreachable at once on every
 * node (and expire from the backing later). Identical concurrent lookups share one computation.
 */
export class ResultCache {
  private readonly backing: CacheBacking;
  private readonly ttlMs: number;
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(opts: { backing?: CacheBacking; ttlMs?: number } = {}) {
    this.backing = opts.backing ?? new MemoryLruBacking();
    this.ttlMs = opts.ttlMs ?? 60 * 60 * 1000;
  }

  private async keyOf(kind: string, gens: string[], body: unknown): Promise<string> {
    const values = await this.backing.generations(gens);
    const hash = createHash('sha256').update(canonicalJson(body)).digest('base64url');
    return `${kind}:${hash}${gens.map((g, i) => `|${g}=${values[i]}`).join('')}`;
  }

  private async through<T>(key: string, compute: () => Promise<T>, opts: CacheOptions): Promise<T> {
    const fresh = bypass(opts.cacheControl);
    if (!fresh) {
      const running = this.inFlight.get(key);
      if (running) return running as Promise<T>;
    }
    const work = (async () => {
      if (!fresh) {
        const hit = await this.backing.get(key);
        if (hit !== undefined) return hit as T;
      }
      const value = await compute();
      await this.backing.set(key, value, this.ttlMs);
      return value;
    })();
    if (!fresh) {
      this.inFlight.set(key, work);
      work.then(() => this.inFlight.delete(key), () => this.inFlight.delete(key));
    }
    return work;
  }

  /** A template result: cached, or computed once however many identical requests wait for it. */
  async run<T>(key: QueryCacheKey, compute: () => Promise<T>, opts: CacheOptions = {}): Promise<T> {
    const gens = [`org:${key.groupId}:${key.organization}`, ...(key.datasets === 'default' ? [`default:${key.groupId}`] : [])];
    const body = [key.organization, key.groupId, key.datasets, key.templateId, key.parameters];
    return this.through(await this.keyOf('q', gens, body), compute, opts);
  }

  /** Labels (availableValues / labelValueMap) of a dataset binding. */
  async labels<T>(datasets: DatasetBinding, compute: () => Promise<T>, opts: CacheOptions = {}): Promise<T> {
    return this.through(await this.keyOf('l', ['labels'], datasets), compute, opts);
  }

  /**
   * A dashboard widget's result, keyed by the versions of the datasets it read (their storage keys, which
   * change whenever the data does, so nothing needs invalidating), the widget's pipeline and the parameter
   * values. Shared by every API node through the same backing as the analytic sets.
   */
  async widget<T>(key: { datasets: string[]; query: unknown }, compute: () => Promise<T>, opts: CacheOptions = {}): Promise<T> {
    return this.through(await this.keyOf('w', [], key), compute, opts);
  }

  /** After an organization's analytic-set config for the group changes. */
  async invalidateGroupOrg(groupId: string, orgId: string): Promise<void> {
    await this.backing.bump(`org:${groupId}:${orgId}`);
  }
  /** After the group's built-in default datasets change (every organization without its own config). */
  async invalidateGroupDefault(groupId: string): Promise<void> {
    await this.backing.bump(`default:${groupId}`);
  }
  async invalidateLabels(): Promise<void> {
    await this.backing.bump('labels');
  }
  async close(): Promise<void> {
    await this.backing.close?.();
  }
}
