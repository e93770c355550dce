// Datasets through the running server (issue 3): upload + ingest rows/s as a ratio to DuckDB's own
// COPY read_csv -> Parquet on the same file; GET /{id}/data as Arrow rows/s; the server's peak memory
// while a ~1 GB CSV is uploaded. The server runs as its own process, started the way a user starts it,
// so its memory is its own and the client's work is not on the server's event loop.
// BENCH_ROWS (default 1M) sizes the first file; BENCH_BIG_ROWS (default 10M, ~0.8 GB) the second;
// BENCH_MEMORY_ROWS (default 12.5M rows, ~1.0 GB) the file of the memory test; 0 skips one. Each upload
// goes to a server started for it, so a figure never carries the memory of the work before it (a server
// that has served reads also holds DuckDB's page cache, bounded by STUDIO_DUCKDB_MEMORY).
// BENCH_STORES picks the catalog stores (default "pglite,postgres"; postgres is skipped when no server answers).
import http from 'node:http';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import { RecordBatchReader } from 'apache-arrow';
import { writeCsv } from '../../engine/bench/util';
import { benchCatalog } from './catalog';
import { serverBundle } from '../test/cluster';
import { peakDuring, startServer } from './server-process';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const BIG = Number(process.env.BENCH_BIG_ROWS ?? 10_000_000);
const MEMORY_ROWS = Number(process.env.BENCH_MEMORY_ROWS ?? 12_500_000);
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').filter(Boolean);
const PG_URL = process.env.STUDIO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;

async function duckdbBaseline(csv: string, dir: string): Promise<number> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const t0 = performance.now();
  await c.run(`COPY (SELECT * FROM read_csv('${csv}')) TO '${path.join(dir, 'baseline.parquet')}' (FORMAT parquet)`);
  const s = (performance.now() - t0) / 1000;
  c.closeSync();
  db.closeSync();
  return s;
}

/** A new database on the local PostgreSQL, or null when none answers. */
async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  try {
    const { databaseUrl, drop } = await benchCatalog('postgres');
    return { url: databaseUrl!, drop };
  } catch {
    return null;
  }
}

type Server = Awaited<ReturnType<typeof startServer>>;

async function upload(s: Server, file: string, name: string, query = '') {
  const t0 = performance.now();
  const res = await fetch(`${s.base}/v1/datasets/data?name=${name}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'text/csv' },
    body: Readable.toWeb(createReadStream(file)) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const body = (await res.json()) as { item: { id: string; metadata: { rowCount: number } } };
  if (!res.ok) throw new Error(`upload failed: ${JSON.stringify(body)}`);
  return { seconds: (performance.now() - t0) / 1000, id: body.item.id, rows: body.item.metadata.rowCount };
}

/** GET /{id}/data as Arrow with a plain node:http reader (undici's body handling stays out of the figure). */
async function getArrow(s: Server, id: string): Promise<{ seconds: number; bytes: Buffer }> {
  const t0 = performance.now();
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const got: Buffer[] = [];
    http
      .get(`${s.base}/v1/datasets/${id}/data`, { headers: { authorization: `Bearer ${s.token}`, accept: 'application/vnd.apache.arrow.stream' } }, (res) => {
        res.on('data', (c: Buffer) => got.push(c));
        res.on('end', () => resolve(got));
      })
      .on('error', reject);
  });
  return { seconds: (performance.now() - t0) / 1000, bytes: Buffer.concat(chunks) };
}

/**
 * Waits until the dataset's Arrow copy, written after ingestion, is in the server's object store (the bench
 * reads the store folder: the API does not expose storage keys). Answers the seconds waited.
 */
async function waitForCopy(s: Server, id: string): Promise<number> {
  const folder = path.join(s.dataDir, 'objects', 'datasets', id);
  const t0 = performance.now();
  for (;;) {
    const names = await fs.readdir(folder).catch(() => [] as string[]);
    if (names.some((n) => n.endsWith('.arrows'))) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > 120_000) throw new Error('no Arrow copy 120 s after ingestion');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rowsOf = async (bytes: Buffer) => {
  let count = 0;
  for await (const batch of await RecordBatchReader.from([bytes])) count += batch.numRows;
  return count;
};

/**
 * GET /{id}/data as Arrow: the first read after ingestion (the Arrow copy written once the dataset was
 * ready), the median of three later reads (as each map opening the dataset makes; two shared cores make
 * single runs noisy) and, separately, the first read of the same file uploaded with skipArrow=true (built
 * from the Parquet, as every first read was before the copy moved to ingestion). Baseline: the CSV download.
 */
async function arrowOverHttp(s: Server, id: string, csv: string, label: string, uploadRate: (what: string, up: Awaited<ReturnType<typeof upload>>) => void) {
  const waited = await waitForCopy(s, id);
  const first = await getArrow(s, id);
  const runs = [await getArrow(s, id), await getArrow(s, id), await getArrow(s, id)];
  const skipped = await upload(s, csv, 'bench-skip-arrow', '&skipArrow=true');
  const fromParquet = await getArrow(s, skipped.id);
  uploadRate('with skipArrow=true (no Arrow copy written after ready)', skipped);
  // Decoded after the clock stops: the figures are the server's streaming rate, checked for content.
  const count = await rowsOf(first.bytes);
  if ((await rowsOf(runs[2]!.bytes)) !== count) throw new Error('a repeat read answered other rows');
  if (Buffer.compare(fromParquet.bytes, first.bytes) !== 0) throw new Error('the Parquet path answered other bytes than the Arrow copy');
  const t1 = performance.now();
  const csvRes = await fetch(`${s.base}/v1/datasets/${id}/data`, { headers: { authorization: `Bearer ${s.token}` } });
  await csvRes.arrayBuffer();
  const csvS = (performance.now() - t1) / 1000;
  const steady = median(runs.map((r) => r.seconds));
  const report = (what: string, seconds: number) =>
    console.log(`datasets.data_arrow [${label}] ${count} rows over HTTP, ${what}: ${Math.round(count / seconds)} rows/s (ratio ${(csvS / seconds).toFixed(2)} vs baseline CSV download ${csvS.toFixed(2)} s; ${load()}; target >= 5000000 rows/s)`);
  console.log(`datasets.arrow_copy_after_ready [${label}] ${count} rows: copy in the store ${waited.toFixed(2)} s after the upload answered (${load()})`);
  report('first read after ingestion (the Arrow copy written at ingestion)', first.seconds);
  report('repeat reads (the Arrow copy, median of 3)', steady);
  report('first read of an upload with skipArrow=true (built from Parquet)', fromParquet.seconds);
}

type BenchFile = { csv: string; rows: number; mb: number; purpose: 'ingest' | 'memory' };

async function benchStore(main: string, store: string, files: BenchFile[], dir: string) {
  let database: Awaited<ReturnType<typeof createDatabase>> = null;
  if (store === 'postgres') {
    database = await createDatabase();
    if (!database) return console.log(`datasets [postgres]: skipped (no PostgreSQL at ${PG_URL})`);
  }
  try {
    for (const { csv, rows, mb, purpose } of files) {
      const storeDir = await fs.mkdtemp(path.join(dir, `${store}-`));
      const server = await startServer(main, storeDir, database?.url ?? null);
      try {
        const { result: up, before, peak } = await peakDuring(server.pid, () => upload(server, csv, `bench-${rows}`));
        const memory = `datasets.server_peak_rss [${store}] during ${mb.toFixed(0)} MB upload: ${peak.toFixed(0)} MB (ratio ${(peak / before).toFixed(2)} vs ${before.toFixed(0)} MB before; ${load()}`;
        if (purpose === 'memory') {
          console.log(`${memory}; target < 500 MB)`);
          continue;
        }
        const baseline = await duckdbBaseline(csv, dir);
        const uploadRate = (what: string, u: typeof up) =>
          console.log(`datasets.upload_ingest [${store}] ${rows} rows (${mb.toFixed(0)} MB CSV)${what ? ` ${what}` : ''}: ${Math.round(u.rows / u.seconds)} rows/s (ratio ${(baseline / u.seconds).toFixed(2)} vs baseline DuckDB COPY read_csv->parquet ${baseline.toFixed(2)} s; ${load()}; end to end: sending the file over HTTP, then ingesting it; the ingest-vs-COPY target (>= 0.7) is packages/engine/bench/ingest.bench.ts)`);
        uploadRate('', up);
        console.log(`${memory})`);
        if (rows === ROWS) await arrowOverHttp(server, up.id, csv, store, uploadRate);
      } finally {
        await server.stop();
      }
    }
  } finally {
    await database?.drop();
  }
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-dsbench-'));
  // Built once for every server the bench starts.
  const bundle = await serverBundle('datasets-bench');
  try {
    const files: BenchFile[] = [];
    const sizes: [number, BenchFile['purpose']][] = [[ROWS, 'ingest'], [BIG, 'ingest'], [MEMORY_ROWS, 'memory']];
    for (const [rows, purpose] of sizes.filter(([n]) => n > 0)) {
      const csv = path.join(dir, `points-${rows}.csv`);
      if (!files.some((f) => f.csv === csv)) await writeCsv(csv, rows);
      files.push({ csv, rows, mb: (await fs.stat(csv)).size / 1e6, purpose });
    }
    for (const store of STORES) await benchStore(bundle.main, store, files, dir);
  } finally {
    bundle.remove();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
