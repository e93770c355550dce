// A load run (#20): 200 connections for 60 s (BENCH_LOAD_SECONDS) of a mixed workload on two API nodes, each its own
// process running workers (`tsx src/main.ts`, as the multi-node tests start them), over one PostgreSQL catalog, Redis
// and one object store, as a deployment behind a load balancer runs. Half
// the connections go to each node. The mix is what a team working on maps does: lists, a dataset and its rows, a
// pipeline query, hex tiles and their metadata, map renames (writes), health. Rate-limited routes (sign-in, invitations,
// map passwords, connection tests) are left out, as the issue says. Prints the requests, the errors (must be 0: any
// non-2xx, socket error or timeout fails the run), p50/p99 latency per node and overall, and req/s as a ratio to
// GET /v1/health on the same two nodes measured first in the same process (the machine's own baseline).
// Traffic goes to 127.0.0.1 only.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { benchCatalog } from './catalog';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const CONNECTIONS = 200;
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type Result = autocannon.Result;
type Request = NonNullable<autocannon.Options['requests']>[number];

/** One autocannon run per node, at the same time, half the connections each. */
async function loadBoth(urls: string[], requestsOf: (node: number) => Request[], headers: Record<string, string>, seconds: number): Promise<Result[]> {
  return Promise.all(
    urls.map((url, node) => autocannon({ url, connections: CONNECTIONS / urls.length, duration: seconds, timeout: 30, headers, requests: requestsOf(node) })),
  );
}

const failures = (r: Result) => r.non2xx + r.errors + r.timeouts;

const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const ADMIN = { email: 'load@studio.test', password: 'load-bench-password' };

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** One API node as its own process on 127.0.0.1, ready when /v1/ready answers 200. */
async function startNode(name: string, dataDir: string, databaseUrl: string, keyFile: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['packages/server/src/main.ts'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      PORT: String(port), HOST: '127.0.0.1', STUDIO_DATA_DIR: dataDir, STUDIO_NODE_ID: name, DATABASE_URL: databaseUrl, REDIS_URL,
      STUDIO_REDIS_PREFIX: `load-bench-${process.pid}:`, STUDIO_SECRET: 'load-bench-secret', STUDIO_KEY_FILE: keyFile, STUDIO_SAMPLES: 'off',
      STUDIO_ADMIN_EMAIL: ADMIN.email, STUDIO_ADMIN_PASSWORD: ADMIN.password, STUDIO_WEB_DIR: path.join(dataDir, 'no-web'), LOG_LEVEL: 'warn',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ; ) {
    if ((await fetch(`${url}/v1/ready`).then((r) => r.status, () => 0)) === 200) return { child, url };
    if (child.exitCode !== null || Date.now() - started > 120_000) throw new Error(`Node ${name} did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-load-'));
  const dirs = [path.join(root, 'node-1'), path.join(root, 'node-2')];
  // One object store for both nodes: each node's objects folder is the same folder (S3 in a deployment).
  await fs.mkdir(path.join(root, 'objects'), { recursive: true });
  for (const d of dirs) {
    await fs.mkdir(d, { recursive: true });
    await fs.symlink(path.join(root, 'objects'), path.join(d, 'objects'));
  }
  const { databaseUrl, drop } = await benchCatalog('postgres');
  const nodes: ChildProcess[] = [];
  try {
    // The first node makes the catalog and the administrator; the second joins it.
    const urls: string[] = [];
    for (const [i, dataDir] of dirs.entries()) {
      const node = await startNode(`node-${i + 1}`, dataDir, databaseUrl!, path.join(root, 'master.key'));
      nodes.push(node.child);
      urls.push(node.url);
    }
    const signIn = await fetch(`${urls[0]}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    const auth = { authorization: `Bearer ${token}` };
    const api = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${urls[0]}${url}`, { ...init, headers: { ...auth, ...(init.headers ?? {}) } });
      if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ item: { id: string; status: string }; job?: { id: string } }>;
    };

    // What the mix reads: 20,000 points, their hex tiles, 50 maps.
    const lines = ['name,lat,lng,visits'];
    for (let i = 0; i < 20_000; i++) lines.push(`p${i},${(40.7 + (i % 200) / 1000).toFixed(4)},${(-74 + Math.floor(i / 200) / 1000).toFixed(4)},${i % 37}`);
    const dataset = (await api('/v1/datasets/data?name=Points', { method: 'POST', headers: { 'content-type': 'text/csv' }, body: lines.join('\n') })).item.id;
    const tiles = (await api('/v1/datasets/hextile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Cells', source: dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 9, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] }) })).item.id;
    for (let t = Date.now(); (await api(`/v1/datasets/${tiles}`)).item.status !== 'ready'; ) {
      if (Date.now() - t > 120_000) throw new Error('The hex tiles were not built in 2 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
    const maps: string[] = [];
    for (let i = 0; i < 50; i++) maps.push((await api('/v1/maps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `Map ${i}`, datasets: [dataset] }) })).item.id);
    // A tile of the finest zoom: the index lists each zoom's tiles with their cell counts.
    const index = (await (await fetch(`${urls[0]}/v1/tileset/${tiles}/tileset-index`, { headers: auth })).json()) as { item: { tiles: Record<string, Record<string, number>> } };
    const [z, byTile] = Object.entries(index.item.tiles).sort(([a], [b]) => Number(b) - Number(a))[0]!;
    const tilePath = `/v1/tileset/${tiles}/${z}/${Object.keys(byTile)[0]}`;

    const json = { 'content-type': 'application/json' };
    const mix = (node: number): Request[] => {
      let renames = 0;
      const requests: Request[] = [
        { method: 'GET', path: '/v1/maps?limit=20' },
        { method: 'GET', path: `/v1/datasets/${dataset}` },
        { method: 'GET', path: `/v1/datasets/${dataset}/preview?offset=0&limit=100` },
        { method: 'POST', path: '/v1/query?format=json', headers: json, body: JSON.stringify({ type: 'filter', expression: 'visits > 30', input: [{ type: 'dataset', uuid: dataset }] }) },
        { method: 'GET', path: `/v1/tileset/${tiles}/metadata` },
        { method: 'GET', path: tilePath },
        {
          method: 'PUT',
          path: `/v1/maps/${maps[node]}`,
          headers: json,
          // A new name on each save: every write really writes (and drops the lists both nodes keep).
          setupRequest: (req: Request) => ({ ...req, path: `/v1/maps/${maps[(node * 25 + renames) % maps.length]}`, body: JSON.stringify({ name: `Renamed ${node}-${renames++}` }) }),
        },
        { method: 'GET', path: '/v1/health' },
      ];
      return requests;
    };

    const health = await loadBoth(urls, () => [{ method: 'GET', path: '/v1/health' }], {}, Math.max(5, Math.round(SECONDS / 6)));
    const healthRate = health.reduce((n, r) => n + r.requests.average, 0);
    const runs = await loadBoth(urls, mix, auth, SECONDS);
    const total = runs.reduce((n, r) => n + r.requests.total, 0);
    const errors = runs.reduce((n, r) => n + failures(r), 0);
    const rate = runs.reduce((n, r) => n + r.requests.average, 0);
    runs.forEach((r, i) => {
      console.log(`load node ${i + 1}: ${r.requests.total} requests, ${failures(r)} errors (non-2xx ${r.non2xx}, socket ${r.errors}, timeouts ${r.timeouts}), latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
    });
    const p99 = Math.max(...runs.map((r) => r.latency.p99));
    console.log(`load: ${CONNECTIONS} connections for ${SECONDS} s on 2 nodes (PostgreSQL, Redis, one object store): ${total} requests, ${errors} errors, p99 ${p99} ms (the slower node's)`);
    console.log(`load: ${rate.toFixed(0)} req/s of the mix vs ${healthRate.toFixed(0)} req/s of /v1/health on the same nodes (ratio ${(rate / healthRate).toFixed(2)}); target: 0 errors`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    await Promise.all(nodes.map((child) => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    })));
    await drop();
    await fs.rm(root, { recursive: true, force: true });
  }
}

await main();
