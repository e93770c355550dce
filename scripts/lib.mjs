// Shared helpers of the project scripts (plain ESM so they run before anything is built).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(ROOT, 'node_modules', '.bin');

/** Runs a command with node_modules/.bin first on PATH (so the pinned Node 22 is the `node`). */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: opts.capture || opts.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, ...opts.env },
    });
    // Ctrl-C or a service manager's SIGTERM stops the child too (a studio server left running would
    // keep its port and data folder): the signal is passed on, and the child's exit ends the wait.
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    let out = '';
    let err = '';
    if (opts.capture || opts.quiet) {
      // `quiet`: kept for the caller to print when the step ends (a step running beside another).
      child.stdout.on('data', (d) => {
        out += d;
        if (!opts.quiet) process.stdout.write(d);
      });
      child.stderr.on('data', (d) => {
        err += d;
        if (!opts.quiet) process.stderr.write(d);
      });
    }
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code: code ?? (signal === 'SIGTERM' || signal === 'SIGINT' ? 0 : 1), out, err });
    });
  });
}

export const portOpen = (port, host = '127.0.0.1') =>
  new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => (s.end(), resolve(true)));
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => (s.destroy(), resolve(false)));
  });

/** Runs a shell command; true when it succeeded. `quiet`: its output is not shown (a probe). */
export function sh(command, { quiet = false } = {}) {
  return spawnSync('bash', ['-lc', command], { stdio: quiet ? 'ignore' : 'inherit' }).status === 0;
}

/** The newest modification time of any file under `dir`: a build older than it is stale. */
export function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}
