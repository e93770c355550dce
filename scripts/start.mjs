// `npm start`: build the web app and the server when a build is missing or older than its sources, then
// serve the studio (API under /v1 and the web app) on one port with the compiled server, as production
// runs it (node, no tsx). Sample data is loaded by the server on first start.
//
// Stopping (docs/decisions.md "Start and stop"): package.json runs this script with `exec`, so the signal npm passes
// on reaches it rather than a shell that would die and leave everything below it running. A signal during a build
// stops the build and starts nothing; once the server runs, each signal is passed to it (it tells one Ctrl-C seen
// by several processes from a second one, packages/server/src/stop.ts) and this process exits with its exit code.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SERVER_ENV, builds } from './builds.mjs';
import { BIN, ROOT } from './lib.mjs';

/** A server that outlives this much after the first signal is killed (it gives up by itself at 9.5 s). */
const KILL_AFTER_MS = 10_000;
let server = null;
let stopping = false;
const onSignal = (signal) => {
  if (!stopping) {
    stopping = true;
    setTimeout(() => server?.kill('SIGKILL'), KILL_AFTER_MS);
  }
  server?.kill(signal);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// `npm start -- --verbose`: every line of the builds, dependencies' warnings included.
const verbose = process.argv.includes('--verbose');
try {
  await builds({ ifStale: true, verbose });
} catch (e) {
  if (stopping) process.exit(0);
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
}
if (stopping) process.exit(0);
// Arguments pass through: `npm start -- --print-config` prints the effective configuration.
// `node` is the pinned Node 22 (node_modules/.bin comes first on PATH).
server = spawn('node', [path.join('packages', 'server', 'dist', 'main.js'), ...process.argv.slice(2).filter((a) => a !== '--verbose')], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, ...SERVER_ENV },
});
server.on('exit', (code, signal) => process.exit(code ?? 128 + ({ SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal] ?? 1)));
