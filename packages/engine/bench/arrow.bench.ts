/**
 * Arrow IPC streaming rows/s from DuckDB vectors, against a naive baseline (rows as JS objects ->
 * apache-arrow tableFromJSON -> IPC). BENCH_ROWS=n shrinks both cases to n rows.
 */
import path from 'node:path';
import { tableFromJSON, tableToIPC } from 'apache-arrow';
import { Engine } from '../src';
import { BENCH_ROWS, fmt, line, short, tempDir, time, writeCsv } from './util';

const { dir, cleanup } = await tempDir('engine-bench-arrow-');

async function drain(it: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const b of it) bytes += b.byteLength;
  return bytes;
}

try {
  const engine = await Engine.open({ dataDir: dir });
  const rows8 = BENCH_ROWS || 1_000_000;
  const rows5 = BENCH_ROWS || 5_000_000;
  const csv = path.join(dir, 'eight.csv');
  await writeCsv(csv, rows8);
  await engine.ingest({ sourceFile: csv, contentType: 'text/csv', key: 'eight.parquet' });
  await engine.query(
    `COPY (SELECT i AS id, i * 0.5 AS x, (i % 1000) * 0.01 AS y, 'k' || (i % 50) AS k, i % 7 = 0 AS b FROM range(${rows5}) t(i))
     TO '${path.join(dir, 'five.parquet')}' (FORMAT parquet)`,
  );
  await engine.store.put('five.parquet', path.join(dir, 'five.parquet'));

  const cases: [string, string, number][] = [
    [`arrow stream ${short(rows8)} rows x 8 cols (lat, lng, ts, category, 4 numerics)`, 'eight.parquet', rows8],
    [`arrow stream ${short(rows5)} rows x 5 cols`, 'five.parquet', rows5],
  ];
  for (const [name, key, rows] of cases) {
    await drain(engine.arrowStream(key)); // warm the file cache
    // Median of three: two cores shared with other work make single runs noisy.
    const runs: [number, number][] = [];
    for (let k = 0; k < 3; k++) runs.push(await time(() => drain(engine.arrowStream(key))));
    runs.sort((a, b) => a[0] - b[0]);
    const [ours, bytes] = runs[1]!;
    // Naive baseline on at most 1M rows (it holds every row as an object), scaled to rows/s.
    const naiveRows = Math.min(rows, 1_000_000);
    const [naive] = await time(async () => {
      const file = await engine.store.localPath(key);
      const objs = await engine.query(`SELECT * FROM read_parquet('${file}') LIMIT ${naiveRows}`);
      return tableToIPC(tableFromJSON(objs), 'stream').byteLength;
    });
    line(name, rows / ours, 'rows/s', rows / ours / (naiveRows / naive), '>= 5000000 rows/s');
    if (key === 'eight.parquet') {
      // #16's ratio: the stream against DuckDB materializing the same columns (a temp table of the file), same
      // process, median of three each. First measured 2026-11-26: 2.73 (target: twice that, 5.46).
      const file = await engine.store.localPath(key);
      const materializeRuns: number[] = [];
      for (let k = 0; k < 3; k++) {
        const [t] = await time(() =>
          engine.withConnection(async (c) => {
            await c.run(`CREATE OR REPLACE TEMP TABLE bench_materialized AS SELECT * FROM read_parquet('${file}')`);
            await c.run('DROP TABLE bench_materialized');
          }),
        );
        materializeRuns.push(t);
      }
      const materialize = materializeRuns.sort((a, b) => a - b)[1]!;
      console.log(`arrow stream vs DuckDB materializing the same columns: ratio ${(materialize / ours).toFixed(2)} (stream built from the Parquet ${ours.toFixed(2)} s, materialize ${materialize.toFixed(2)} s; first measured 2.73, #16 target 5.46)`);
      // What a map opening the dataset reads: the Arrow copy written after ingestion (GET /v1/datasets/{id}/data).
      await engine.keepArrowCopy(key);
      await drain(engine.datasetArrowStream(key));
      const served: number[] = [];
      for (let k = 0; k < 3; k++) served.push((await time(() => drain(engine.datasetArrowStream(key))))[0]);
      const copy = served.sort((a, b) => a - b)[1]!;
      console.log(`arrow stream as a dataset's data answer (its Arrow copy) vs DuckDB materializing: ratio ${(materialize / copy).toFixed(2)} (${copy.toFixed(3)} s, ${fmt(rows / copy)} rows/s; #16 target 5.46)`);
    }
    console.log(`  (${(bytes / 1e6).toFixed(0)} MB in ${ours.toFixed(2)} s; naive ${fmt(naiveRows / naive)} rows/s)`);
  }
  const [csvT, csvBytes] = await time(() => drain(engine.csvStream('eight.parquet')));
  console.log(`csv stream ${fmt(rows8)} rows: ${fmt(rows8 / csvT)} rows/s (${(csvBytes / 1e6).toFixed(0)} MB)`);
  engine.close();
} finally {
  await cleanup();
}
