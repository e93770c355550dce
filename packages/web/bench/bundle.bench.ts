// The web app's first download (#20): the JavaScript a visit pays for before any screen it has not opened, i.e. the
// entry script of the production build and the modules index.html preloads, gzipped (what a browser receives).
// Printed as a ratio to the same figure before screens loaded lazily (INITIAL_BEFORE, measured 2026-11-28 on the
// build of e6a2391: 843,633 bytes gzipped, the entry and its two preloads; target: at most half of it). Also prints the largest chunks loaded on
// demand and which big libraries the first download holds. Reads packages/web/dist: run
// `npm run build` first (the bench builds it when it is missing).
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';

const INITIAL_BEFORE = 843_633;
const here = path.dirname(new URL(import.meta.url).pathname);
const dist = path.resolve(here, '../dist');
if (!fs.existsSync(path.join(dist, 'index.html'))) execFileSync('npm', ['run', 'build'], { cwd: path.resolve(here, '../../..'), stdio: 'inherit' });

const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const first = [...html.matchAll(/<script[^>]*src="([^"]+\.js)"|<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)].map((m) => (m[1] ?? m[2])!);
const gz = (file: string) => gzipSync(fs.readFileSync(path.join(dist, file))).length;
const initial = first.reduce((n, f) => n + gz(f), 0);
const code = first.map((f) => fs.readFileSync(path.join(dist, f), 'utf8')).join('\n');

console.log(`bundle: first download ${first.length} scripts, ${(initial / 1024).toFixed(0)} KB gzipped (ratio ${(initial / INITIAL_BEFORE).toFixed(2)} vs ${(INITIAL_BEFORE / 1024).toFixed(0)} KB before lazy screens; target <= 0.50)`);
console.log(`bundle: in the first download: zod ${code.includes('ZodError') ? 'yes' : 'no'}, h3-js ${code.includes('latLngToCell') ? 'yes' : 'no'}, kepler.gl ${code.includes('keplerGlReducer') ? 'yes' : 'no'}, ECharts ${code.includes('echarts') ? 'yes' : 'no'}`);
const lazyChunks = fs
  .readdirSync(path.join(dist, 'assets'))
  .filter((f) => f.endsWith('.js') && !first.includes(`/assets/${f}`))
  .map((f) => ({ f, size: gz(`assets/${f}`) }))
  .sort((a, b) => b.size - a.size)
  .slice(0, 6);
console.log(`bundle: largest chunks loaded on demand: ${lazyChunks.map((c) => `${c.f} ${(c.size / 1024).toFixed(0)} KB`).join(', ')}`);
