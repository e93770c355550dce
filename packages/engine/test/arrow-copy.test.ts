import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrowCopyCouldFit, arrowCopyKey, BufferPool } from '../src';
import { collect, setup, type Ctx } from './helpers';

let ctx: Ctx;
const parquet = (name: string, rows: number) =>
  ctx.engine.query(`COPY (SELECT i AS id, 'k' || (i % 7) AS label, CASE WHEN i % 5 = 0 THEN NULL ELSE i * 0.5 END AS v FROM range(${rows}) t(i)) TO '${path.join(ctx.dir, name)}' (FORMAT parquet)`);

beforeAll(async () => {
  ctx = await setup();
  await parquet('a.parquet', 200_000);
  await parquet('b.parquet', 10);
});
afterAll(() => ctx.cleanup());

describe('datasetArrowStream', () => {
  it('keeps an Arrow copy after a complete read and answers later reads from it, byte for byte', async () => {
    await ctx.engine.store.put('ds/one.parquet', path.join(ctx.dir, 'a.parquet'));
    const first = await collect(ctx.engine.datasetArrowStream('ds/one.parquet'));
    expect(await ctx.engine.store.exists(arrowCopyKey('ds/one.parquet'))).toBe(true);
    // Swap the Parquet under the key: an answer from the copy still carries the first data.
    await parquet('a2.parquet', 10);
    await ctx.engine.store.put('ds/one.parquet', path.join(ctx.dir, 'a2.parquet'));
    const pool = new BufferPool(2);
    const parts: Uint8Array[] = [];
    for await (const piece of ctx.engine.datasetArrowStream('ds/one.parquet', { pool })) {
      parts.push(Buffer.from(piece));
      pool.give(piece);
    }
    expect(Buffer.compare(Buffer.concat(parts), Buffer.from(first))).toBe(0);
    expect(tableFromIPC(first).numRows).toBe(200_000);
  });

  it('keeps no copy of a read that stops early', async () => {
    await ctx.engine.store.put('ds/two.parquet', path.join(ctx.dir, 'b.parquet'));
    await parquet('c.parquet', 500_000);
    await ctx.engine.store.put('ds/three.parquet', path.join(ctx.dir, 'c.parquet'));
    const it = ctx.engine.datasetArrowStream('ds/three.parquet')[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await it.return?.(undefined);
    expect(await ctx.engine.store.exists(arrowCopyKey('ds/three.parquet'))).toBe(false);
    expect(tableFromIPC(await collect(ctx.engine.datasetArrowStream('ds/three.parquet'))).numRows).toBe(500_000);
    expect(await ctx.engine.store.exists(arrowCopyKey('ds/three.parquet'))).toBe(true);
  });

  it('stops reading a copy on abort', async () => {
    const abort = new AbortController();
    const it = ctx.engine.datasetArrowStream('ds/three.parquet', { signal: abort.signal })[Symbol.asyncIterator]();
    await it.next();
    abort.abort();
    await expect(it.next()).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('keepArrowCopy (after ingestion)', () => {
  it('writes the copy without a read, the same bytes a read builds from the Parquet', async () => {
    await parquet('e.parquet', 200_000);
    await ctx.engine.store.put('ds/four.parquet', path.join(ctx.dir, 'e.parquet'));
    const built = await collect(ctx.engine.arrowStream('ds/four.parquet'));
    expect(await ctx.engine.keepArrowCopy('ds/four.parquet')).toBe(true);
    expect(await ctx.engine.store.exists(arrowCopyKey('ds/four.parquet'))).toBe(true);
    const served = await collect(ctx.engine.datasetArrowStream('ds/four.parquet'));
    expect(Buffer.compare(Buffer.from(served), Buffer.from(built))).toBe(0);
  });

  it('a read while the copy is written streams from the Parquet and leaves the writing to the copy', async () => {
    await parquet('d.parquet', 300_000);
    await ctx.engine.store.put('ds/five.parquet', path.join(ctx.dir, 'd.parquet'));
    const copying = ctx.engine.keepArrowCopy('ds/five.parquet');
    expect(ctx.engine.keepArrowCopy('ds/five.parquet')).toBe(copying); // a second call joins the first
    const read = await collect(ctx.engine.datasetArrowStream('ds/five.parquet'));
    expect(await copying).toBe(true);
    const copy = await collect(ctx.engine.datasetArrowStream('ds/five.parquet'));
    expect(Buffer.compare(Buffer.from(copy), Buffer.from(read))).toBe(0);
    expect(tableFromIPC(copy).numRows).toBe(300_000);
  });

  it('fails for a key that is not stored, leaving no copy', async () => {
    await expect(ctx.engine.keepArrowCopy('ds/missing.parquet')).rejects.toMatchObject({ status: 404 });
    expect(await ctx.engine.store.exists(arrowCopyKey('ds/missing.parquet'))).toBe(false);
  });
});

describe('a dataset too large for a copy', () => {
  const MB = 1024 * 1024;
  it.each([
    ['8M rows of 8 doubles (512 MB at least): at the cap', 8 * MB, Array(8).fill('DOUBLE'), true],
    ['one row more', 8 * MB + 1, Array(8).fill('DOUBLE'), false],
    ['12.5M rows of the bench file (lat, lng, ts, a label, 4 numbers: 60 bytes a row)', 12_500_000, ['DOUBLE', 'DOUBLE', 'TIMESTAMP', 'VARCHAR', 'DOUBLE', 'DOUBLE', 'BIGINT', 'DOUBLE'], false],
    ['strings count their offsets only (their bytes are unknown here)', 100 * MB, ['VARCHAR'], true],
    ['booleans and types not named count nothing', 1_000 * MB, ['BOOLEAN', 'STRUCT(a INTEGER)', 'DECIMAL(18,3)'], true],
    ['small types their width (3 bytes a row)', 170 * MB, ['TINYINT', 'SMALLINT'], true],
    ['small types past the cap', 171 * MB, ['TINYINT', 'SMALLINT'], false],
    ['an empty dataset', 0, ['DOUBLE'], true],
  ])('%s', (_name, rows, types, fits) => expect(arrowCopyCouldFit(rows, types)).toBe(fits));

  it('is not copied: no Arrow is built after ingestion only to be dropped at the cap', async () => {
    // 100 BIGINT columns: 800 bytes a row at least, past 512 MB from 671,089 rows.
    const columns = Array.from({ length: 100 }, (_, c) => `i + ${c} AS c${c}`).join(', ');
    await ctx.engine.query(`COPY (SELECT ${columns} FROM range(700000) t(i)) TO '${path.join(ctx.dir, 'wide.parquet')}' (FORMAT parquet)`);
    await ctx.engine.store.put('ds/wide.parquet', path.join(ctx.dir, 'wide.parquet'));
    const stream = ctx.engine.arrowStream.bind(ctx.engine);
    let built = 0;
    ctx.engine.arrowStream = (...args) => (built++, stream(...args));
    try {
      expect(await ctx.engine.keepArrowCopy('ds/wide.parquet')).toBe(false);
      expect(built).toBe(0);
      expect(await ctx.engine.store.exists(arrowCopyKey('ds/wide.parquet'))).toBe(false);
    } finally {
      ctx.engine.arrowStream = stream;
    }
  });
});

describe('closing the engine while a copy is written', () => {
  it('stops the copy, keeps no copy and closes once it has stopped', async () => {
    const own = await setup();
    try {
      await own.engine.query(`COPY (SELECT i AS id, i * 0.5 AS v FROM range(2000000) t(i)) TO '${path.join(own.dir, 'big.parquet')}' (FORMAT parquet)`);
      await own.engine.store.put('ds/big.parquet', path.join(own.dir, 'big.parquet'));
      const copying = own.engine.keepArrowCopy('ds/big.parquet');
      await new Promise((r) => setTimeout(r, 20));
      own.engine.close();
      await expect(copying).rejects.toMatchObject({ name: 'AbortError' });
      expect(await own.engine.store.exists(arrowCopyKey('ds/big.parquet'))).toBe(false);
      expect(await own.engine.keepArrowCopy('ds/big.parquet')).toBe(false);
    } finally {
      await own.cleanup();
    }
  });
});
