import {
  BIGINT,
  DOUBLE,
  DuckDBScalarFunction,
  VARCHAR,
  type DuckDBConnection,
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
export function registerH3Functions(connection: DuckDBConnection): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'h3_latlng_to_cell',
      returnType: VARCHAR,
      parameterTypes: [DOUBLE, DOUBLE, BIGINT],
      mainFunction: (info, input, out) => {
        const lat = input.getColumnVector(0) as Num;
        const lng = input.getColumnVector(1) as Num;
        const res = input.getColumnVector(2) as unknown as DuckDBVector<bigint>;
        const n = input.rowCount;
        const pool = h3Pool();
        // Rows are batched per resolution (almost always one constant resolution per vector).
        for (let start = 0; start < n; ) {
          const r0 = res.getItem(start);
          let end = start + 1;
          while (end < n && end - start < H3Pool.capacity && res.getItem(end) === r0) end++;
          if (r0 === null) { for (let i = start; i < end; i++) out.setItem(i, null); start = end; continue; }
          const rn = Number(r0);
          if (!(rn >= 0 && rn <= 15)) { info.setError(`h3_latlng_to_cell: resolution ${rn} is outside 0..15`); return; }
          const { lat: la, lng: ln, lo, hi } = pool;
          for (let i = start; i < end; i++) { la[i - start] = lat.getItem(i) ?? NaN; ln[i - start] = lng.getItem(i) ?? NaN; }
          pool.compute(end - start, rn);
          for (let i = start; i < end; i++) {
            const h = hi[i - start]!;
            out.setItem(i, h === 0 ? null : cellHex(lo[i - start]!, h));
          }
          start = end;
        }
        out.flush();
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
