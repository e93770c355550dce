import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../src';

let dir: string;
let store: LocalObjectStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'engine-store-'));
  store = new LocalObjectStore(path.join(dir, 'root'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('LocalObjectStore', () => {
  it('puts, reads, streams and deletes by prefix', async () => {
    const src = path.join(dir, 'a.txt');
    await writeFile(src, 'hello');
    await store.put('ds/1/data.parquet', src);
    expect(await store.exists('ds/1/data.parquet')).toBe(true);
    expect(await readFile(await store.localPath('ds/1/data.parquet'), 'utf8')).toBe('hello');
    let text = '';
    for await (const b of store.createReadStream('ds/1/data.parquet')) text += String(b);
    expect(text).toBe('hello');
    // No temp file is left beside the object.
    expect(await readdir(path.join(dir, 'root/ds/1'))).toEqual(['data.parquet']);
    const keys: string[] = [];
    for await (const key of store.keys()) keys.push(key);
    expect(keys).toEqual(['ds/1/data.parquet']);
    await store.delete('ds/1');
    expect(await store.exists('ds/1/data.parquet')).toBe(false);
    await expect(store.localPath('ds/1/data.parquet')).rejects.toMatchObject({ status: 404 });
  });

  it('replaces an object atomically', async () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await writeFile(a, 'one');
    await writeFile(b, 'two');
    await store.put('k', a);
    await store.put('k', b);
    expect(await readFile(await store.localPath('k'), 'utf8')).toBe('two');
  });

  it('deletes a prefix while other objects land in it, without failing', async () => {
    // An Arrow copy written after ingestion lands beside the data a failed import or a quick delete removes.
    const files = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const f = path.join(dir, `f${i}`);
      await writeFile(f, 'x'.repeat(64 * 1024));
      return f;
    }));
    for (let round = 0; round < 20; round++) {
      const src = path.join(dir, `base${round}`);
      await writeFile(src, 'base');
      await store.put(`ds/${round}/data.parquet`, src);
      const landing = Promise.allSettled(files.slice(0, 2).map(async (f, i) => {
        const copy = `${f}-${round}`;
        await writeFile(copy, 'copy');
        await store.put(`ds/${round}/copy-${i}.arrow`, copy);
      }));
      await expect(store.delete(`ds/${round}`)).resolves.toBeUndefined();
      await landing;
    }
  });

  it.each(['../x', 'a/../../b', '/abs', 'a//b', 'a b', "a'b", '', 'a/./b'])('refuses key %j', async (key) => {
    await expect(store.exists(key)).rejects.toMatchObject({ status: 422, message: 'Invalid storage key' });
  });
});
