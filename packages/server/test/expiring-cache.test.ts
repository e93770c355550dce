import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '../src/services/expiring-cache';

/** A cache on a clock the test steps. */
function cacheAt(ttlMs: number, limit = 3) {
  const clock = { t: 1_000 };
  const cache = new ExpiringCache<string>({ ttlMs, limit, now: () => clock.t });
  return { cache, clock };
}

describe('ExpiringCache', () => {
  it.each([
    { after: 0, answers: 'v' },
    { after: 999, answers: 'v' },
    { after: 1000, answers: undefined },
    { after: 5000, answers: undefined },
  ])('an entry written with ttl 1000 ms, read $after ms later, answers $answers', ({ after, answers }) => {
    const { cache, clock } = cacheAt(1000);
    cache.set('k', 'v');
    clock.t += after;
    expect(cache.get('k')).toBe(answers);
  });

  it.each([0, -1])('keeps nothing with ttl %i (the cache turned off)', (ttlMs) => {
    const { cache } = cacheAt(ttlMs);
    cache.set('k', 'v');
    // The size first: reading would drop an expired entry and hide that it was stored.
    expect([cache.size, cache.get('k')]).toEqual([0, undefined]);
  });

  it('drops an expired entry when it is read, so it stops counting towards the limit', () => {
    const { cache, clock } = cacheAt(1000);
    cache.set('k', 'v');
    clock.t += 1000;
    cache.get('k');
    expect(cache.size).toBe(0);
  });

  it('lets the oldest written entry go when a new one would pass the limit', () => {
    const { cache } = cacheAt(60_000, 3);
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, k.toUpperCase());
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([undefined, 'B', 'C', 'D']);
    expect(cache.size).toBe(3);
  });

  it('makes an entry written again the newest, and its time starts again', () => {
    const { cache, clock } = cacheAt(1000, 3);
    cache.set('a', 'A1');
    clock.t += 600;
    cache.set('b', 'B');
    cache.set('a', 'A2');
    cache.set('c', 'C');
    // Past the limit the oldest written goes: b, not a (written again after b).
    cache.set('d', 'D');
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual(['A2', undefined, 'C', 'D']);
    clock.t += 900;
    expect(cache.get('a')).toBe('A2');
  });

  it('forgets every entry, or only those whose value matches', () => {
    const { cache } = cacheAt(60_000);
    for (const k of ['a1', 'b1', 'a2']) cache.set(k, k[0]!);
    cache.forget((v) => v === 'a');
    expect(['a1', 'b1', 'a2'].map((k) => cache.get(k))).toEqual([undefined, 'b', undefined]);
    cache.forget();
    expect(cache.size).toBe(0);
  });
});

describe('ExpiringCache.getOrLoad', () => {
  it('loads once for callers that miss together, and keeps the answer', async () => {
    const { cache } = cacheAt(1000);
    let loads = 0;
    let release!: (v: string) => void;
    const load = () => {
      loads++;
      return new Promise<string>((r) => (release = r));
    };
    const waiting = [cache.getOrLoad('k', load), cache.getOrLoad('k', load), cache.getOrLoad('k', load)];
    release('v');
    expect(await Promise.all(waiting)).toEqual(['v', 'v', 'v']);
    expect(await cache.getOrLoad('k', load)).toBe('v');
    expect(loads).toBe(1);
  });

  it('gives every waiting caller a failed load’s error, keeps nothing, and loads again on the next ask', async () => {
    const { cache } = cacheAt(1000);
    let loads = 0;
    const failing = () => (loads++, Promise.reject(new Error('catalog down')));
    const results = await Promise.allSettled([cache.getOrLoad('k', failing), cache.getOrLoad('k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.getOrLoad('k', async () => (loads++, 'v'))).toBe('v');
    expect(loads).toBe(2);
  });

  it('keeps only the answers `keep` accepts', async () => {
    const { cache } = cacheAt(1000);
    expect(await cache.getOrLoad('k', async () => 'refused', (v) => v !== 'refused')).toBe('refused');
    expect(cache.size).toBe(0);
  });
});
