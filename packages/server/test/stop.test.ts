import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from './cluster';

/**
 * #47: a stop an operator can trust. `npm start` (the real script: npm, scripts/start.mjs, the compiled server, its
 * worker processes) and the README's deployment command are started in a session of their own, as a service manager
 * starts them, and signalled as it does: everything of that session is gone within 10 s and the port is free, even
 * with a request in flight that never ends. Builds are made first when stale (scripts/builds.mjs serializes builds,
 * so this and `npm test`'s build lane do not write the same folders at once).
 */
const ROOT = path.resolve(__dirname, '../../..');

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/v1/health`).then(() => true, () => false);

const ENV = (env: Record<string, string>) => ({ ...process.env, STUDIO_SAMPLES: 'off', STUDIO_SECRET: 'stop-test-secret', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env });

function watch(child: ReturnType<typeof spawn>) {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** The README's command that runs the studio (its "deploy: run" block). */
function deployCommand(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return /```sh\n# deploy: run\n(.+)\n```/.exec(readme)?.[1] ?? 'the README has no "deploy: run" block';
}

/** The live processes of a session, read from /proc (field 6 of /proc/<pid>/stat; zombies are already gone). */
function processesOf(session: number): { pid: number; args: string }[] {
  const found: { pid: number; args: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After the command's name (in parentheses, which may hold spaces): state, ppid, pgrp, session.
      const [state, , , sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(sid) !== session || state === 'Z') continue;
      found.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // ended while being read
    }
  }
  return found;
}

/** Clean-up after a failed assertion: whatever the session still runs. */
function killSession(session: number) {
  for (const { pid } of processesOf(session)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** An upload begun as the given user and never finished: a request in flight for as long as the server lets it be. */
async function hangingUpload(port: number, admin: { email: string; password: string }): Promise<http.ClientRequest> {
  const base = `http://127.0.0.1:${port}`;
  const signIn = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
  const { item: { accessToken } } = (await signIn.json()) as { item: { accessToken: string } };
  const upload = http.request(`${base}/v1/datasets/data?name=Never%20ends`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'text/csv' } });
  upload.on('error', () => undefined); // cut by the stop
  upload.write('id,name\n1,first\n');
  // The server has the request (its dataset is pending) before the signal is sent.
  await expect.poll(async () => {
    const list = (await (await fetch(`${base}/v1/datasets`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { items: { name: string }[] };
    return list.items.some((d) => d.name === 'Never ends');
  }, { timeout: 15_000 }).toBe(true);
  return upload;
}

describe('stopping the studio', () => {
  it.each([
    ['`npm start`, sent SIGTERM', ['npm', 'start'], 'SIGTERM'],
    ['`npm start`, sent SIGINT', ['npm', 'start'], 'SIGINT'],
    ["the README's deployment command, sent SIGTERM", ['sh', '-c', `exec ${deployCommand()}`], 'SIGTERM'],
  ] as const)('%s with an upload that never ends: exits 0, and within 10 s nothing it started runs and the port is free', async (_name, [cmd, ...args], signal) => {
    const port = await freePort();
    const own = await mkdtemp(path.join(tmpdir(), 'studio-stop-'));
    const admin = { email: 'stop@example.com', password: 'stop-test-password-1' };
    // A session of its own (detached: setsid), so whatever it starts, however deep, carries its session id.
    const run = watch(spawn(cmd, args, { cwd: ROOT, detached: true, env: ENV({ PORT: String(port), STUDIO_DATA_DIR: own, STUDIO_ADMIN_EMAIL: admin.email, STUDIO_ADMIN_PASSWORD: admin.password }), stdio: ['ignore', 'pipe', 'pipe'] }));
    const session = run.child.pid!;
    try {
      await expect.poll(() => run.output(), { timeout: 180_000 }).toContain('Studio listening on');
      expect(processesOf(session).some((p) => p.args.includes('packages/server/dist/main.js'))).toBe(true);
      const hanging = await hangingUpload(port, admin);
      const sent = Date.now();
      process.kill(session, signal);
      expect(await run.exited).toBe(0);
      await expect.poll(() => processesOf(session), { timeout: Math.max(0, sent + 10_000 - Date.now()), interval: 100 }).toEqual([]);
      expect(await answers(port)).toBe(false);
      expect(Date.now() - sent).toBeLessThan(10_000);
      hanging.destroy();
    } finally {
      killSession(session);
      await rm(own, { recursive: true, force: true });
    }
  }, 240_000); // one start (180 s allowed: a stale web build took 53 s under load) and a stop of 8-10 s

  it('takes a Ctrl-C that reaches the whole group as one signal, and a second one 2 s later as "stop at once"', async () => {
    const port = await freePort();
    const own = await mkdtemp(path.join(tmpdir(), 'studio-stop-'));
    const admin = { email: 'stop@example.com', password: 'stop-test-password-1' };
    const run = watch(spawn('npm', ['start'], { cwd: ROOT, detached: true, env: ENV({ PORT: String(port), STUDIO_DATA_DIR: own, STUDIO_ADMIN_EMAIL: admin.email, STUDIO_ADMIN_PASSWORD: admin.password }), stdio: ['ignore', 'pipe', 'pipe'] }));
    const session = run.child.pid!;
    try {
      await expect.poll(() => run.output(), { timeout: 180_000 }).toContain('Studio listening on');
      const hanging = await hangingUpload(port, admin);
      // A terminal's Ctrl-C: SIGINT to every process of the group; npm and start.mjs pass it on again.
      process.kill(-session, 'SIGINT');
      // The window in which further signals count as the same keypress opens when the server takes the first one (on a
      // loaded machine that is later than it was sent): waited out from the server's own line, the stop is still
      // waiting on the upload.
      await expect.poll(() => run.output(), { timeout: 10_000, interval: 50 }).toContain('SIGINT: stopping');
      await new Promise((r) => setTimeout(r, 2_500));
      expect(run.child.exitCode).toBeNull();
      expect(processesOf(session).some((p) => p.args.includes('packages/server/dist/main.js'))).toBe(true);
      const again = Date.now();
      process.kill(-session, 'SIGINT');
      await run.exited;
      // At once: well inside the 8 s the graceful stop would give the upload (5 s leaves a loaded machine its exits).
      await expect.poll(() => processesOf(session), { timeout: 5_000, interval: 100 }).toEqual([]);
      expect(Date.now() - again).toBeLessThan(5_000);
      expect(run.output()).toContain('stopping at once');
      hanging.destroy();
    } finally {
      killSession(session);
      await rm(own, { recursive: true, force: true });
    }
  }, 240_000);

});

describe('the start a newcomer reads', () => {
  it('ends with the address and the one-time credentials in a frame, and shows no dependency warning', async () => {
    const port = await freePort();
    const own = await mkdtemp(path.join(tmpdir(), 'studio-start-'));
    const run = watch(spawn('npm', ['start'], { cwd: ROOT, detached: true, env: ENV({ PORT: String(port), STUDIO_DATA_DIR: own, STUDIO_ADMIN_PASSWORD: '' }), stdio: ['ignore', 'pipe', 'pipe'] }));
    const session = run.child.pid!;
    try {
      await expect.poll(() => run.output(), { timeout: 180_000 }).toContain('┘');
      const lines = run.output().trimEnd().split('\n');
      const frame = lines.slice(lines.findLastIndex((l) => l.startsWith('┌')));
      expect(frame.at(-1)).toMatch(/^└─+┘$/);
      expect(frame.join('\n')).toContain(`The studio is ready: http://127.0.0.1:${port}`);
      expect(frame.join('\n')).toMatch(/email: +admin@studio\.local/);
      expect(frame.join('\n')).toMatch(/password: +\S{12,}/);
      expect(run.output()).not.toContain('node_modules');
      process.kill(session, 'SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      killSession(session);
      await rm(own, { recursive: true, force: true });
    }
  }, 240_000);
});
