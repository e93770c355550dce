import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryLruBacking, RedisBacking, ResultCache, canonicalJson, type CacheBacking, type QueryCacheKey } from '../src';

const redisBackings: RedisBacking[] = [];
const backings: [string, () => CacheBacking][] = [
  ['memory LRU', () => new MemoryLruBacking()],
  ['redis', () => { const b = new RedisBacking(`test:analytics:${randomUUID()}:`); redisBackings.push(b); return b; }],
];
afterAll(async () => {
  for (const b of redisBackings) {
    const keys = await b.redis.keys(`${(b as unknown as { prefix: string }).prefix}*`);
    if (keys.length) await b.redis.del(...keys);
    await b.close();
  }
});

const key = (over: Partial<QueryCacheKey> = {}): QueryCacheKey => ({
  organization: 'org1', groupId: 'foot-traffic', datasets: 'default', templateId: 'change-in-visits',
  parameters: { geographies: ['country:US'], places: ['chain:a'], period: { periodType: 'MONTHLY', start: '2025-01', end: '2025-02' } },
  ...over,
});
const counter = () => {
  let n = 0;
  return { compute: async () => { n++; await new Promise((r) => setTimeout(r, 20)); return [{ n }]; }, get calls() { return n; } };
};

describe.each(backings)('ResultCache on %s', (_name, make) => {
  it('serves a second identical query from the cache, whatever the key order', async () => {
    const cache = new ResultCache({ backing: make() });
    const c = counter();
    await cache.run(key(), c.compute);
    const k2 = key({ parameters: { period: { end: '2025-02', start: '2025-01', periodType: 'MONTHLY' }, places: ['chain:a'], geographies: ['country:US'] } });
    expect(await cache.run(k2, c.compute)).toEqual([{ n: 1 }]);
    expect(c.calls).toBe(1);
  });

  it('runs identical concurrent queries once', async () => {
    const cache = new ResultCache({ backing: make() });
    const c = counter();
    const all = await Promise.all(Array.from({ length: 5 }, () => cache.run(key(), c.compute)));
    expect(c.calls).toBe(1);
    expect(all.every((r) => r[0]!.n === 1)).toBe(true);
  });

  it('keys on organization, datasets, template and parameters', async () => {
    const cache = new ResultCache({ backing: make() });
    const c = counter();
    await cache.run(key(), c.compute);
    await cache.run(key({ organization: 'org2' }), c.compute);
    await cache.run(key({ datasets: { places: 'p', devices: 'd', visits: 'v' } }), c.compute);
    await cache.run(key({ templateId: 'audience-age' }), c.compute);
    await cache.run(key({ parameters: { x: 1 } }), c.compute);
    expect(c.calls).toBe(5);
  });

  it('bypasses the lookup on cache-control: no-cache and stores the fresh result', async () => {
    const cache = new ResultCache({ backing: make() });
    const c = counter();
    await cache.run(key(), c.compute);
    expect(await cache.run(key(), c.compute, { cacheControl: 'no-cache' })).toEqual([{ n: 2 }]);
    expect(await cache.run(key(), c.compute)).toEqual([{ n: 2 }]);
    expect(c.calls).toBe(2);
  });

  it('invalidates per group and organization, per group default, and labels', async () => {
    const cache = new ResultCache({ backing: make() });
    const c = counter();
    const bound = key({ organization: 'org3', datasets: { places: 'p', devices: 'd', visits: 'v' } });
    await cache.run(key(), c.compute); // 1: org1 on the default
    await cache.run(bound, c.compute); // 2: org3 on its own datasets
    await cache.invalidateGroupOrg('foot-traffic', 'org3');
    await cache.run(key(), c.compute); // still cached
    await cache.run(bound, c.compute); // 3
    expect(c.calls).toBe(3);
    await cache.invalidateGroupDefault('foot-traffic');
    await cache.run(bound, c.compute); // still cached: not on the default
    await cache.run(key(), c.compute); // 4
    expect(c.calls).toBe(4);
    await cache.invalidateGroupOrg('other-group', 'org1');
    await cache.run(key(), c.compute);
    expect(c.calls).toBe(4);

    const l = counter();
    await cache.labels('default', l.compute);
    await cache.labels('default', l.compute);
    await cache.invalidateLabels();
    await cache.labels('default', l.compute);
    expect(l.calls).toBe(2);
    await cache.run(key(), c.compute);
    expect(c.calls).toBe(4);
  });

  it('does not cache failures', async () => {
    const cache = new ResultCache({ backing: make() });
    await expect(cache.run(key(), async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    const c = counter();
    await cache.run(key(), c.compute);
    expect(c.calls).toBe(1);
  });
});

describe('cache details', () => {
  it('a second Redis node sees the first node\'s results and invalidations', async () => {
    const prefix = `test:analytics:${randomUUID()}:`;
    const a = new RedisBacking(prefix), b = new RedisBacking(prefix);
    redisBackings.push(a, b);
    const ca = new ResultCache({ backing: a }), cb = new ResultCache({ backing: b });
    const c = counter();
    await ca.run(key(), c.compute);
    await cb.run(key(), c.compute);
    expect(c.calls).toBe(1);
    await cb.invalidateGroupOrg('foot-traffic', 'org1');
    await ca.run(key(), c.compute);
    expect(c.calls).toBe(2);
  });

  it('the LRU keeps at most its size', async () => {
    const backing = new MemoryLruBacking(3);
    const cache = new ResultCache({ backing });
    for (let i = 0; i < 5; i++) await cache.run(key({ parameters: { i } }), async () => i);
    expect(backing.size).toBe(3);
  });

  it('canonical JSON sorts keys and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] })).toBe('{"a":[{"y":2}],"b":1}');
  });
});
