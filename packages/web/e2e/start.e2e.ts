import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start` as an operator runs it (scripts/start.mjs, after `npm run build`): a bad variable stops it with
 * the variable's name, `--print-config` shows the configuration without secrets, it runs the compiled server
 * with node, and SIGTERM stops the server it started — a request in flight finishes first, then its port
 * is free again and nothing keeps running. The README's deployment command is run as it is written.
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

const ENV = (env: Record<string, string>) => ({ ...process.env, STUDIO_DATA_DIR: dataDir, STUDIO_SAMPLES: 'off', STUDIO_SECRET: 'start-test-secret', ...env });

function start(env: Record<string, string>, args: string[] = []) {
  return watch(spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs'), ...args], { cwd: ROOT, env: ENV(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

function watch(child: ReturnType<typeof spawn>) {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
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
  }, 120_000); // one start (its poll allows 60 s) and a stop: 44 s under CI load

  it('runs the compiled server with node: no tsx, no TypeScript source loaded', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port) });
    await expect.poll(() => run.output(), { timeout: 60_000 }).toContain('Studio listening on');
    // Only the processes `npm start` began are looked at: other suites running beside this one start their own
    // servers from source (the crash-restart test runs tsx), and the machine's process list holds them too.
    const processes = execFileSync('ps', ['-eo', 'ppid=,pid=,args='], { encoding: 'utf8' })
      .split('\n').map((l) => l.trim().split(/\s+/)).filter((fields) => fields.length >= 3);
    const tree = new Set([String(run.child.pid)]);
    for (let grown = true; grown;) {
      grown = false;
      for (const [ppid, pid] of processes) if (tree.has(ppid!) && !tree.has(pid!)) { tree.add(pid!); grown = true; }
    }
    const started = processes.filter(([, pid]) => tree.has(pid!)).map((fields) => fields.slice(2).join(' '));
    const server = processes.find(([ppid]) => ppid === String(run.child.pid));
    expect(server?.slice(2).join(' ')).toMatch(/node packages\/server\/dist\/main\.js$/);
    expect(started.filter((args) => /\btsx\b|\.ts$|\.ts\s/.test(args))).toEqual([]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }, 120_000); // one start (its poll allows 60 s)

  it('builds a server bundle that imports no workspace source: the studio packages are inside it', () => {
    const dist = path.join(ROOT, 'packages', 'server', 'dist');
    const code = readdirSync(dist).filter((f) => f.endsWith('.js')).map((f) => readFileSync(path.join(dist, f), 'utf8')).join('\n');
    const imports = [...code.matchAll(/\bfrom\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? m[2]!);
    expect(imports.length).toBeGreaterThan(20);
    expect(imports.filter((i) => i.startsWith('@studio/') || i.endsWith('.ts') || i.includes('/src/'))).toEqual([]);
  });

  it('finishes an upload in flight on SIGTERM, refuses new connections meanwhile, and keeps the dataset', async () => {
    const port = await freePort();
    // A data folder of its own: the first administrator is made from these variables on its first start.
    const own = await mkdtemp(path.join(tmpdir(), 'studio-stop-'));
    const env = { PORT: String(port), STUDIO_DATA_DIR: own, STUDIO_ADMIN_EMAIL: 'stop@example.com', STUDIO_ADMIN_PASSWORD: 'stop-test-password-1' };
    const run = start(env);
    await expect.poll(() => run.output(), { timeout: 60_000 }).toContain('Studio listening on');
    const base = `http://127.0.0.1:${port}`;
    const signIn = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: env.STUDIO_ADMIN_EMAIL, password: env.STUDIO_ADMIN_PASSWORD }) });
    const { item: { accessToken } } = (await signIn.json()) as { item: { accessToken: string } };

    const upload = http.request(`${base}/v1/datasets/data?name=In%20flight`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'text/csv' } });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      upload.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      upload.on('error', reject);
    });
    upload.write('id,name\n');
    for (let i = 0; i < 500; i++) upload.write(`${i},first half ${i}\n`);
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGTERM');
    // Stopping: no new connection is taken while the upload is still arriving.
    await expect.poll(() => answers(port), { timeout: 15_000 }).toBe(false);
    for (let i = 500; i < 1000; i++) upload.write(`${i},second half ${i}\n`);
    upload.end();
    const { status, body } = await answered;
    expect(status).toBe(201);
    expect(await run.exited).toBe(0);

    // Started again on the same data: the dataset is there, whole.
    const again = start(env);
    await expect.poll(() => again.output(), { timeout: 60_000 }).toContain('Studio listening on');
    const id = (JSON.parse(body) as { item: { id: string } }).item.id;
    const token = ((await (await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: env.STUDIO_ADMIN_EMAIL, password: env.STUDIO_ADMIN_PASSWORD }) })).json()) as { item: { accessToken: string } }).item.accessToken;
    const dataset = (await (await fetch(`${base}/v1/datasets/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { item: { status: string; metadata: { rowCount: number } } };
    expect(dataset.item).toMatchObject({ status: 'ready', metadata: { rowCount: 1000 } });
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    await rm(own, { recursive: true, force: true });
  }, 180_000); // two starts (60 s each allowed), an upload and two stops: past 60 s under CI load

  it("runs the README's deployment command as written: the compiled server serves the API and the web app", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const command = /```sh\n# deploy: run\n(.+)\n```/.exec(readme)?.[1];
    expect(command).toBe('node_modules/.bin/node packages/server/dist/main.js');
    const port = await freePort();
    // `exec`: the shell becomes the server, so the signal below reaches it.
    const run = watch(spawn('sh', ['-c', `exec ${command!}`], { cwd: ROOT, env: ENV({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] }));
    await expect.poll(() => run.output(), { timeout: 60_000 }).toContain('Studio listening on');
    const health = (await (await fetch(`http://127.0.0.1:${port}/v1/health`)).json()) as { item: { status: string } };
    expect(health.item.status).toBe('ok');
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(await page.text()).toContain('<div id="root">');
    run.child.kill('SIGTERM');
    await run.exited;
    await expect.poll(() => answers(port), { timeout: 15_000 }).toBe(false);
  }, 120_000); // one start (its poll allows 60 s)
});
