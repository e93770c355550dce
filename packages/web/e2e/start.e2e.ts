import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` as an operator runs it (scripts/start.mjs, after the web app is built): a bad variable stops
 * it with the variable's name, `--print-config` shows the configuration without secrets, and SIGTERM stops
 * the server it started — its port is free again and nothing keeps running.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'studio-start-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** A port nobody listens on now. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.end(), resolve(true)));
    s.once('error', () => resolve(false));
  });

function start(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, STUDIO_DATA_DIR: dataDir, STUDIO_SAMPLES: 'off', STUDIO_SECRET: 'start-test-secret', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

describe('npm start', () => {
  it('refuses a bad variable by its name and what it expects, without a stack', async () => {
    const run = start({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('PORT must be a whole number from 0, got "eighty"');
    expect(run.output()).toContain('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"');
    expect(run.output()).not.toMatch(/\n\s+at /);
  });

  it('prints the effective configuration without its secrets', async () => {
    const run = start({ PORT: '9123', REDIS_URL: 'redis://user:hunter2@127.0.0.1:6379', STUDIO_ADMIN_PASSWORD: 'hunter2' }, ['--print-config']);
    expect(await run.exited).toBe(0);
    const config = JSON.parse(run.output().slice(run.output().indexOf('{'))) as Record<string, unknown>;
    expect(config).toMatchObject({ port: 9123, secret: '***', adminPassword: '***', redisUrl: 'redis://user:***@127.0.0.1:6379', trustProxy: false });
    expect(run.output()).not.toContain('hunter2');
    expect(run.output()).not.toContain('start-test-secret');
  });

  it('stops the server it started on SIGTERM: the port is free again', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port) });
    await expect.poll(() => run.output(), { timeout: 60_000 }).toContain('Studio listening on');
    expect(await answers(port)).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    await expect.poll(() => answers(port), { timeout: 15_000 }).toBe(false);
  });
});
