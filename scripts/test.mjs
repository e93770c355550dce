// `npm test`: every test of the studio, as CI runs it. Ends with one line "N passed, N failed".
import fs from 'node:fs';
import { run, portOpen, sh } from './lib.mjs';

const CHROMIUM = '/usr/bin/chromium';
const PYTHON = '/usr/bin/python3';
const PYTHON_PACKAGES = ['python3-requests', 'python3-pydantic', 'python3-jwt', 'python3-pandas'];

async function ensureServices() {
  if (!(await portOpen(5432))) {
    console.log('PostgreSQL is not answering on 127.0.0.1:5432; starting the local cluster');
    sh('pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start');
  }
  if (!(await portOpen(6379))) {
    console.log('Redis is not answering on 127.0.0.1:6379; starting it');
    sh('redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no');
  }
  if (!fs.existsSync(CHROMIUM)) {
    console.log("Debian's chromium is missing (browser tests need it); installing it with apt-get");
    if (!sh('(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null')) {
      console.error('Could not install chromium: run `apt-get install -y chromium` as root and try again.');
      process.exit(1);
    }
  }
  // The Data SDK test (packages/server/test/sdk.test.ts) drives the studio from Python, as SDK users do.
  if (!sh(`${PYTHON} -c "import requests, pydantic, jwt, pandas"`, { quiet: true })) {
    console.log("Python's requests, pydantic, PyJWT or pandas is missing (the Data SDK test needs them); installing Debian's packages with apt-get");
    if (!sh(`(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${PYTHON_PACKAGES.join(' ')} >/dev/null`)) {
      console.error(`Could not install them: run \`apt-get install -y ${PYTHON_PACKAGES.join(' ')}\` as root and try again.`);
      process.exit(1);
    }
  }
}

/** Vitest's "FAIL file > suite > test" lines, once each: repeated at the very end so a CI log's tail names them. */
function failedTests(text) {
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim());
  return [...new Set(lines.filter((l) => /^FAIL\s+\S/.test(l)))];
}

/** Vitest's summary line "Tests  12 passed | 1 failed (13)", without colours. */
function counts(out) {
  const line = out.replace(/\x1b\[[0-9;]*m/g, '').split('\n').reverse().find((l) => /^\s*Tests\s/.test(l)) ?? '';
  const n = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}

await ensureServices();

/**
 * Two lanes side by side (docs/decisions.md "Test run time"): the unit and API tests on two workers, and the
 * typechecks, the build and the browser tests. One worker left the machine's two cores 40% idle (37 CPU-minutes in
 * a 30-minute run). The first lane prints as it goes; each step of the second prints whole when it ends.
 */
const lanes = [
  [['unit and API tests (PGlite and PostgreSQL)', 'vitest', ['run', '--maxWorkers=2'], true]],
  [
    ['typecheck', 'tsc', ['-p', 'tsconfig.json', '--noEmit'], false],
    ['typecheck of the browser tests', 'tsc', ['-p', 'packages/web/tsconfig.e2e.json', '--noEmit'], false],
    // The README's deployment build (web app and server bundle); the browser tests run what it makes.
    ['build', 'npm', ['run', 'build'], false],
    ['browser end-to-end tests', 'vitest', ['run', '-c', 'packages/web/vitest.e2e.config.ts'], true],
    // The flows that touch the catalog and the caches again, on the production stores (PostgreSQL + Redis): sign-in,
    // upload, map save and publish, sharing, analytics (#12's list), and the edit locks and cached lists Redis holds.
    ['browser end-to-end tests on PostgreSQL + Redis', 'vitest', ['run', '-c', 'packages/web/vitest.e2e.config.ts', 'sign-in', 'datasets', 'e2e/map.e2e', 'e2e/publish', 'e2e/locks', 'sharing', 'analytics', 'e2e/list'], true, { STUDIO_E2E_STORE: 'postgres' }],
  ],
];
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
const seconds = (since) => Math.round((Date.now() - since) / 1000);

async function runLane(steps, quiet) {
  for (const [name, cmd, args, isTests, env] of steps) {
    if (name.startsWith('browser') && !fs.existsSync('packages/web/vitest.e2e.config.ts')) continue;
    const began = Date.now();
    if (!quiet) console.log(`\n=== ${name} ===`);
    const { code, out, err } = await run(cmd, args, { capture: true, quiet, env });
    if (quiet) {
      process.stdout.write(`\n=== ${name} ===\n${out}`);
      process.stderr.write(err);
    }
    console.log(`=== ${name}: ${code === 0 ? 'done' : 'FAILED'} in ${seconds(began)} s ===`);
    if (isTests) {
      for (const test of failedTests(`${out}\n${err}`)) failures.push(`${name}: ${test}`);
      const c = counts(out);
      passed += c.passed;
      failed += c.failed;
      skipped += c.skipped;
      if (code !== 0 && c.failed === 0) failed += 1;
    } else if (code !== 0) {
      failed += 1;
      failures.push(`${name} failed`);
      console.error(`${name} failed`);
    }
  }
}

const began = Date.now();
await Promise.all(lanes.map((steps, i) => runLane(steps, i > 0)));
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`\nAll lanes ended in ${seconds(began)} s`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
