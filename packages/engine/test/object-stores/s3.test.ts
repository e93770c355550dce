import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadThroughCache, S3ObjectStore, parseS3Location } from '../../src';
import { S3_KEYS, startS3Server, type S3Server } from '../../../warehouses/test/servers/s3';

const BUCKET = 'studio-objects';
let s3: S3Server;
let dir: string;
beforeAll(async () => {
  s3 = await startS3Server(BUCKET, {});
  dir = await mkdtemp(path.join(tmpdir(), 'engine-s3-'));
});
afterAll(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const clientConfig = () => ({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3_KEYS } });

/** One API node: its own cache folder over the shared bucket. */
async function node(name: string, maxBytes?: number) {
  const cache = await ReadThroughCache.open({ dir: path.join(dir, name), maxBytes });
  return { store: new S3ObjectStore({ bucket: BUCKET, prefix: 'studio/prod', client: clientConfig(), cache }), cache };
}

async function bucketKeys(): Promise<string[]> {
  const client = new S3Client(clientConfig());
  const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  client.destroy();
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

async function fileWith(bytes: string | Buffer): Promise<string> {
  const f = path.join(dir, `src-${randomBytes(4).toString('hex')}`);
  await writeFile(f, bytes);
  return f;
}

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const b of stream) out += String(b);
  return out;
}

describe('S3ObjectStore', () => {
  it.each([
    ['s3://bucket', { bucket: 'bucket', prefix: '' }],
    ['s3://studio-data/objects/', { bucket: 'studio-data', prefix: 'objects' }],
    ['s3://studio-data/a/b', { bucket: 'studio-data', prefix: 'a/b' }],
    ['s3://Bad_Bucket/x', null],
    ['s3://bucket/a/../b', null],
    ['https://bucket/x', null],
  ])('reads the location %s', (location, expected) => {
    expect(parseS3Location(location)).toEqual(expected);
  });

  it('stores on one node and serves on another: the object lands under the prefix, the second node fetches it into its cache', async () => {
    const a = await node('a');
    const b = await node('b');
    const src = await fileWith('name,lat,lng\nFerry Building,37.7955,-122.3937\n');
    await a.store.put('datasets/1/v1.parquet', src);
    expect(await bucketKeys()).toContain('studio/prod/datasets/1/v1.parquet');
    // The node that stored it keeps it: its next read needs no download.
    expect(a.cache.has('datasets/1/v1.parquet')).toBe(true);
    expect(b.cache.has('datasets/1/v1.parquet')).toBe(false);
    expect(await b.store.exists('datasets/1/v1.parquet')).toBe(true);
    const local = await b.store.localPath('datasets/1/v1.parquet');
    expect(local.startsWith(path.join(dir, 'b'))).toBe(true);
    expect(await readFile(local, 'utf8')).toContain('Ferry Building');
    expect(await text(b.store.createReadStream('datasets/1/v1.parquet'))).toContain('Ferry Building');
  });

  it('streams a file larger than one upload part and reads back the same bytes', async () => {
    const a = await node('big-a');
    const b = await node('big-b');
    const bytes = randomBytes(12 * 1024 * 1024);
    await a.store.put('datasets/big/v1.parquet', await fileWith(bytes));
    // Straight from the bucket (not cached on b): the body streams through.
    const chunks: Buffer[] = [];
    for await (const c of b.store.createReadStream('datasets/big/v1.parquet')) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect((await readFile(await b.store.localPath('datasets/big/v1.parquet'))).equals(bytes)).toBe(true);
  });

  it('answers a missing object as absent (404), on reads and streams alike', async () => {
    const { store } = await node('missing');
    expect(await store.exists('datasets/none/v1.parquet')).toBe(false);
    await expect(store.localPath('datasets/none/v1.parquet')).rejects.toMatchObject({ status: 404, message: 'Object not found: datasets/none/v1.parquet' });
    await expect(text(store.createReadStream('datasets/none/v1.parquet'))).rejects.toMatchObject({ status: 404 });
    await expect(store.put('../outside', await fileWith('x'))).rejects.toMatchObject({ status: 422 });
  });

  it('deletes a prefix and everything under it from the bucket and from its cache, leaving its neighbours', async () => {
    const { store, cache } = await node('delete');
    await store.put('datasets/2/v1.parquet', await fileWith('one'));
    await store.put('datasets/2/v1.parquet.arrow', await fileWith('two'));
    await store.put('datasets/20/v1.parquet', await fileWith('neighbour'));
    const listed: string[] = [];
    for await (const key of store.keys()) listed.push(key);
    expect(listed.filter((k) => k.startsWith('datasets/2')).sort()).toEqual(['datasets/2/v1.parquet', 'datasets/2/v1.parquet.arrow', 'datasets/20/v1.parquet']);
    await store.delete('datasets/2');
    const keys = await bucketKeys();
    expect(keys.filter((k) => k.includes('/datasets/2/'))).toEqual([]);
    expect(keys).toContain('studio/prod/datasets/20/v1.parquet');
    expect([cache.has('datasets/2/v1.parquet'), await store.exists('datasets/2/v1.parquet'), await store.exists('datasets/20/v1.parquet')]).toEqual([false, false, true]);
  });
});
