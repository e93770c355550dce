// `npm test`: every test of the studio, as CI runs it. Ends with one line "N passed, N failed".
import fs from 'node:fs';
import { run, portOpen, sh } from './lib.mjs';

const CHROMIUM = '/usr/bin/chromium';
const PYTHON = '/usr/bin/python3';
const PYTHON_PACKAGES = ['python3-requests', 'python3-pydantic', 'python3-jwt', 'python3-pandas'];
// PostGIS for the local PostgreSQL 15 cluster: the oracle the spatial functions are tested against (packages/spatial/test).
const POSTGIS_PACKAGE = 'postgresql-15-postgis-3';
const POSTGIS_CONTROL = '/usr/share/postgresql/15/extension/postgis.control';
// GDAL's ogr2ogr and ogrinfo: the oracle the GIS file readers and writers are tested against (gis-files tests).
const OGR2OGR = '/usr/bin/ogr2ogr';

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
  if (!fs.existsSync(POSTGIS_CONTROL)) {
    console.log(`PostGIS is missing (the spatial functions are tested against it); installing ${POSTGIS_PACKAGE} with apt-get`);
    if (!sh(`(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${POSTGIS_PACKAGE} >/dev/null`)) {
      console.error(`Could not install PostGIS: run \`apt-get install -y ${POSTGIS_PACKAGE}\` as root and try again.`);
      process.exit(1);
    }
  }
  if (!fs.existsSync(OGR2OGR)) {
    console.log('GDAL is missing (the GIS file tests read and write files with it); installing gdal-bin with apt-get');
    if (!sh('(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdal-bin >/dev/null')) {
      console.error('Could not install GDAL: run `apt-get install -y gdal-bin` as root and try again.');
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

/** The lines that say why a run failed without a failing test: vitest's "Unhandled Error" block heads and the errors after. */
function errorLines(text) {
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim());
  const picked = lines.filter((l) => /Unhandled|^(Error|TypeError|RangeError|SyntaxError)\b|^Errors\s|ERR_|Worker exited|Timeout/.test(l));
  return [...new Set(picked)].slice(0, 12);
}

/** Vitest's summary line "Tests  12 passed | 1 failed (13)", without colours. */
function counts(out) {
  const line = out.replace(/\x1b\[[0-9;]*m/g, '').split('\n').reverse().find((l) => /^\s*Tests\s/.test(l)) ?? '';
  const n = (word) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}

await ensureServices();

/**
 * Two lanes side by side (docs/decisions.md "Test run time"), then the browser tests alone. The unit and API tests run
 * on two workers beside the typechecks and the build (one worker left the machine's two cores 40% idle). The browser
 * tests wait until both end: beside the unit lane (user-work processes, PostGIS, bombs, `npm start` runs) they took
 * 2,128 s instead of 505 s alone and their map screens timed out (CI of 2026-12-01), so they get the machine to
 * themselves. The first lane prints as it goes; each step of the second prints whole when it ends.
 */
const lanes = [
  [['unit and API tests (PGlite and PostgreSQL)', 'vitest', ['run', '--maxWorkers=2'], true]],
  [
    ['typecheck', 'tsc', ['-p', 'tsconfig.json', '--noEmit'], false],
    ['typecheck of the browser tests', 'tsc', ['-p', 'packages/web/tsconfig.e2e.json', '--noEmit'], false],
    // The README's deployment build (web app and server bundle); the browser tests run what it makes.
    ['build', 'npm', ['run', 'build'], false],
  ],
];
const browserLane = [
  ['browser end-to-end tests', 'vitest', ['run', '-c', 'packages/web/vitest.e2e.config.ts'], true],
  // The flows that touch the catalog and the caches again, on the production stores (PostgreSQL + Redis): sign-in,
  // upload, map save and publish, sharing, analytics (#12's list), the edit locks and cached lists Redis holds, and the
  // flows whose rows sit in tables of their own: versions and pinned snapshots (#51), a dataset's own tiles (#50).
  ['browser end-to-end tests on PostgreSQL + Redis', 'vitest', ['run', '-c', 'packages/web/vitest.e2e.config.ts', 'sign-in', 'datasets', 'e2e/map.e2e', 'e2e/publish', 'e2e/locks', 'sharing', 'analytics', 'e2e/list', 'e2e/history', 'e2e/pinned-data', 'e2e/dataset-tiles', 'e2e/map-tiles-threshold'], true, { STUDIO_E2E_STORE: 'postgres' }],
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
      if (code !== 0 && c.failed === 0) {
        // No test failed but the run did: an unhandled error, a worker that died, a timeout of the whole run. Named
        // here with vitest's own error lines so a CI log's tail says which lane and why (CI of 2026-12-02 did not).
        failed += 1;
        failures.push(`${name}: exited with code ${code} and no failing test`);
        for (const line of errorLines(`${out}\n${err}`)) failures.push(`${name}:   ${line}`);
      }
    } else if (code !== 0) {
      failed += 1;
      failures.push(`${name} failed`);
      console.error(`${name} failed`);
    }
  }
}

const began = Date.now();
await Promise.all(lanes.map((steps, i) => runLane(steps, i > 0)));
await runLane(browserLane, false);
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`\nAll lanes ended in ${seconds(began)} s`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
