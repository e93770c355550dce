// The two builds production runs: the web app (Vite, packages/web/dist) and the server (esbuild,
// packages/server/dist: plain JavaScript that the pinned Node 22 runs without tsx and without the
// workspace's TypeScript sources).
//
// `node scripts/builds.mjs [web] [server] [--if-stale]`: both when neither is named; --if-stale skips a
// build that is newer than every source it is made from. `npm run build` builds both.
//
// What goes into the server bundle: the studio's own packages (@studio/*, TypeScript sources), and a package
// only a workspace package installed for itself (packages/<name>/node_modules: a version the rest of the
// tree does not share, which the bundle's folder could not find). Every other package stays an import that
// Node resolves from node_modules at run time: native addons (DuckDB), WebAssembly beside its loader
// (PGlite, parquet-wasm), data files found through require.resolve (fonts, atlases, h3-js for the worker).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { newestMtime, ROOT } from './lib.mjs';

const PACKAGES = path.join(ROOT, 'packages');
export const SERVER_DIST = path.join(PACKAGES, 'server', 'dist');
export const WEB_DIST = path.join(PACKAGES, 'web', 'dist');
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
};
const SERVER_SOURCES = ['server', 'engine', 'pipeline', 'schema', 'analytics', 'warehouses'].map((p) => path.join(PACKAGES, p, 'src'));
const WEB_SOURCES = ['web/src', 'web/index.html', 'web/vite.config.ts', 'client/src', 'schema/src'].map((p) => path.join(PACKAGES, p));

const mtimeOf = (p) => (!fs.existsSync(p) ? 0 : fs.statSync(p).isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
const staleAgainst = (output, sources) => !fs.existsSync(output) || Math.max(...sources.map(mtimeOf)) > fs.statSync(output).mtimeMs;

/** True when the server bundle is missing or older than any source it is built from. */
export const serverBuildStale = () => staleAgainst(path.join(SERVER_DIST, 'main.js'), SERVER_SOURCES);
/** True when the web build is missing or older than any source it is built from. */
export const webBuildStale = () => staleAgainst(path.join(WEB_DIST, 'index.html'), WEB_SOURCES);

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
export function buildWeb() {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], {
    cwd: path.join(PACKAGES, 'web'),
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

/** Builds what is asked for (both when nothing is); with `ifStale`, only what its sources changed. */
export async function builds({ web = true, server = true, ifStale = false } = {}) {
  if (web && (!ifStale || webBuildStale())) {
    console.log('Building the web app…');
    buildWeb();
  }
  if (server && (!ifStale || serverBuildStale())) {
    const started = Date.now();
    await buildServer();
    console.log(`Server built into ${path.relative(ROOT, SERVER_DIST)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const named = args.filter((a) => a === 'web' || a === 'server');
  await builds({ web: !named.length || named.includes('web'), server: !named.length || named.includes('server'), ifStale: args.includes('--if-stale') });
}
