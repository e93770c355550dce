import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src';

/**
 * Uploads past largeIngestBytes are copied by the large-upload DuckDB instance (its own small memory limit); below it by
 * the main one. Either way the rows keep the file's order and the statistics are those of the data.
 */
describe.each([
  ['large (large-upload instance)', 1],
  ['small (main instance)', 1 << 30],
])('ingest of a %s upload', (_label, largeIngestBytes) => {
  let dir: string;
  let engine: Engine;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'engine-large-'));
    engine = await Engine.open({ dataDir: dir, threads: 2, largeIngestBytes });
  });
  afterAll(async () => {
    engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps file order, counts and statistics', async () => {
    const rows = 300_000; // several CSV buffers and row groups
    const lines = ['seq,label,value'];
    for (let i = 0; i < rows; i++) lines.push(`${rows - i},k${i % 13},${i % 10 === 0 ? '' : (i * 0.5).toFixed(1)}`);
    const file = path.join(dir, 'big.csv');
    await writeFile(file, lines.join('\n'));
    const r = await engine.ingest({ sourceFile: file, contentType: 'text/csv', key: 'big.parquet' });
    expect(r.rowCount).toBe(rows);
    const seq = r.columns.find((c) => c.name === 'seq')!;
    expect(seq.stats).toMatchObject({ min: 1, max: rows, nullCount: 0 });
    expect(r.columns.find((c) => c.name === 'value')!.stats.nullCount).toBe(rows / 10);
    const out = await engine.store.localPath('big.parquet');
    const [order] = await engine.query(`SELECT count(*) FILTER (WHERE seq <> ${rows} - rn + 1) AS misplaced FROM (SELECT seq, row_number() OVER () AS rn FROM read_parquet('${out}'))`);
    expect(order).toEqual({ misplaced: 0 });
  });
});
