// The two builds production runs: the web app (Vite, packages/web/dist) and the server (esbuild,
// packages/server/dist: plain JavaScript that the pinned Node 22 runs without tsx and without the
// workspace's TypeScript sources).
//
// `node scripts/builds.mjs [web] [server] [--if-stale] [--test-build]`: both when neither is named; --if-stale skips a
// build that is newer than every source it is made from; --test-build makes the web app's test build (packages/web/dist-test,
// with the browser tests' hooks and the bench page) instead of the production one. `npm run build` builds both.
//
// What goes into the server bundle: the studio's own packages (@studio/*, TypeScript sources), and a package
// only a workspace package installed for itself (packages/<name>/node_modules: a version the rest of the
// tree does not share, which the bundle's folder could not find). Every other package stays an import that
// Node resolves from node_modules at run time: native addons (DuckDB), WebAssembly beside its loader
// (PGlite, parquet-wasm), data files found through require.resolve (fonts, atlases, h3-js for the worker).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, stop as stopEsbuild } from 'esbuild';
import { newestMtime, ROOT } from './lib.mjs';

const PACKAGES = path.join(ROOT, 'packages');
export const SERVER_DIST = path.join(PACKAGES, 'server', 'dist');
export const WEB_DIST = path.join(PACKAGES, 'web', 'dist');
/** The web app with the browser tests' hooks and the bench page (STUDIO_TEST_BUILD, vite.config.ts): what e2e and benches serve. */
export const WEB_TEST_DIST = path.join(PACKAGES, 'web', 'dist-test');
/**
 * What the server process is started with, by `npm start`, the benches and the two-node tests (the Dockerfile sets
 * the same). Two malloc arenas instead of glibc's eight a core: DuckDB's threads each took an arena of their own,
 * and the 1 GB upload's peak on the embedded catalog ranged 435–588 MB; with two, 422–442 MB at the same ingest speed (docs/decisions.md
 * "Dataset data path performance", row "Malloc arenas"). Read by glibc when the process starts, so it is set here.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
/** The programs an operator runs: the server, and the master-key rotation. */
const SERVER_ENTRIES = {
  main: 'packages/server/src/main.ts',
  'rotate-key': 'packages/server/src/cli/rotate-key.ts',
  backup: 'packages/server/src/cli/backup.ts',
  // The user-work process (services/user-work/supervisor.ts forks it from beside main.js).
  'user-work': 'packages/server/src/services/user-work/worker-main.ts',
};
const SERVER_SOURCES = ['server', 'engine', 'pipeline', 'schema', 'analytics', 'warehouses', 'spatial'].map((p) => path.join(PACKAGES, p, 'src'));
const WEB_SOURCES = ['web/src', 'web/index.html', 'web/vite.config.ts', 'client/src', 'schema/src'].map((p) => path.join(PACKAGES, p));

const mtimeOf = (p) => (!fs.existsSync(p) ? 0 : fs.statSync(p).isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
const staleAgainst = (output, sources) => !fs.existsSync(output) || Math.max(...sources.map(mtimeOf)) > fs.statSync(output).mtimeMs;

/** True when the server bundle is missing or older than any source it is built from. */
export const serverBuildStale = () => staleAgainst(path.join(SERVER_DIST, 'main.js'), SERVER_SOURCES);
/** True when the web build (`testBuild`: the test one) is missing or older than any source it is built from. */
export const webBuildStale = (testBuild = false) => staleAgainst(path.join(testBuild ? WEB_TEST_DIST : WEB_DIST, 'index.html'), WEB_SOURCES);

/** `lodash/fp` → `lodash`, `@scope/name/x` → `@scope/name`. */
const packageName = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/** The workspace package folder (packages/<name>) a source file belongs to, if any. */
function workspaceOf(file) {
  const rel = path.relative(PACKAGES, file);
  return rel.startsWith('..') ? null : path.join(PACKAGES, rel.split(path.sep)[0]);
}

const externals = {
  name: 'studio-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.path.startsWith('@studio/')) return undefined;
      const own = workspaceOf(args.importer);
      if (own && fs.existsSync(path.join(own, 'node_modules', packageName(args.path)))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * `outdir`: where the bundle goes (default packages/server/dist). A folder of its own, beside dist at the same depth
 * (the bundle finds node_modules and the web build relative to itself), is for tests that start server processes while
 * `npm run build` may be replacing dist in the other lane of `npm test`.
 */
export async function buildServer({ outdir = SERVER_DIST } = {}) {
  // Built beside and moved into place, so a failed build leaves the previous one whole.
  const next = `${outdir}.next-${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: SERVER_ENTRIES,
    outdir: next,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Stack traces point at the TypeScript sources; the maps stay on the server, never served.
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [externals],
  });
  fs.rmSync(outdir, { recursive: true, force: true });
  fs.renameSync(next, outdir);
}

/**
 * Vite's production build of the web app, run by the node running this script (the pinned 22). NODE_ENV is
 * set: called from Vitest (the browser tests' setup) it would be `test`, and React's development build (its
 * StrictMode effects run twice: a published map counted two views) would be what the tests see.
 */
export function buildWeb({ verbose = process.env.STUDIO_BUILD_VERBOSE === '1', testBuild = false } = {}) {
  return new Promise((resolve, reject) => {
    // Not verbose: warnings and errors only (Vite lists every chunk otherwise), dependencies' warnings dropped (vite.config.ts).
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', ...(verbose ? [] : ['--logLevel', 'warn'])], {
      cwd: path.join(PACKAGES, 'web'),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production', STUDIO_BUILD_VERBOSE: verbose ? '1' : '', STUDIO_TEST_BUILD: testBuild ? '1' : '' },
    });
    // A signal to the one who asked for the build (`npm start` stopped while building) stops the build too.
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (code === 0) resolve();
      else reject(new Error(signal ? `The web build was stopped (${signal})` : `The web build failed (exit code ${code})`));
    });
  });
}

/**
 * The user-work process alone, as one file, for servers run from the TypeScript sources (the tests, `npm run dev`):
 * forked as plain JavaScript it starts in a fraction of a second, where tsx took 1-4 s to compile its imports
 * (services/user-work/supervisor.ts). Named by the newest source time, so a changed source builds a new one; written
 * beside and renamed, so processes building it at once never read half a file. Answers its path.
 */
export async function buildUserWorker() {
  const dir = path.join(PACKAGES, 'server', 'dist-user-work');
  const file = path.join(dir, `user-work-${Math.round(Math.max(...SERVER_SOURCES.map(mtimeOf)))}.js`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const next = `${file}.${process.pid}-${Date.now()}.tmp.js`;
  await build({
    absWorkingDir: ROOT,
    entryPoints: [SERVER_ENTRIES['user-work']],
    outfile: next,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [externals],
  });
  fs.renameSync(next, file);
  return file;
}

/** Whether a process of that id is running (signal 0 asks without sending anything). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * One build at a time in this checkout: `npm test` builds in one lane while tests in the other start `npm start`,
 * which builds what is stale, and two Vite builds emptying packages/web/dist at once leave it half written. The lock
 * is a folder (mkdir is atomic) holding its holder's pid; one whose holder is gone is taken over.
 */
async function withBuildLock(work) {
  const lock = path.join(os.tmpdir(), `studio-build-${createHash('sha1').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  const holderFile = path.join(lock, 'pid');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(holderFile, String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const holder = Number(fs.existsSync(holderFile) ? fs.readFileSync(holderFile, 'utf8') : 0);
      // A lock without a pid is one being taken right now, unless it is old (its taker died in between).
      const orphan = holder ? !alive(holder) : Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 60_000;
      if (orphan) fs.rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds what is asked for (both when nothing is); with `ifStale`, only what its sources changed; `verbose`: every bundler
 * line; `testBuild`: the web app's test build (WEB_TEST_DIST) instead of the production one.
 */
export function builds(opts = {}) {
  return withBuildLock(() => buildsNow(opts));
}

async function buildsNow({ web = true, server = true, ifStale = false, verbose, testBuild = false }) {
  if (web && (!ifStale || webBuildStale(testBuild))) {
    console.log(`Building the web app${testBuild ? "'s test build" : ''} (a minute or two the first time)…`);
    const started = Date.now();
    await buildWeb({ verbose, testBuild });
    console.log(`Web app built into ${path.relative(ROOT, testBuild ? WEB_TEST_DIST : WEB_DIST)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (server && (!ifStale || serverBuildStale())) {
    const started = Date.now();
    await buildServer();
    // esbuild's build() leaves its service process running until stop(): beside `npm start`'s server it stayed for
    // as long as the studio ran, and outlived it when the studio was stopped.
    await stopEsbuild();
    console.log(`Server built into ${path.relative(ROOT, SERVER_DIST)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const named = args.filter((a) => a === 'web' || a === 'server');
  await builds({ web: !named.length || named.includes('web'), server: !named.length || named.includes('server'), ifStale: args.includes('--if-stale'), testBuild: args.includes('--test-build') });
}
