import { latLngToCell } from 'h3-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, type Ctx } from './helpers';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

describe('Engine', () => {
  it('query returns plain values', async () => {
    const rows = await ctx.engine.query(
      `SELECT 1::BIGINT AS b, 9007199254740993::BIGINT AS big, 1.25::DECIMAL(5,2) AS m, TIMESTAMP '2024-01-02 03:04:05' AS ts, 'x' AS s, NULL AS n`,
    );
    expect(rows).toEqual([{ b: 1, big: '9007199254740993', m: 1.25, ts: '2024-01-02T03:04:05.000Z', s: 'x', n: null }]);
  });

  it('h3 scalar functions are available on every pooled connection', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        ctx.engine.query(`SELECT h3_latlng_to_cell(40.7, -74.0, 8) AS c, h3_is_valid_cell('nope') AS v`),
      ),
    );
    for (const r of results) expect(r).toEqual([{ c: latLngToCell(40.7, -74.0, 8), v: false }]);
  });

  it('runs queries concurrently over the pool and withConnection releases on error', async () => {
    await expect(ctx.engine.withConnection(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => ctx.engine.query('SELECT $1::INTEGER AS i', [i])));
    expect(rs.map((r) => r[0]!.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('preview pages through a dataset', async () => {
    const src = await ctx.file('p.csv', 'n\n' + Array.from({ length: 50 }, (_, i) => i).join('\n') + '\n');
    await ctx.engine.ingest({ sourceFile: src, contentType: 'text/csv', key: 'p.parquet' });
    const page = await ctx.engine.preview('p.parquet', { offset: 10, limit: 5 });
    expect(page.map((r) => r.n)).toEqual([10, 11, 12, 13, 14]);
    await expect(ctx.engine.preview('missing.parquet')).rejects.toMatchObject({ status: 404 });
  });
});

describe('Engine.open functions', () => {
  it('runs the given registration once, in place of the built-in h3 helpers', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { DuckDBScalarFunction, INTEGER } = await import('@duckdb/node-api');
    const { Engine } = await import('../src');
    const dir = await mkdtemp(path.join(tmpdir(), 'engine-fn-'));
    let calls = 0;
    const engine = await Engine.open({
      dataDir: dir,
      functions: (c) => {
        calls++;
        c.registerScalarFunction(
          DuckDBScalarFunction.create({
            name: 'answer',
            returnType: INTEGER,
            mainFunction: (_i, input, out) => {
              for (let r = 0; r < input.rowCount; r++) out.setItem(r, 42);
              out.flush();
            },
          }),
        );
      },
    });
    try {
      const rs = await Promise.all(Array.from({ length: 5 }, () => engine.query('SELECT answer() AS a')));
      expect(rs.every((r) => r[0]!.a === 42)).toBe(true);
      expect(calls).toBe(1);
      await expect(engine.query('SELECT h3_is_valid_cell(\'x\')')).rejects.toThrow();
    } finally {
      engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('cleanTemp', () => {
  it('removes leftovers but keeps the engine working', async () => {
    const { mkdir, readdir, writeFile } = await import('node:fs/promises');
    const path = await import('node:path');
    await writeFile(path.join(ctx.engine.tmpDir, 'ingest-stale.parquet'), 'x');
    await mkdir(path.join(ctx.engine.tmpDir, 'uploads'), { recursive: true });
    await writeFile(path.join(ctx.engine.tmpDir, 'uploads', 'a.part'), 'x');
    await ctx.engine.cleanTemp();
    expect((await readdir(ctx.engine.tmpDir)).filter((e) => e !== 'duckdb')).toEqual([]);
    expect(await ctx.engine.query('SELECT 1 AS x')).toEqual([{ x: 1 }]);
  });
});
