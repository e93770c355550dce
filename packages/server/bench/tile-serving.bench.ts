// Tile serving (issue #17), over HTTP with 100 connections (autocannon), BENCH_SECONDS each: a hex tile
// (Arrow, its versioned URL, gzip as a browser asks) and a vector tile (MVT) as req/s ratios to the same server's GET /v1/health
// (target >= 0.8 each) and their p99 latency as ratios to /health's p99 (target <= 1.5); and, when nginx is
// installed (Debian's nginx-light), to nginx serving the same bytes from a file on a loopback port. On the
// embedded store, on PostgreSQL, and on two API nodes (PostgreSQL, Redis, S3). Every request is a fresh fetch (no If-None-Match): the server's own cost.
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { buildStudio } from '../src/app';
import { configFromEnv } from '../src/config';
import { createOrganization, createUser } from '../src/services/users';
import { benchCatalog } from './catalog';
import { discardBodies } from './load-client';
import { startCluster } from '../test/cluster';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 100;
const POINTS = Number(process.env.BENCH_ROWS ?? 200_000);
const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;

interface Figures {
  rps: number;
  p99: number;
}

/**
 * req/s and p99 of `url`, or of the same path on several nodes at once (the connections shared between them, as a
 * balancer spreads them): the nodes' req/s summed, the slower node's p99.
 */
async function measure(url: string | string[], headers: Record<string, string> = {}): Promise<Figures> {
  const urls = Array.isArray(url) ? url : [url];
  // The load runs in a worker thread of its own: on the server's event loop, reading 20 KB answers a thousand
  // times a second was the client's cost counted as the server's (nginx measured the same way had no such load).
  const run = (duration: number) => Promise.all(urls.map((u) => autocannon({ url: u, connections: CONNECTIONS / urls.length, duration, headers, workers: 1, setupClient: discardBodies })));
  // A short warm-up first: the first figure of a run must not pay for the JIT and the first reads.
  await run(2);
  const results = await run(SECONDS);
  for (const [i, r] of results.entries()) if (r.non2xx > 0) throw new Error(`${urls[i]}: ${r.non2xx} non-2xx answers`);
  return { rps: results.reduce((n, r) => n + r.requests.average, 0), p99: Math.max(...results.map((r) => r.latency.p99)) };
}

/** An answer's bytes as sent (fetch would unpack gzip). */
function rawBytes(url: string, headers: Record<string, string>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    }).on('error', reject);
  });
}

/** nginx serving `dir` on a loopback port, or null when it is not installed here. */
async function startNginx(dir: string): Promise<{ url: string; stop: () => void } | null> {
  const bin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => spawnSync('test', ['-x', p]).status === 0);
  if (!bin) return null;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const conf = path.join(dir, 'nginx.conf');
  await fs.writeFile(conf, `daemon off; worker_processes 2; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${port}; root ${dir}; location / { default_type application/octet-stream; } } }`);
  const child = spawn(bin, ['-c', conf, '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  return null;
}

/**
 * Signs in at `address`, uploads POINTS points, builds their hex tiles and vector tiles as jobs, and answers the paths
 * of one busy tile of each with the headers a browser sends.
 */
async function prepareTiles(address: string, credentials = { email: 'bench@studio.test', password: 'bench-password' }) {
  const ask = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${address}${url}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/csv' : 'application/json' }) }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res;
  };
  const token = ((await (await ask('POST', '/v1/auth/sign-in', credentials)).json()) as { item: { accessToken: string } }).item.accessToken;
  const auth = { authorization: `Bearer ${token}` };
  const lines = ['lat,lng,amount'];
  for (let i = 0; i < POINTS; i++) lines.push(`${(40.6 + ((i * 7919) % 100_000) / 333_333).toFixed(6)},${(-74.1 + ((i * 104_729) % 100_000) / 333_333).toFixed(6)},${i % 100}`);
  const source = ((await (await ask('POST', '/v1/datasets/data?name=points', lines.join('\n'), auth)).json()) as { item: { id: string } }).item;
  const untilDone = async (res: Response) => {
    const { item, job } = (await res.json()) as { item: { id: string }; job: { id: string } };
    for (;;) {
      const status = ((await (await ask('GET', `/v1/jobs/${job.id}`, undefined, auth)).json()) as { item: { status: string } }).item.status;
      if (status === 'succeeded') return item.id;
      if (status !== 'queued' && status !== 'running') throw new Error(`job ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const hexId = await untilDone(await ask('POST', '/v1/datasets/hextile', { source: source.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, coarsestResolution: 6, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }, { targetColumn: 'n', aggMethod: 'count' }] }, auth));
  const vectorId = await untilDone(await ask('POST', '/v1/datasets/vectortile', { datasetId: source.id }, auth));

  // The busiest tile of the hex tileset at its coarsest zoom, through its versioned URL.
  const meta = ((await (await ask('GET', `/v1/tileset/${hexId}/metadata`, undefined, auth)).json()) as { item: { tileUrl: string; minZoom: number } }).item;
  const index = ((await (await ask('GET', `/v1/tileset/${hexId}/tileset-index`, undefined, auth)).json()) as { item: { tiles: Record<string, Record<string, number>> } }).item;
  const [busiest] = Object.entries(index.tiles[meta.minZoom]!).sort((a, b) => b[1] - a[1])[0]!;
  const hexPath = meta.tileUrl.replace('{z}', String(meta.minZoom)).replace('{hex}', busiest);
  const tileJson = (await (await ask('GET', `/v1/datasets/${vectorId}/tiles.json`, undefined, auth)).json()) as { tiles: string[] };
  // The tile over the middle of the points at zoom 10 (a city block's worth of features).
  const n = 2 ** 10;
  const [lat, lng] = [40.75, -73.95];
  const x = Math.floor(((lng + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
  const vectorUrl = new URL(tileJson.tiles[0]!.replace('{z}/{x}/{y}', `10/${x}/${y}`), address);
  const vectorPath = `${vectorUrl.pathname}${vectorUrl.search}`;
  // As a browser asks: gzip accepted, so stored gzip bytes go out as they are (vector tiles as the tiler wrote
  // them, hex tiles as compressed once per node).
  const gzipped = { ...auth, 'accept-encoding': 'gzip' };
  const hexHeaders = { ...gzipped, accept: 'application/vnd.apache.arrow.stream' };
  return { hexPath, hexHeaders, vectorPath, gzipped };
}

async function benchStore(kind: 'pglite' | 'postgres') {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'tile-bench-'));
  const { databaseUrl, drop } = await benchCatalog(kind);
  const studio = await buildStudio({ ...configFromEnv({}), dataDir, databaseUrl, secret: 'bench', webDir: null }, { inMemoryCatalog: true });
  let nginx: Awaited<ReturnType<typeof startNginx>> = null;
  try {
    const org = await createOrganization(studio.services.db, 'Bench');
    await createUser(studio.services.db, { email: 'bench@studio.test', password: 'bench-password', organizationId: org.id, role: 'maker' });
    const address = await studio.app.listen({ port: 0, host: '127.0.0.1' });
    const { hexPath, hexHeaders, vectorPath, gzipped } = await prepareTiles(address);
    const hexUrl = `${address}${hexPath}`;
    const vectorUrl = `${address}${vectorPath}`;
    const hexBytes = await rawBytes(hexUrl, hexHeaders);
    const vectorBytes = await rawBytes(vectorUrl, gzipped);

    const health = await measure(`${address}/v1/health`);
    const hex = await measure(hexUrl, hexHeaders);
    const vector = await measure(vectorUrl, gzipped);
    const line = (name: string, f: Figures, bytes: number) =>
      `tiles ${kind} ${name} (${bytes} bytes): ${f.rps.toFixed(0)} req/s, p99 ${f.p99} ms (ratio ${(f.rps / health.rps).toFixed(2)} vs /v1/health req/s, target >= 0.8; p99 ratio ${(f.p99 / Math.max(1, health.p99)).toFixed(2)}, target <= 1.5; ${load()})`;
    console.log(`tiles ${kind} GET /v1/health: ${health.rps.toFixed(0)} req/s, p99 ${health.p99} ms (baseline; ${CONNECTIONS} connections, ${SECONDS} s)`);
    console.log(line('hex tile, Arrow gzip', hex, hexBytes.length));
    console.log(line('vector tile, MVT gzip', vector, vectorBytes.length));

    // Readable by nginx's workers (they drop root for nobody).
    const files = path.join(dataDir, 'static');
    await fs.mkdir(files);
    await fs.chmod(dataDir, 0o755);
    await fs.chmod(files, 0o755);
    await fs.writeFile(path.join(files, 'hex.arrow.gz'), hexBytes);
    await fs.writeFile(path.join(files, 'vector.mvt'), vectorBytes);
    nginx = await startNginx(files);
    if (!nginx) {
      console.log(`tiles ${kind} nginx: not installed on this machine (apt-get install nginx-light): the ratios to a static file server are not measured`);
    } else {
      for (const [name, file, f] of [['hex tile (gzip)', 'hex.arrow.gz', hex], ['vector tile (gzip)', 'vector.mvt', vector]] as const) {
        const fromFile = await measure(`${nginx.url}/${file}`);
        console.log(`tiles ${kind} nginx serving the same ${name} bytes from a file: ${fromFile.rps.toFixed(0)} req/s, p99 ${fromFile.p99} ms (studio/nginx req/s ratio ${(f.rps / fromFile.rps).toFixed(2)}; printed)`);
      }
    }
  } finally {
    nginx?.stop();
    await studio.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await drop();
  }
}

/**
 * Two API nodes on PostgreSQL, Redis and S3 (test/cluster.ts, as the load run starts them): the connections split
 * between the nodes as a balancer spreads them, each tile's req/s summed over both as a ratio to /v1/health summed
 * the same way, and the slower node's p99 against /health's.
 */
async function benchTwoNodes() {
  const cluster = await startCluster('tilebench');
  try {
    const urls = [(await cluster.start('node-1')).base, (await cluster.start('node-2')).base];
    const { hexPath, hexHeaders, vectorPath, gzipped } = await prepareTiles(urls[0]!, cluster.admin);
    // Each node reads the tiles through its own cache of the object store: one read each before the runs.
    for (const url of urls) {
      await rawBytes(`${url}${hexPath}`, hexHeaders);
      await rawBytes(`${url}${vectorPath}`, gzipped);
    }
    const health = await measure(urls.map((u) => `${u}/v1/health`));
    const hex = await measure(urls.map((u) => `${u}${hexPath}`), hexHeaders);
    const vector = await measure(urls.map((u) => `${u}${vectorPath}`), gzipped);
    console.log(`tiles two nodes (PostgreSQL, Redis, S3) GET /v1/health: ${health.rps.toFixed(0)} req/s, p99 ${health.p99} ms (baseline; ${CONNECTIONS} connections over both, ${SECONDS} s)`);
    for (const [name, f] of [['hex tile, Arrow gzip', hex], ['vector tile, MVT gzip', vector]] as const) {
      console.log(`tiles two nodes ${name}: ${f.rps.toFixed(0)} req/s, p99 ${f.p99} ms (ratio ${(f.rps / health.rps).toFixed(2)} vs /v1/health req/s, target >= 0.8; p99 ratio ${(f.p99 / Math.max(1, health.p99)).toFixed(2)}, target <= 1.5; ${load()})`);
    }
  } finally {
    await cluster.stop();
  }
}

for (const kind of ['pglite', 'postgres'] as const) await benchStore(kind);
await benchTwoNodes();
