import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadThroughCache } from '../../src';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'engine-cache-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A fetch that writes `body` and counts its calls. */
function fetcher(body: string) {
  const f = Object.assign(
    async (toFile: string) => {
      f.calls++;
      await new Promise((r) => setTimeout(r, 20));
      await writeFile(toFile, body);
    },
    { calls: 0 },
  );
  return f;
}

const files = async (root: string) => (await readdir(root, { recursive: true })).filter((f) => !f.startsWith('.incoming')).sort();

describe('ReadThroughCache', () => {
  it('fetches a key once, however many ask at the same time, and answers it from disk afterwards', async () => {
    const cache = await ReadThroughCache.open({ dir });
    const fetch = fetcher('cells');
    const paths = await Promise.all([1, 2, 3, 4].map(() => cache.path('datasets/a/v1.parquet', fetch)));
    expect(new Set(paths).size).toBe(1);
    expect(await readFile(paths[0]!, 'utf8')).toBe('cells');
    await cache.path('datasets/a/v1.parquet', fetch);
    expect(fetch.calls).toBe(1);
    expect(cache.size).toBe(5);
  });

  it('leaves nothing behind when a fetch fails, and fetches again next time', async () => {
    const cache = await ReadThroughCache.open({ dir });
    const failing = async (toFile: string) => {
      await writeFile(toFile, 'half');
      throw new Error('connection reset');
    };
    await expect(cache.path('k', failing)).rejects.toThrow('connection reset');
    expect(cache.has('k')).toBe(false);
    expect(await readdir(path.join(dir, '.incoming'))).toEqual([]);
    expect(await readFile(await cache.path('k', fetcher('whole')), 'utf8')).toBe('whole');
  });

  it('removes the least recently used objects past its budget, sparing those handed out within the grace period', async () => {
    let now = 1_000_000;
    const cache = await ReadThroughCache.open({ dir, maxBytes: 10, graceMs: 1000, now: () => now });
    await cache.path('a', fetcher('aaaa'));
    now += 10;
    await cache.path('b', fetcher('bbbb'));
    // Over budget (12 bytes) but a and b were handed out just now: both stay.
    await cache.path('c', fetcher('cccc'));
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.size]).toEqual([true, true, true, 12]);
    // Later, a is used again; then d arrives: b (least recently used) goes, then c, until 10 bytes hold.
    now += 5000;
    await cache.path('a', fetcher('never'));
    await cache.path('d', fetcher('dddd'));
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.has('d')]).toEqual([true, false, false, true]);
    expect(cache.size).toBe(8);
    expect(await files(dir)).toEqual(['a', 'd']);
  });

  it('keeps what an earlier run cached, and forgets a deleted prefix with everything under it', async () => {
    const first = await ReadThroughCache.open({ dir });
    await first.path('datasets/x/v1.parquet', fetcher('one'));
    await first.path('datasets/x/v1.parquet.arrow', fetcher('two'));
    await first.path('datasets/y/v1.parquet', fetcher('three'));
    const again = await ReadThroughCache.open({ dir });
    expect([again.has('datasets/x/v1.parquet'), again.size]).toEqual([true, 11]);
    await again.forget('datasets/x');
    expect([again.has('datasets/x/v1.parquet'), again.has('datasets/x/v1.parquet.arrow'), again.has('datasets/y/v1.parquet'), again.size]).toEqual([false, false, true, 5]);
    expect(await files(dir)).toEqual(['datasets', 'datasets/y', 'datasets/y/v1.parquet']);
  });

  it('takes a stored file in without copying it when it can', async () => {
    const cache = await ReadThroughCache.open({ dir: path.join(dir, 'cache') });
    const src = path.join(dir, 'upload.parquet');
    await writeFile(src, 'rows');
    await cache.add('datasets/z/v1.parquet', src);
    expect(await readdir(dir)).toEqual(['cache']);
    expect(cache.cached('datasets/z/v1.parquet')).toBe(path.join(dir, 'cache/datasets/z/v1.parquet'));
    await expect(cache.path('../escape', fetcher('x'))).rejects.toMatchObject({ status: 422 });
  });
});
