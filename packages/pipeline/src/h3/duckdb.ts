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
 * Fills `out[i]` for each row from the pool's lo/hi halves; `write(i, lo, hi)` stores one cell, and
 * rows whose cell is invalid (NULL / non-finite input) become NULL.
 */
function indexVector(info: DuckDBScalarFunctionInfo, input: DuckDBDataChunk, out: DuckDBVector, write: (i: number, lo: number, hi: number) => void): boolean {
  const lat = input.getColumnVector(0) as Num;
  const lng = input.getColumnVector(1) as Num;
  const res = input.getColumnVector(2) as unknown as DuckDBVector<bigint>;
  const n = input.rowCount;
  const pool = h3Pool();
  const latItems = itemsOf(lat, Float64Array);
  const lngItems = itemsOf(lng, Float64Array);
  for (let start = 0; start < n; ) {
    const r0 = res.getItem(start);
    let end = start + 1;
    while (end < n && end - start < H3Pool.capacity && res.getItem(end) === r0) end++;
    if (r0 === null) { for (let i = start; i < end; i++) out.setItem(i, null); start = end; continue; }
    const rn = Number(r0);
    if (!(rn >= 0 && rn <= 15)) { info.setError(`h3_latlng_to_cell: resolution ${rn} is outside 0..15`); return false; }
    const { lat: la, lng: ln, lo, hi } = pool;
    if (latItems && lngItems) { la.set(latItems.subarray(start, end)); ln.set(lngItems.subarray(start, end)); }
    for (let i = start; i < end; i++) {
      if (lat.getItem(i) === null) la[i - start] = NaN; else if (!latItems) la[i - start] = lat.getItem(i)!;
      if (lng.getItem(i) === null) ln[i - start] = NaN; else if (!lngItems) ln[i - start] = lng.getItem(i)!;
    }
    pool.compute(end - start, rn);
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
