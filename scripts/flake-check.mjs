// `npm run flake-check [runs]`: the tests that depend on timing (a client leaving, heartbeats, locks running
// out, uploads still arriving, shared computations aborted), run again and again while a CPU-bound process
// loads every core, as a busy CI machine would. Every run must pass; prints one line per run and a total.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, ROOT } from './lib.mjs';

/** One vitest run, its output kept for a failure's log instead of flooding the terminal. */
const vitest = (args, env) =>
  new Promise((resolve) => {
    const child = spawn(path.join(BIN, 'vitest'), args, { cwd: ROOT, env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });

const runs = Number(process.argv[2] ?? 20);
const files = [
  'packages/server/test/client-gone.test.ts',
  'packages/server/test/dataset-heartbeat.test.ts',
  'packages/server/test/list-cache.test.ts',
  'packages/server/test/datasets.test.ts',
  'packages/server/test/analytics.test.ts',
  'packages/server/test/critical-mutations.test.ts',
  'packages/server/test/unit-of-work.test.ts',
];

// One busy loop per core, in their own processes, stopped at the end whatever happens.
const burners = os.cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stop = () => burners.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));

let failed = 0;
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  const { code, out } = await vitest(['run', ...files], { STUDIO_TEST_STORES: process.env.STUDIO_TEST_STORES ?? 'pglite' });
  const log = path.join(os.tmpdir(), `flake-check-run-${i}.log`);
  if (code !== 0) {
    failed++;
    fs.writeFileSync(log, out);
  }
  console.log(`run ${i}/${runs} under load on ${burners.length} cores: ${code === 0 ? 'passed' : `FAILED (output in ${log})`} in ${Math.round((Date.now() - started) / 1000)} s`);
}
stop();
console.log(`\n${runs - failed} of ${runs} runs passed under load`);
process.exit(failed ? 1 : 0);
