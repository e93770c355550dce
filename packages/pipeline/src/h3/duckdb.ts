import {
  BIGINT,
  DOUBLE,
  DuckDBScalarFunction,
  UBIGINT,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBScalarFunctionInfo,
  type DuckDBVector,
} from '@duckdb/node-api';
import { cellToLatLng, cellToParent, getResolution, isValidCell } from 'h3-js';
import { H3Pool, h3Pool } from './pool';
import { cellHex } from './raw';

type Num = DuckDBVector<number>;

/**
 * The h3_* functions the expression language allows, implemented with h3-js and registered on a DuckDB
 * connection (no h3 extension can be downloaded here). Cells are lowercase hex strings.
 */
/** Private typed-array view behind a numeric vector (zero-copy); undefined if the library changes shape. */
function itemsOf<T>(v: unknown, ctor: new (...a: never[]) => T): T | undefined {
  const items = (v as { items?: unknown }).items;
  return items instanceof ctor ? items : undefined;
}

/**
 * A vector's null mask as 32-bit words (bit i of word i >> 5 set = row i valid), `null` when every row is valid, or
 * undefined if the library changes shape. The library's own `getItem` tests each row with BigInt arithmetic (an
 * allocation a row), which cost the JS thread as much as a tenth of an H3 index.
 */
function validWords(v: unknown): Uint32Array | null | undefined {
  const validity = (v as { validity?: { data?: unknown; offset?: unknown } }).validity;
  if (!validity || validity.offset !== 0) return undefined;
  if (validity.data === null) return null;
  return validity.data instanceof BigUint64Array ? new Uint32Array(validity.data.buffer, validity.data.byteOffset, validity.data.length * 2) : undefined;
}

const isValid = (words: Uint32Array | null, i: number) => words === null || (words[i >>> 5]! & (1 << (i & 31))) !== 0;

/**
 * Fills `out[i]` for each row from the pool's lo/hi halves; `write(i, lo, hi)` stores one cell, and
 * rows whose cell is invalid (NULL / non-finite input) become NULL. Rows are read from the vectors' own memory
 * (values, null masks, and the resolution's 64-bit integers as 32-bit halves) when the library exposes it.
 */
function indexVector(info: DuckDBScalarFunctionInfo, input: DuckDBDataChunk, out: DuckDBVector, write: (i: number, lo: number, hi: number) => void): boolean {
  const lat = input.getColumnVector(0) as Num;
  const lng = input.getColumnVector(1) as Num;
  const res = input.getColumnVector(2) as unknown as DuckDBVector<bigint>;
  const n = input.rowCount;
  const pool = h3Pool();
  const latItems = itemsOf(lat, Float64Array);
  const lngItems = itemsOf(lng, Float64Array);
  const resItems = itemsOf(res, BigInt64Array);
  const [latValid, lngValid, resValid] = [validWords(lat), validWords(lng), validWords(res)];
  const raw = latItems && lngItems && resItems && latValid !== undefined && lngValid !== undefined && resValid !== undefined;
  const res32 = raw ? new Int32Array(resItems.buffer, resItems.byteOffset, n * 2) : undefined;
  // The resolution of a row as a number (-1 for NULL); a value past 32 bits is out of range either way.
  const resAt = res32
    ? (i: number) => (!isValid(resValid!, i) ? -1 : res32[i * 2 + 1] === 0 && res32[i * 2]! >= 0 ? res32[i * 2]! : 16)
    : (i: number) => { const r = res.getItem(i); return r === null ? -1 : r >= 0n && r <= 15n ? Number(r) : 16; };
  for (let start = 0; start < n; ) {
    const r0 = resAt(start);
    let end = start + 1;
    while (end < n && end - start < H3Pool.capacity && resAt(end) === r0) end++;
    if (r0 === -1) { for (let i = start; i < end; i++) out.setItem(i, null); start = end; continue; }
    if (r0 > 15) {
      info.setError(`h3_latlng_to_cell: resolution ${String(res.getItem(start))} is outside 0..15`);
      return false;
    }
    const { lat: la, lng: ln, lo, hi } = pool;
    if (raw) {
      la.set(latItems.subarray(start, end));
      ln.set(lngItems.subarray(start, end));
      if (latValid !== null || lngValid !== null) {
        for (let i = start; i < end; i++) if (!isValid(latValid, i) || !isValid(lngValid, i)) la[i - start] = NaN;
      }
    } else {
      for (let i = start; i < end; i++) {
        const a = lat.getItem(i);
        const b = lng.getItem(i);
        la[i - start] = a === null || b === null ? NaN : a;
        ln[i - start] = b ?? NaN;
      }
    }
    pool.compute(end - start, r0);
    for (let i = start; i < end; i++) {
      const h = hi[i - start]!;
      if (h === 0) out.setItem(i, null);
      else write(i, lo[i - start]!, h);
    }
    start = end;
  }
  return true;
}

/**
 * The h3_* functions the expression language allows, implemented with h3-js (and a bit-exact JS port
 * of its latLngToCell) and registered on a DuckDB connection: no h3 extension can be downloaded here.
 * Cells are lowercase hex strings. `h3_latlng_to_cell_u64` returns the index as UBIGINT, written
 * straight into DuckDB's vector memory; the DuckDB dialect compiles h3_latlng_to_cell to
 * `lower(hex(h3_latlng_to_cell_u64(...)))` so the string is built natively, not one JS call per row.
 */
export function registerH3Functions(connection: DuckDBConnection): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'h3_latlng_to_cell_u64',
      returnType: UBIGINT,
      parameterTypes: [DOUBLE, DOUBLE, BIGINT],
      mainFunction: (info, input, out) => {
        const items = itemsOf(out, BigUint64Array);
        const u32 = items ? new Uint32Array(items.buffer, items.byteOffset, items.length * 2) : undefined;
        const write = u32
          ? (i: number, lo: number, hi: number) => { u32[i * 2] = lo; u32[i * 2 + 1] = hi; }
          : (i: number, lo: number, hi: number) => out.setItem(i, (BigInt(hi) << 32n) | BigInt(lo));
        if (indexVector(info, input, out, write)) out.flush();
      },
    }),
  );
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'h3_latlng_to_cell',
      returnType: VARCHAR,
      parameterTypes: [DOUBLE, DOUBLE, BIGINT],
      mainFunction: (info, input, out) => {
        if (indexVector(info, input, out, (i, lo, hi) => out.setItem(i, cellHex(lo, hi)))) out.flush();
      },
    }),
  );
  const cellFn = (name: string, returnType: typeof DOUBLE | typeof BIGINT, f: (cell: string) => number | bigint) =>
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name,
        returnType,
        parameterTypes: [VARCHAR],
        mainFunction: (_info, input, out) => {
          const v = input.getColumnVector(0) as DuckDBVector<string>;
          for (let i = 0; i < input.rowCount; i++) {
            const c = v.getItem(i);
            out.setItem(i, c !== null && isValidCell(c) ? f(c) : null);
          }
          out.flush();
        },
      }),
    );
  cellFn('h3_cell_to_lat', DOUBLE, (c) => cellToLatLng(c)[0]);
  cellFn('h3_cell_to_lng', DOUBLE, (c) => cellToLatLng(c)[1]);
  cellFn('h3_get_resolution', BIGINT, (c) => BigInt(getResolution(c)));
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'h3_cell_to_parent',
      returnType: VARCHAR,
      parameterTypes: [VARCHAR, BIGINT],
      mainFunction: (info, input, out) => {
        const v = input.getColumnVector(0) as DuckDBVector<string>;
        const res = input.getColumnVector(1) as unknown as DuckDBVector<bigint>;
        for (let i = 0; i < input.rowCount; i++) {
          const c = v.getItem(i);
          const r = res.getItem(i);
          if (c === null || r === null || !isValidCell(c)) { out.setItem(i, null); continue; }
          const rn = Number(r);
          if (!(rn >= 0 && rn <= 15)) { info.setError(`h3_cell_to_parent: resolution ${rn} is outside 0..15`); return; }
          out.setItem(i, rn > getResolution(c) ? null : cellToParent(c, rn));
        }
        out.flush();
      },
    }),
  );
}
