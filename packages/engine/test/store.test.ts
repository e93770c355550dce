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

  it.each(['../x', 'a/../../b', '/abs', 'a//b', 'a b', "a'b", '', 'a/./b'])('refuses key %j', async (key) => {
    await expect(store.exists(key)).rejects.toMatchObject({ status: 422, message: 'Invalid storage key' });
  });
});
