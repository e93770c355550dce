import {
  BIGINT,
  DOUBLE,
  DuckDBScalarFunction,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBVector,
} from '@duckdb/node-api';
import { cellToLatLng, cellToParent, getResolution, isValidCell, latLngToCell } from 'h3-js';

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
        const lng = input.getColumnVector(1) as unknown as Num;
        const res = input.getColumnVector(2) as unknown as DuckDBVector<bigint>;
        const n = input.rowCount;
        for (let i = 0; i < n; i++) {
          const a = lat.getItem(i);
          const b = lng.getItem(i);
          const r = res.getItem(i);
          if (a === null || b === null || r === null) { out.setItem(i, null); continue; }
          const rn = Number(r);
          if (!(rn >= 0 && rn <= 15)) { info.setError(`h3_latlng_to_cell: resolution ${rn} is outside 0..15`); return; }
          out.setItem(i, Number.isFinite(a) && Number.isFinite(b) ? latLngToCell(a, b, rn) : null);
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
