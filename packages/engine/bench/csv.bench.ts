/**
 * The dataset CSV download (#45, "CSV for people"): exact (the API's default, DuckDB's COPY of the stored rows)
 * and spreadsheet-safe (the same COPY of a select that prefixes formula-like text), against DuckDB's own COPY of
 * the Parquet file to CSV (what the download did before: the baseline), same process, alternating, median of
 * five. 1M rows x 8 columns (lat, lng, ts, category, 4 numerics) plus a text column a tenth of whose cells start
 * with "=". BENCH_ROWS=n shrinks it.
 */
import path from 'node:path';
import { Engine } from '../src';
import { BENCH_ROWS, line, short, tempDir, time } from './util';

const { dir, cleanup } = await tempDir('engine-bench-csv-');

async function drain(it: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const b of it) bytes += b.byteLength;
  return bytes;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const engine = await Engine.open({ dataDir: dir });
  const rows = BENCH_ROWS || 1_000_000;
  const file = path.join(dir, 'rows.parquet');
  await engine.query(`COPY (SELECT
      40 + (hash(i) % 100000) / 100000.0 AS lat, -74 + (hash(i + 1) % 100000) / 100000.0 AS lng,
      TIMESTAMP '2024-01-01' + INTERVAL (i % 31536000) SECOND AS ts, 'cat_' || (i % 12) AS category,
      i AS n1, (hash(i) % 1000) / 10.0 AS n2, i % 97 AS n3, sqrt(i) AS n4,
      CASE WHEN i % 10 = 0 THEN '=HYPERLINK("http://127.0.0.1/' || i || '","y")' ELSE 'note ' || i END AS note
    FROM range(${rows}) t(i)) TO '${file}' (FORMAT parquet)`);
  await engine.store.put('rows.parquet', file);
  const stored = await engine.store.localPath('rows.parquet');
  const out = path.join(dir, 'baseline.csv');
  const baseline = () => engine.query(`COPY (SELECT * FROM read_parquet('${stored}')) TO '${out}' (FORMAT csv, HEADER true)`);
  const exact = () => drain(engine.csvStream('rows.parquet'));
  const safe = () => drain(engine.csvStream('rows.parquet', { spreadsheet: 'safe' }));
  await exact(); // warm the file cache
  const runs = { baseline: [] as number[], exact: [] as number[], safe: [] as number[] };
  for (let k = 0; k < 5; k++) {
    runs.baseline.push((await time(baseline))[0]);
    runs.exact.push((await time(exact))[0]);
    runs.safe.push((await time(safe))[0]);
  }
  const b = median(runs.baseline);
  const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
  console.log(`# load ${load}; baseline DuckDB COPY to CSV ${b.toFixed(2)} s`);
  line(`dataset csv download exact ${short(rows)} rows x 9 cols`, rows / median(runs.exact), 'rows/s', b / median(runs.exact), '>= 0.9');
  line(`dataset csv download spreadsheet-safe ${short(rows)} rows x 9 cols`, rows / median(runs.safe), 'rows/s', b / median(runs.safe), '>= 0.8');
  engine.close();
} finally {
  await cleanup();
}
