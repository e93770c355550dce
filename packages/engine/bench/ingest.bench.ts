/**
 * Ingest rows/s vs DuckDB's own COPY (SELECT * FROM read_csv(...)) TO parquet on the same file, same run.
 * BENCH_ROWS=n replaces the 1M and 10M sizes with one size n.
 */
import path from 'node:path';
import { Engine } from '../src';
import { BENCH_ROWS, line, short, tempDir, time, writeCsv } from './util';

const sizes = BENCH_ROWS ? [BENCH_ROWS] : [1_000_000, 10_000_000];
const { dir, cleanup } = await tempDir('engine-bench-ingest-');
try {
  const engine = await Engine.open({ dataDir: dir });
  for (const rows of sizes) {
    const csv = path.join(dir, `rows-${rows}.csv`);
    await writeCsv(csv, rows);
    // Alternate baseline and ours, median of three each (2 shared cores make single runs noisy).
    const bases: number[] = [];
    const ourTimes: number[] = [];
    for (let k = 0; k < 3; k++) {
      const [b] = await time(() =>
        engine.query(`COPY (SELECT * FROM read_csv('${csv}')) TO '${path.join(dir, 'baseline.parquet')}' (FORMAT parquet)`),
      );
      const [o, r] = await time(() =>
        engine.ingest({ sourceFile: csv, contentType: 'text/csv', key: `bench/${rows}.parquet` }),
      );
      if (r.rowCount !== rows) throw new Error(`row count ${r.rowCount} != ${rows}`);
      bases.push(b);
      ourTimes.push(o);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    const base = median(bases);
    const ours = median(ourTimes);
    line(`ingest csv ${short(rows)} rows`, rows / ours, 'rows/s', base / ours, '>= 0.9 (#16, for 1 GB: the 10M rows)');
    console.log(`  (duckdb COPY alone ${base.toFixed(2)} s, ingest with stats ${ours.toFixed(2)} s)`);
    await engine.store.delete('bench');
  }
  engine.close();
} finally {
  await cleanup();
}
