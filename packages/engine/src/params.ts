import { BOOLEAN, DOUBLE, LIST, VARCHAR, listValue, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/** Query parameters as DuckDB's bind takes them: values, and the types it cannot work out itself. */
export interface BoundParams {
  values: DuckDBValue[];
  /** One entry a value; undefined lets DuckDB infer it (numbers: DOUBLE, strings: VARCHAR, ...). */
  types: (DuckDBType | undefined)[];
}

const scalarType = (v: unknown): DuckDBType => (typeof v === 'boolean' ? BOOLEAN : typeof v === 'number' ? DOUBLE : VARCHAR);

/**
 * JS arrays become DuckDB LISTs typed by their first non-null item: DuckDB cannot infer a list's item
 * type ("Cannot create values of type ANY"), and compiled pipelines bind lists (inline data columns,
 * hexify cells, IN lists). The SQL casts them further where it needs another type.
 */
export function bindable(params: readonly unknown[] = []): BoundParams {
  const values: DuckDBValue[] = [];
  const types: (DuckDBType | undefined)[] = [];
  for (const p of params) {
    if (Array.isArray(p)) {
      values.push(listValue(p as DuckDBValue[]));
      types.push(LIST(scalarType(p.find((x) => x !== null && x !== undefined))));
    } else {
      values.push(p as DuckDBValue);
      types.push(undefined);
    }
  }
  return { values, types };
}

/** The values and types arguments of DuckDB's run(sql, values, types): none when there is nothing to bind. */
export function runArgs(p: BoundParams): [DuckDBValue[] | undefined, DuckDBType[] | undefined] {
  return p.values.length ? [p.values, p.types as DuckDBType[]] : [undefined, undefined];
}
