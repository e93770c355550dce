// Datasets through the running server (issue 3): upload + ingest rows/s as a ratio to DuckDB's own
// COPY read_csv -> Parquet on the same file; GET /{id}/data as Arrow rows/s; the server's peak memory
// while a ~1 GB CSV is uploaded. The server runs as its own process so its memory is its own.
// BENCH_ROWS (default 1M) sizes the first file; BENCH_BIG_ROWS (default 10M) the second and the
// memory test (10M rows of this shape is ~1 GB); BENCH_BIG_ROWS=0 skips them.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { Readable } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import { RecordBatchReader } from 'apache-arrow';
import { writeCsv } from '../../engine/bench/util';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const BIG = Number(process.env.BENCH_BIG_ROWS ?? 10_000_000);
const ROOT = path.resolve(import.meta.dirname, '../../..');

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Peak resident memory (VmHWM) and current (VmRSS) of a process, in MB, from /proc. */
async function memoryOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

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

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-dsbench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'packages/server/src/main.ts')], {
    env: { ...process.env, PORT: String(port), STUDIO_DATA_DIR: path.join(dir, 'data'), STUDIO_SAMPLES: 'off', STUDIO_ADMIN_EMAIL: 'bench@studio.test', STUDIO_ADMIN_PASSWORD: 'bench-password', STUDIO_WEB_DIR: path.join(dir, 'no-web') },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  try {
    for (let i = 0; i < 300; i++) {
      if (await fetch(`${base}/v1/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const signIn = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    // tsx runs the server in a child node process: measure that one, the process that holds the data.
    const children = (await fs.readFile(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean);
    const serverPid = Number(children[0] ?? server.pid);

    const upload = async (file: string, name: string) => {
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/datasets/data?name=${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      const body = (await res.json()) as { item: { id: string; metadata: { rowCount: number } } };
      if (!res.ok) throw new Error(`upload failed: ${JSON.stringify(body)}`);
      return { seconds: (performance.now() - t0) / 1000, id: body.item.id, rows: body.item.metadata.rowCount };
    };

    for (const rows of [ROWS, BIG].filter((n) => n > 0)) {
      const csv = path.join(dir, `points-${rows}.csv`);
      await writeCsv(csv, rows);
      const mb = (await fs.stat(csv)).size / 1e6;
      const baseline = await duckdbBaseline(csv, dir);
      let peak = 0;
      const sampler = setInterval(() => memoryOf(serverPid).then((m) => (peak = Math.max(peak, m.rss)), () => {}), 100);
      const before = (await memoryOf(serverPid)).rss;
      const up = await upload(csv, `bench-${rows}`);
      clearInterval(sampler);
      const rate = up.rows / up.seconds;
      console.log(`datasets.upload_ingest ${rows} rows (${mb.toFixed(0)} MB CSV): ${Math.round(rate)} rows/s (ratio ${(baseline / up.seconds).toFixed(2)} vs baseline DuckDB COPY read_csv->parquet ${baseline.toFixed(2)} s; target >= 0.7)`);
      console.log(`datasets.server_peak_rss during ${mb.toFixed(0)} MB upload: ${peak.toFixed(0)} MB (ratio ${(peak / before).toFixed(2)} vs ${before.toFixed(0)} MB before; target < 500 MB)`);
      if (rows === ROWS) {
        // A plain node:http reader keeps the client's own cost (undici's body handling) out of the figure.
        const t0 = performance.now();
        const chunks = await new Promise<Buffer[]>((resolve, reject) => {
          const got: Buffer[] = [];
          http
            .get(`${base}/v1/datasets/${up.id}/data`, { headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.apache.arrow.stream' } }, (res) => {
              res.on('data', (c: Buffer) => got.push(c));
              res.on('end', () => resolve(got));
            })
            .on('error', reject);
        });
        const s = (performance.now() - t0) / 1000;
        const bytes = Buffer.concat(chunks);
        // Decoded after the clock stops: the figure is the server's streaming rate, checked for content.
        let count = 0;
        for await (const batch of await RecordBatchReader.from([bytes])) count += batch.numRows;
        const t1 = performance.now();
        const csvRes = await fetch(`${base}/v1/datasets/${up.id}/data`, { headers: { authorization: `Bearer ${token}` } });
        await csvRes.arrayBuffer();
        const csvS = (performance.now() - t1) / 1000;
        console.log(`datasets.data_arrow ${count} rows over HTTP: ${Math.round(count / s)} rows/s (ratio ${(csvS / s).toFixed(2)} vs baseline CSV download ${csvS.toFixed(2)} s; target >= 5000000 rows/s)`);
      }
      await fs.rm(csv);
    }
  } finally {
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 500));
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
