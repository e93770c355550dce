import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { NEEDS_FALLBACK, makeFastH3, tablesFrom, type FastH3, type Tables } from './fast';

/**
 * Direct access to h3-js's compiled H3 core (its emscripten module is not exported). The public
 * `latLngToCell` mallocs and frees twice and builds arrays per call, which costs as much as the
 * computation; calling `_latLngToCell` on fixed scratch memory is ~1.8x faster. Loaded by evaluating
 * h3-js's own CommonJS bundle, so the H3 algorithm is exactly the library's.
 */
export type RawH3 = {
  heapF64: Float64Array;
  heap32: Int32Array;
  /** Cells for points [from, to): lat/lng in degrees; writes lo/hi 32-bit halves, hi = 0 for invalid input. */
  cells(lat: Float64Array, lng: Float64Array, res: number, from: number, to: number, lo: Uint32Array, hi: Uint32Array): void;
};

const require = createRequire(import.meta.url);
export const H3_BUNDLE = require.resolve('h3-js/dist/h3-js.js');

/** Source of a function that builds a RawH3 from the bundle text; shared with the worker (eval'd there). */
export const RAW_H3_FACTORY = `function makeRawH3(src, req) {
  const mod = { exports: {} };
  const libh3 = new Function('module', 'exports', 'require', src + '\\n;return libh3;')(mod, mod.exports, req);
  const p = libh3._malloc(16), o = libh3._malloc(8);
  return {
    heapF64: libh3.HEAPF64,
    heap32: libh3.HEAP32,
    cells(lat, lng, res, from, to, lo, hi) {
      const F = libh3.HEAPF64, U = libh3.HEAPU32, pf = p >> 3, ou = o >> 2;
      for (let i = from; i < to; i++) {
        const a = lat[i], b = lng[i];
        F[pf] = a * Math.PI / 180; F[pf + 1] = b * Math.PI / 180;
        if (a !== a || b !== b || libh3._latLngToCell(p, res, o) !== 0) { lo[i] = 0; hi[i] = 0; continue; }
        lo[i] = U[ou]; hi[i] = U[ou + 1];
      }
    },
  };
}`;

let shared: RawH3 | undefined;
export function rawH3(): RawH3 {
  if (!shared) {
    const make = new Function(`${RAW_H3_FACTORY}; return makeRawH3;`)() as (src: string, req: NodeRequire) => RawH3;
    shared = make(readFileSync(H3_BUNDLE, 'utf8'), require);
  }
  return shared;
}

let best: RawH3['cells'] | undefined;
let bestTables: Tables | undefined;
/** The port's tables once cellsFn() has verified the port (workers get them). */
export const verifiedTables = () => (cellsFn(), bestTables);
/**
 * The fastest exact cells(): the JS port (fast.ts) with h3-js for the points it leaves (pentagon base
 * cells), or h3-js alone if the port cannot find its tables or disagrees with h3-js on a sample.
 */
export function cellsFn(): RawH3['cells'] {
  if (best) return best;
  const raw = rawH3();
  const tables = tablesFrom(raw.heapF64, raw.heap32);
  const fast = tables ? makeFastH3(tables) : undefined;
  best = raw.cells;
  if (fast && agrees(fast, raw.cells)) {
    bestTables = tables;
    best = (lat, lng, res, from, to, lo, hi) => {
      fast(lat, lng, res, from, to, lo, hi);
      for (let i = from; i < to; i++) if (hi[i] === NEEDS_FALLBACK) raw.cells(lat, lng, res, i, i + 1, lo, hi);
    };
  }
  return best;
}

/** Self-check on a deterministic global sample at every resolution. */
function agrees(fast: FastH3, raw: RawH3['cells']): boolean {
  const n = 512;
  const lat = new Float64Array(n);
  const lng = new Float64Array(n);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
  for (let i = 0; i < n; i++) { lat[i] = (Math.asin(rnd() * 2 - 1) * 180) / Math.PI; lng[i] = rnd() * 360 - 180; }
  const a = new Uint32Array(n), b = new Uint32Array(n), c = new Uint32Array(n), d = new Uint32Array(n);
  for (let res = 0; res <= 15; res++) {
    fast(lat, lng, res, 0, n, a, b);
    raw(lat, lng, res, 0, n, c, d);
    for (let i = 0; i < n; i++) if (b[i] !== NEEDS_FALLBACK && (a[i] !== c[i] || b[i] !== d[i])) return false;
  }
  return true;
}

const HEX4: string[] = [];
for (let i = 0; i < 65536; i++) HEX4.push(i.toString(16).padStart(4, '0'));

/** The lowercase hex string of an H3 index given as 32-bit halves (cells have a zero top nibble). */
export function cellHex(lo: number, hi: number): string {
  const top = hi >>> 16;
  return (top >>> 12 ? HEX4[top]! : top >>> 8 ? HEX4[top]!.slice(1) : top.toString(16)) + HEX4[hi & 0xffff]! + HEX4[lo >>> 16]! + HEX4[lo & 0xffff]!;
}
