// `npm run flake-check [runs]`: the tests that depend on timing (locks running out, jobs handed over between
// nodes, a stopped `npm start`, heartbeats, a client leaving, uploads still arriving), run again and again on
// both catalogs while a CPU-bound process loads every core, as a busy CI machine would. Every run must pass;
// prints one line per run, catalog and suite, and a total.
//   runs: the argument, else STUDIO_FLAKE_RUNS, else 20.
//   STUDIO_FLAKE_CATALOGS=pglite,postgres (the default; one of them narrows it).
//   STUDIO_FLAKE_SUITES=server,browser (the default; one of them narrows it).
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

/**
 * Each suite names its catalog its own way: the API tests by STUDIO_TEST_STORES (harness.ts), the browser tests
 * by STUDIO_E2E_STORE (global-setup.ts: PostgreSQL plus Redis, as production runs). jobs-handover.test.ts runs on
 * PostgreSQL only (two nodes need a shared catalog), so its PGlite pass finds nothing to run and passes.
 */
const SUITES = {
  server: {
    args: [
      'packages/server/test/jobs.test.ts',
      'packages/server/test/jobs-handover.test.ts',
      'packages/server/test/upload-jobs.test.ts',
      'packages/server/test/client-gone.test.ts',
      'packages/server/test/dataset-heartbeat.test.ts',
      'packages/server/test/list-cache.test.ts',
      'packages/server/test/datasets.test.ts',
      'packages/server/test/analytics.test.ts',
      'packages/server/test/critical-mutations.test.ts',
      'packages/server/test/unit-of-work.test.ts',
    ],
    env: (catalog) => ({ STUDIO_TEST_STORES: catalog }),
  },
  browser: {
    args: ['-c', 'packages/web/vitest.e2e.config.ts', 'packages/web/e2e/locks.e2e.ts', 'packages/web/e2e/start.e2e.ts'],
    env: (catalog) => ({ STUDIO_E2E_STORE: catalog === 'postgres' ? 'postgres' : '' }),
  },
};

const list = (value, fallback) => (value ?? fallback).split(',').map((s) => s.trim()).filter(Boolean);
const runs = Number(process.argv[2] ?? process.env.STUDIO_FLAKE_RUNS ?? 20);
const catalogs = list(process.env.STUDIO_FLAKE_CATALOGS, 'pglite,postgres');
const suites = list(process.env.STUDIO_FLAKE_SUITES, Object.keys(SUITES).join(','));
for (const [what, values, known] of [['catalog', catalogs, ['pglite', 'postgres']], ['suite', suites, Object.keys(SUITES)]]) {
  const unknown = values.filter((v) => !known.includes(v));
  if (unknown.length || !values.length) {
    console.error(`flake-check: unknown ${what} ${unknown.join(', ') || '(none given)'}; expected some of ${known.join(', ')}`);
    process.exit(2);
  }
}
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`flake-check: runs must be a whole number from 1, not ${process.argv[2] ?? process.env.STUDIO_FLAKE_RUNS}`);
  process.exit(2);
}

// One busy loop per core, in their own processes, stopped at the end whatever happens.
const burners = os.cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stop = () => burners.forEach((b) => b.kill('SIGKILL'));
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const began = Date.now();
let failed = 0;
let total = 0;
for (let i = 1; i <= runs; i++) {
  for (const catalog of catalogs) {
    for (const name of suites) {
      const suite = SUITES[name];
      const started = Date.now();
      const { code, out } = await vitest(['run', ...suite.args], suite.env(catalog));
      total++;
      const log = path.join(os.tmpdir(), `flake-check-run-${i}-${catalog}-${name}.log`);
      if (code !== 0) {
        failed++;
        fs.writeFileSync(log, out);
      }
      const load = os.loadavg()[0].toFixed(1);
      console.log(`run ${i}/${runs} ${catalog} ${name} under load on ${burners.length} cores (load ${load}): ${code === 0 ? 'passed' : `FAILED (output in ${log})`} in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  }
}
stop();
console.log(`\n${total - failed} of ${total} runs passed under load (${runs} × ${catalogs.join('+')} × ${suites.join('+')}) in ${Math.round((Date.now() - began) / 60_000)} min`);
process.exit(failed ? 1 : 0);
