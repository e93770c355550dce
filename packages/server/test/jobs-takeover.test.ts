import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_ADMIN_URL } from './harness';

/**
 * #16's acceptance as it happens in production: two API nodes on one PostgreSQL catalog and one object store
 * (here a folder both nodes mount), hex tiles of a 1M-point dataset built as a job. The node running the job
 * is killed with SIGKILL in the middle; the other node finishes the job, and the tiles serve.
 */
const repoRoot = path.resolve(__dirname, '../../..');
const ADMIN = { email: 'takeover@studio.test', password: 'takeover-test-password' };
const POINTS = 1_000_000;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-takeover-'));
const dbName = `studio_takeover_${randomBytes(5).toString('hex')}`;
const databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
const nodes = new Map<string, { child: ChildProcess; base: string }>();

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** A node with its own data folder (temp files, DuckDB, node id) whose `objects` is the shared store. */
async function startNode(name: string): Promise<string> {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.symlinkSync(path.join(root, 'objects'), path.join(dataDir, 'objects'));
  const port = await freePort();
  const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['packages/server/src/main.ts'], {
    cwd: repoRoot,
    detached: true,
    // The node's log, shown when the test fails.
    stdio: ['ignore', fs.openSync(path.join(root, `${name}.log`), 'a'), fs.openSync(path.join(root, `${name}.log`), 'a')],
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      PORT: String(port), HOST: '127.0.0.1', STUDIO_DATA_DIR: dataDir, STUDIO_NODE_ID: name, DATABASE_URL: databaseUrl,
      STUDIO_SECRET: 'takeover-secret', STUDIO_SAMPLES: 'off', STUDIO_ADMIN_EMAIL: ADMIN.email, STUDIO_ADMIN_PASSWORD: ADMIN.password,
      STUDIO_WEB_DIR: path.join(dataDir, 'no-web'), LOG_LEVEL: 'warn', REDIS_URL: '',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  nodes.set(name, { child, base });
  await expect.poll(() => fetch(`${base}/v1/ready`).then((r) => r.status, () => 0), { timeout: 90_000, interval: 250 }).toBe(200);
  return base;
}

function kill(name: string): Promise<void> {
  const { child } = nodes.get(name)!;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  process.kill(-child.pid!, 'SIGKILL');
  return exited;
}

/** 1M points over San Francisco, a day and a month apart, as CSV. */
function pointsCsv(file: string): void {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, 'lat,lng,amount,ts\n');
  const chunk: string[] = [];
  for (let i = 0; i < POINTS; i++) {
    const lat = 37.70 + ((i * 7919) % 100_000) / 500_000;
    const lng = -122.50 + ((i * 104_729) % 100_000) / 400_000;
    chunk.push(`${lat.toFixed(6)},${lng.toFixed(6)},${i % 97},2026-0${1 + (i % 9)}-${10 + (i % 19)}T00:00:00\n`);
    if (chunk.length === 50_000) fs.writeSync(out, chunk.splice(0).join(''));
  }
  fs.writeSync(out, chunk.join(''));
  fs.closeSync(out);
}

afterAll(async () => {
  for (const [name, { child }] of nodes) if (child.exitCode === null && child.signalCode === null) await kill(name).catch(() => undefined);
  await adminQuery(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a node killed while it builds hex tiles (PostgreSQL, two nodes)', () => {
  it('answers the build at once, shows progress, and the other node finishes the job after the kill', { timeout: 480_000 }, async () => {
    await adminQuery(`create database ${dbName}`);
    fs.mkdirSync(path.join(root, 'objects'));
    const a = await startNode('node-a');
    const b = await startNode('node-b');
    const signIn = await fetch(`${a}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const auth = { authorization: `Bearer ${(await signIn.json()).item.accessToken}` };

    const csv = path.join(root, 'points.csv');
    pointsCsv(csv);
    const up = await fetch(`${a}/v1/datasets/data?name=points`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: fs.readFileSync(csv) });
    expect(up.status).toBe(201);
    const source = (await up.json()).item;
    expect(source.metadata.rowCount).toBe(POINTS);

    const asked = Date.now();
    const build = await fetch(`${a}/v1/datasets/hextile`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Tiles', source: source.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts', timeIntervals: ['D', 'M'],
        finestResolution: 10, coarsestResolution: 5, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }, { targetColumn: 'n', aggMethod: 'count' }],
      }),
    });
    const answeredMs = Date.now() - asked;
    expect(build.status).toBe(201);
    const { item, job } = await build.json();
    expect(item.status).toBe('pending');
    // At once: the checks and the records, not the build (which takes tens of seconds here).
    expect(answeredMs).toBeLessThan(10_000);

    // Which node took it, and its progress rising past the first step.
    const catalog = new pg.Client({ connectionString: databaseUrl });
    await catalog.connect();
    try {
      const running = async () => (await catalog.query('select status, node_id, percent, attempt from jobs where id = $1', [job.id])).rows[0];
      await expect.poll(async () => { const r = await running(); return r.status === 'running' && Number(r.percent) > 0; }, { timeout: 120_000, interval: 200 }).toBe(true);
      const first = await running();
      expect(Number(first.percent)).toBeLessThan(100);
      const victim = first.node_id as string;
      const survivor = victim === 'node-a' ? 'node-b' : 'node-a';
      const survivorBase = survivor === 'node-a' ? a : b;
      await kill(victim);

      // The survivor finds the job's heartbeat gone, retries it and finishes it.
      const jobNow = async () => (await (await fetch(`${survivorBase}/v1/jobs/${job.id}`, { headers: auth })).json()).item;
      await expect.poll(async () => ['succeeded', 'failed', 'cancelled'].includes((await jobNow()).status), { timeout: 240_000, interval: 500 }).toBe(true);
      const ended = await jobNow();
      const logs = ['node-a', 'node-b'].map((n) => `${n}: ${fs.readFileSync(path.join(root, `${n}.log`), 'utf8').slice(-3000)}`).join('\n');
      expect(ended, `${JSON.stringify(ended)}\n${logs}`).toMatchObject({ status: 'succeeded', percent: 100 });
      const done = await running();
      expect(done.node_id).toBe(survivor);
      expect(done.attempt).toBeGreaterThanOrEqual(1);
      const ready = (await (await fetch(`${survivorBase}/v1/datasets/${item.id}`, { headers: auth })).json()).item;
      expect(ready.status).toBe('ready');
      const index = (await (await fetch(`${survivorBase}/v1/tileset/${item.id}/tileset-index`, { headers: auth })).json()).item;
      const tile = Object.keys(index.tiles[1])[0]!;
      const t = await fetch(`${survivorBase}/v1/tileset/${item.id}/1/${tile}`, { headers: auth });
      expect(t.status).toBe(200);
      expect((await t.arrayBuffer()).byteLength).toBeGreaterThan(0);
    } finally {
      await catalog.end();
    }
  });
});
