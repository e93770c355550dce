// A studio server as `npm start` runs it, for the benches that measure it from outside: its own process (so its
// memory is its own and the client's work is not on its event loop), and its resident memory read from /proc.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SERVER_ENV } from '../../../scripts/builds.mjs';
import { freePort } from '../test/cluster';

/** Resident memory (VmRSS) and its peak since the last reset (VmHWM) of a process, in MB, from /proc. */
export async function memoryOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** `npm start`'s server process (`main`: the esbuild bundle, under node) on a fresh data folder; resolves once it answers. */
export async function startServer(main: string, dir: string, databaseUrl: string | null) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [main], {
    env: { ...process.env, ...SERVER_ENV, PORT: String(port), DATABASE_URL: databaseUrl ?? '', STUDIO_DATA_DIR: path.join(dir, 'data'), STUDIO_SAMPLES: 'off', STUDIO_SECRET: 'bench-secret', STUDIO_ADMIN_EMAIL: 'bench@studio.test', STUDIO_ADMIN_PASSWORD: 'bench-password', STUDIO_WEB_DIR: path.join(dir, 'no-web') },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const stop = async () => {
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 500));
  };
  try {
    for (let i = 0; i < 300; i++) {
      if (await fetch(`${base}/v1/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const signIn = await fetch(`${base}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@studio.test', password: 'bench-password' }) });
    const token = ((await signIn.json()) as { item: { accessToken: string } }).item.accessToken;
    return { base, token, pid: server.pid!, dataDir: path.join(dir, 'data'), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Peak RSS of `pid` while `work` runs. The kernel's own high-water mark, reset first (clear_refs 5), sees
 * every spike; sampling every 50 ms is the fallback where the reset is not allowed.
 */
export async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  const before = (await memoryOf(pid)).rss;
  const reset = await fs.writeFile(`/proc/${pid}/clear_refs`, '5').then(() => true, () => false);
  let sampled = 0;
  const sampler = setInterval(() => memoryOf(pid).then((m) => (sampled = Math.max(sampled, m.rss)), () => {}), 50);
  try {
    const result = await work();
    const m = await memoryOf(pid);
    return { result, before, peak: Math.max(sampled, m.rss, reset ? m.hwm : 0) };
  } finally {
    clearInterval(sampler);
  }
}
