import { readdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, type Ctx } from './helpers';
import { gzipBomb } from './hostile-files';

let ctx: Ctx;
beforeAll(async () => (ctx = await setup()));
afterAll(() => ctx.cleanup());

const ingestGzip = (body: Buffer, maxBytes?: number) =>
  ctx.file(`body-${Math.random()}.gz`, body).then((sourceFile) =>
    ctx.engine.ingest({ sourceFile, contentType: 'text/csv', contentEncoding: 'gzip', key: `gz/${Math.random().toString(36).slice(2)}.parquet`, maxBytes }),
  );

const tempsLeft = async () => (await readdir(ctx.engine.tmpDir)).filter((f) => f.startsWith('ingest-'));

describe('gzip bodies, bounded as they decompress', () => {
  it('refuses ~1 MB meant to become 1 GB for its ratio, within seconds, and leaves no partial output', async () => {
    const bomb = gzipBomb(1024 ** 3);
    expect(bomb.length).toBeLessThan(1.2 * 1024 * 1024);
    const started = performance.now();
    await expect(ingestGzip(bomb)).rejects.toMatchObject({ status: 422, message: 'The gzip body expands to more than 200 times its size: refused as a decompression bomb' });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await tempsLeft()).toEqual([]);
  });

  it('counts decompressed bytes against the upload limit (413), however well they compress', async () => {
    const csv = `a,b\n${'1,2\n'.repeat(50_000)}`; // 200 KB, ~120:1
    await expect(ingestGzip(gzipSync(csv), 100_000)).rejects.toMatchObject({ status: 413, message: 'The gzip body is larger than 100000 bytes once decompressed' });
    expect(await tempsLeft()).toEqual([]);
    expect((await ingestGzip(gzipSync(csv), 300_000)).rowCount).toBe(50_000);
  });

  it('reads a small file past 200:1 (a ratio alone harms no one below 16 MB)', async () => {
    const sparse = `a${','.repeat(99)}\n${`1${','.repeat(99)}\n`.repeat(500)}`; // 50 KB of commas
    const body = gzipSync(sparse, { level: 9 });
    expect(sparse.length / body.length).toBeGreaterThan(200);
    expect((await ingestGzip(body)).rowCount).toBe(500);
  });
});
