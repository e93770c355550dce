import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDepth } from '../src/list-depth';
import { setup, type Ctx } from './helpers';

let ctx: Ctx;
beforeAll(async () => (ctx = await setup()));
afterAll(() => ctx.cleanup());

describe('lists nested in a column', () => {
  it.each([
    ['INTEGER', 0],
    ['INTEGER[][]', 2],
    ['DECIMAL(18,3)[]', 1],
    ['STRUCT(a INTEGER[])[]', 2],
    ['STRUCT(a INTEGER[], b INTEGER[][])', 2],
    ['STRUCT(a INTEGER[], b INTEGER[], c INTEGER[])', 1],
    ['STRUCT("we(i)rd[]" VARCHAR, b DOUBLE[3])[]', 2],
    ['STRUCT(a STRUCT(b INTEGER[])[])[]', 3],
  ])('%s nests %i', (type, depth) => {
    expect(listDepth(type)).toBe(depth);
  });

  const parquetOfLists = async (levels: number) => {
    const file = path.join(ctx.dir, `lists-${levels}.parquet`);
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run(`COPY (SELECT 1 AS id, ${'['.repeat(levels)}1${']'.repeat(levels)} AS deep) TO '${file}' (FORMAT parquet)`);
    conn.closeSync();
    db.closeSync();
    return file;
  };
  const ingest = (sourceFile: string) => ctx.engine.ingest({ sourceFile, contentType: 'application/vnd.apache.parquet', key: `lists/${Math.random().toString(36).slice(2)}.parquet` });

  it('refuses a Parquet file of lists nested 26 deep from its footer, before a read that would take 17 s', async () => {
    const file = await parquetOfLists(26);
    const started = performance.now();
    await expect(ingest(file)).rejects.toMatchObject({ status: 422, message: "Could not read Parquet: column 'deep' nests lists 26 deep; the studio reads at most 16" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('reads lists nested 16 deep', async () => {
    expect((await ingest(await parquetOfLists(16))).rowCount).toBe(1);
  });
});
