import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BufferPool } from '../src';
import { collect, setup, type Ctx } from './helpers';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

// 5000 rows: several DuckDB chunks (2048) and, with batchRows 3000, several Arrow batches at odd bit offsets.
const GEN = `SELECT i AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i * 0.5 END AS val,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'cat' || (i % 3) END AS cat,
  CASE WHEN i % 11 = 0 THEN NULL ELSE repeat('long-string-', 1 + i % 3) || i END AS longtext,
  i % 2 = 0 AS flag,
  CAST(i AS INTEGER) AS i32,
  CAST(i % 100 AS TINYINT) AS i8,
  CAST(i AS FLOAT) AS f32,
  TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (i) SECOND AS ts,
  DATE '2024-01-01' + CAST(i % 30 AS INTEGER) AS d,
  CAST(i AS DECIMAL(10,2)) AS dec,
  [i, i + 1] AS list
  FROM range(5000) t(i)`;

describe('arrowStream', () => {
  it.each([[65536], [3000], [1000]])('round-trips rows, nulls and types (batchRows %i)', async (batchRows) => {
    const expected = await ctx.engine.query(`SELECT *, epoch_ms(ts) AS ts_ms, CAST(d AS VARCHAR) AS d_text FROM (${GEN})`);
    const bytes = await collect(ctx.engine.arrowStream({ sql: GEN }, { batchRows }));
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(5000);
    const cols = Object.fromEntries(table.schema.fields.map((f) => [f.name, table.getChild(f.name)!.toArray()]));
    const get = (name: string, i: number) => table.getChild(name)!.get(i);
    for (let i = 0; i < 5000; i++) {
      const e = expected[i]!;
      expect(Number(get('id', i))).toBe(e.id);
      expect(get('val', i)).toBe(e.val);
      expect(get('cat', i)).toBe(e.cat);
      expect(get('longtext', i)).toBe(e.longtext);
      expect(get('flag', i)).toBe(e.flag);
      expect(get('i32', i)).toBe(e.i32);
      expect(get('i8', i)).toBe(e.i8);
      expect(get('f32', i)).toBe(e.f32);
      expect(Number(get('ts', i))).toBe(e.ts_ms);
      expect(new Date(get('d', i) as number).toISOString().slice(0, 10)).toBe(e.d_text);
      expect(get('dec', i)).toBe(Number(e.dec));
      expect(JSON.parse(get('list', i) as string)).toEqual(e.list);
    }
    expect(cols.val!.length).toBe(5000);
    expect(table.getChild('val')!.nullCount).toBe(expected.filter((e) => e.val === null).length);
  });

  it('streams a stored dataset with params', async () => {
    const rows = await ctx.engine.arrowStream({ sql: 'SELECT * FROM range(10) t(i) WHERE i >= $1', params: [7] });
    const table = tableFromIPC(await collect(rows));
    expect(table.getChild('i')!.toArray()).toEqual(new BigInt64Array([7n, 8n, 9n]));
  });

  it('accepts a trailing semicolon, also when columns need casts', async () => {
    const table = tableFromIPC(await collect(ctx.engine.arrowStream({ sql: 'SELECT 1.5::DECIMAL(4,1) AS m;  ' })));
    expect(table.getChild('m')!.get(0)).toBe(1.5);
    const csv = Buffer.from(await collect(ctx.engine.csvStream({ sql: 'SELECT 1 AS a;' }))).toString();
    expect(csv).toBe('a\n1\n');
  });

  it('reuses pooled buffers once given back, and the bytes stay those of an unpooled stream', async () => {
    const plainBytes = await collect(ctx.engine.arrowStream({ sql: GEN }, { batchRows: 1000 }));
    const pool = new BufferPool(2);
    const parts: Uint8Array[] = [];
    const seen = new Set<ArrayBufferLike>();
    for await (const piece of ctx.engine.arrowStream({ sql: GEN }, { batchRows: 1000, pool })) {
      parts.push(Buffer.from(piece)); // a copy: the piece itself is overwritten once given back
      seen.add(piece.buffer);
      pool.give(piece);
    }
    expect(parts.length).toBeGreaterThan(2);
    expect(seen.size).toBeLessThan(parts.length);
    expect(Buffer.compare(Buffer.concat(parts), Buffer.from(plainBytes))).toBe(0);
  });

  it('writes zeros under NULLs, never what DuckDB left in its buffers', async () => {
    // Fill DuckDB's buffers with non-zero values first, then read a column that is mostly NULL.
    await collect(ctx.engine.arrowStream({ sql: 'SELECT i * 1.5 + 1 AS v FROM range(20000) t(i)' }));
    const table = tableFromIPC(await collect(ctx.engine.arrowStream({ sql: 'SELECT CASE WHEN i % 3 = 0 THEN i * 1.5 END AS v FROM range(20000) t(i)' })));
    let nulls = 0;
    for (const data of table.getChild('v')!.data) {
      const values = data.values as Float64Array;
      for (let i = 0; i < data.length; i++) {
        if (data.getValid(i)) continue;
        nulls++;
        expect(values[i]).toBe(0);
      }
    }
    expect(nulls).toBeGreaterThan(10_000);
  });

  it('never hands out a pooled buffer that was not given back', async () => {
    const pool = new BufferPool();
    const held = [pool.take(100), pool.take(100)];
    expect(held[0]!.buffer).not.toBe(held[1]!.buffer);
    pool.give(held[0]!);
    pool.give(held[0]!); // twice: still one free entry
    expect(pool.take(50).buffer).toBe(held[0]!.buffer);
    expect(pool.take(50).buffer).not.toBe(held[0]!.buffer);
  });

  it('empty result keeps the schema', async () => {
    const table = tableFromIPC(await collect(ctx.engine.arrowStream({ sql: 'SELECT 1 AS a, \'x\' AS b WHERE false' })));
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => f.name)).toEqual(['a', 'b']);
  });

  it('first bytes leave before the result is read', async () => {
    const it = ctx.engine.arrowStream({ sql: 'SELECT * FROM range(10000000) t(i)' }, { batchRows: 4096 })[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    await it.return?.(undefined);
    // The connection came back to the pool.
    expect(await ctx.engine.query('SELECT 42 AS x')).toEqual([{ x: 42 }]);
  });

  it('stops on abort', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const run = (async () => {
      for await (const b of ctx.engine.arrowStream({ sql: 'SELECT * FROM range(100000000) t(i)' }, { signal: ac.signal, batchRows: 4096 })) {
        seen.push(b.length);
        if (seen.length === 2) ac.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.length).toBe(2);
  });

  it('streams a dataset by key', async () => {
    const src = await ctx.file('k.csv', 'a,b\n1,x\n2,\n');
    await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'k/ds.parquet' });
    const table = tableFromIPC(await collect(ctx.engine.arrowStream('k/ds.parquet')));
    expect(table.toArray().map((r) => ({ ...r.toJSON(), a: Number(r.a) }))).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: null },
    ]);
  });
});

describe('csvStream', () => {
  it('writes a header and rows, and removes its temp file', async () => {
    const text = Buffer.from(await collect(ctx.engine.csvStream({ sql: 'SELECT i, i * 2 AS j FROM range(3) t(i) WHERE i < $1', params: [3] }))).toString();
    expect(text).toBe('i,j\n0,0\n1,2\n2,4\n');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(ctx.engine.tmpDir).filter((f) => f.startsWith('export-'))).toEqual([]);
  });

  it('aborts a running export and removes its temp file', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const run = collect(
      ctx.engine.csvStream({ sql: 'SELECT i, md5(CAST(i AS VARCHAR)) AS h FROM range(100000000) t(i)' }, { signal: ac.signal }),
    );
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(ctx.engine.tmpDir).filter((f) => f.startsWith('export-'))).toEqual([]);
  });
});
