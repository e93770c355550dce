import { Redis, type RedisOptions } from 'ioredis';
import type { CacheBacking } from './backing';

/**
 * Redis backing for several server nodes: results as JSON with a TTL, generation counters with INCR,
 * so an invalidation on one node is seen by all of them at their next lookup.
 */
export class RedisBacking implements CacheBacking {
  readonly redis: Redis;
  constructor(private readonly prefix = 'studio:analytics:', options: RedisOptions = {}, url = 'redis://127.0.0.1:6379') {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, ...options });
  }
  async get(key: string) {
    const s = await this.redis.get(`${this.prefix}r:${key}`);
    return s === null ? undefined : (JSON.parse(s) as unknown);
  }
  async set(key: string, value: unknown, ttlMs: number) {
    await this.redis.set(`${this.prefix}r:${key}`, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
  }
  async generations(names: string[]) {
    if (names.length === 0) return [];
    const vals = await this.redis.mget(...names.map((n) => `${this.prefix}g:${n}`));
    return vals.map((v) => (v === null ? 0 : Number(v)));
  }
  async bump(name: string) {
    await this.redis.incr(`${this.prefix}g:${name}`);
  }
  async close() {
    await this.redis.quit();
  }
}
