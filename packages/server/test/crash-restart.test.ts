import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, serverBundle } from './cluster';

/**
 * #11 item 7 as it happens: a server killed with SIGKILL in the middle of an upload, started again on the
 * same data directory. Its own interrupted ingestion fails at once and the dataset takes a new upload.
 */
const repoRoot = path.resolve(__dirname, '../../..');
const ADMIN = { email: 'crash@studio.test', password: 'crash-test-password' };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-crash-'));
let server: ChildProcess | null = null;
/** The server as a deployment runs it: the esbuild bundle, run by node. */
let bundle: Awaited<ReturnType<typeof serverBundle>>;
beforeAll(async () => {
  bundle = await serverBundle('crash');
});

async function start(): Promise<string> {
  const port = await freePort();
  server = spawn(process.execPath, [bundle.main], {
    cwd: repoRoot,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      PORT: String(port), HOST: '127.0.0.1', STUDIO_DATA_DIR: dataDir, STUDIO_SAMPLES: 'off', DATABASE_URL: '',
      STUDIO_ADMIN_EMAIL: ADMIN.email, STUDIO_ADMIN_PASSWORD: ADMIN.password, STUDIO_WEB_DIR: path.join(dataDir, 'no-web'), LOG_LEVEL: 'warn',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await expect.poll(() => fetch(`${base}/v1/openapi.json`).then((r) => r.status, () => 0), { timeout: 60_000, interval: 200 }).toBe(200);
  return base;
}

function killHard(): Promise<void> {
  const child = server!;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  process.kill(-child.pid!, 'SIGKILL');
  return exited;
}

afterAll(async () => {
  if (server && server.exitCode === null) await killHard().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
  bundle?.remove();
});

describe('a server killed during an upload', () => {
  it('fails that ingestion at its restart, and the dataset takes a new upload at once', async () => {
    let base = await start();
    const signIn = async () => {
      const res = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
      return `Bearer ${(await res.json()).item.accessToken}`;
    };
    let auth = await signIn();
    const created = await fetch(`${base}/v1/datasets`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Cut', contentType: 'text/csv' }) });
    const id = (await created.json()).item.id as string;
    const status = async () => (await (await fetch(`${base}/v1/datasets/${id}`, { headers: { authorization: auth } })).json()).item.status;

    // An upload that has begun and will never end: the server is killed while it arrives.
    const url = new URL(`${base}/v1/datasets/${id}/data`);
    const upload = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'PUT', headers: { authorization: auth, 'content-type': 'text/csv' } });
    upload.on('error', () => undefined);
    upload.write('a,b\n1,2\n');
    await expect.poll(status, { timeout: 20_000, interval: 100 }).toBe('pending');
    await killHard();
    upload.destroy();

    base = await start();
    auth = await signIn();
    expect(await status()).toBe('error');
    const again = await fetch(`${base}/v1/datasets/${id}/data`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'text/csv' }, body: 'a,b\n3,4\n5,6\n' });
    expect(again.status).toBe(200);
    expect(await status()).toBe('ready');
  }, 240_000); // two servers started from source, each up to 60 s to answer when the browser lane shares the cores
});
