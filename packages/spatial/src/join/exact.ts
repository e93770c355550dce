import { BOOLEAN, DuckDBAnyType, DuckDBScalarFunction, DuckDBTypeId, type DuckDBConnection, type DuckDBVector } from '@duckdb/node-api';
import { SpatialInputError } from '../args';
import { numberOf } from '../define';
import type { Geos } from '../geos';
import { BuildRegistry } from './registry';

/**
 * `studio_sj_xy(op, h, x, y)`, the exact test of a point probe on a boundary cell: op(build geometry numbered h,
 * POINT(x y)), op 'contains' / 'covers' / 'intersects' (or 0 / 1 / 2, what plan.ts writes). Called once a candidate
 * pair on a boundary cell (850k times for 1M points in the US counties at 8 cells a degree), so it is written against
 * the vectors, as key.ts is: DOUBLEs and BIGINTs read from their typed arrays, the op's text decoded once a chunk.
 * Through define.ts's per-row machinery, with a second call asking the registry, a pair cost about twice as much.
 */
type Op = 'contains' | 'covers' | 'intersects';
const OP_CODES: readonly Op[] = ['contains', 'covers', 'intersects'];
export const OP_CODE: Record<Op, number> = { contains: 0, covers: 1, intersects: 2 };

/** Row i's number of a numeric vector (NaN for NULL): DOUBLE and BIGINT from their typed arrays. */
function numbers(v: DuckDBVector): (i: number) => number {
  const typed = v as unknown as { items?: Float64Array | BigInt64Array; validity: { itemValid(i: number): boolean } };
  if (v.type.typeId === DuckDBTypeId.DOUBLE && typed.items instanceof Float64Array) {
    const items = typed.items;
    return (i) => (typed.validity.itemValid(i) ? items[i]! : NaN);
  }
  return (i) => numberOf(v.getItem(i));
}

/** Row i's op: by code, or by name (a VARCHAR constant is read once a chunk when DuckDB passes it as one value). */
function ops(v: DuckDBVector): (i: number) => Op | null {
  if (v.type.typeId === DuckDBTypeId.VARCHAR) {
    let last: string | null | undefined;
    let lastOp: Op | null = null;
    return (i) => {
      const t = (v as DuckDBVector<string>).getItem(i);
      if (t === last) return lastOp;
      if (t !== null && !OP_CODES.includes(t as Op)) throw new SpatialInputError(`spatial join: unknown test ${t}`);
      [last, lastOp] = [t, t as Op | null];
      return lastOp;
    };
  }
  const code = numbers(v);
  return (i) => {
    const c = code(i);
    if (Number.isNaN(c)) return null;
    const op = OP_CODES[c];
    if (!op) throw new SpatialInputError(`spatial join: unknown test ${c}`);
    return op;
  };
}

export function registerExactTest(connection: DuckDBConnection, geos: Geos): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'studio_sj_xy',
      returnType: BOOLEAN,
      varArgsType: DuckDBAnyType.instance, // checked below: 4 arguments
      mainFunction: (info, input, out) => {
        const rows = input.rowCount;
        const count = input.columnCount;
        try {
          if (count !== 4) throw new SpatialInputError(`spatial join: the exact test takes 4 arguments, not ${count}`);
          const op = ops(input.getColumnVector(0));
          const h = numbers(input.getColumnVector(1)), x = numbers(input.getColumnVector(2)), y = numbers(input.getColumnVector(3));
          const registry = BuildRegistry.of(geos);
          for (let i = 0; i < rows; i++) {
            const o = op(i), id = h(i), px = x(i), py = y(i);
            if (o === null || Number.isNaN(id)) { out.setItem(i, null); continue; }
            // An empty point (or a NULL coordinate, which the key already sent nowhere): no predicate holds.
            if (Number.isNaN(px + py)) { out.setItem(i, false); continue; }
            // The build side is the container (plan.ts): op(build, point). A point is covered exactly when it intersects.
            out.setItem(i, geos.preparedXY(o === 'covers' ? 'intersects' : o, registry.prepared(id), px, py));
          }
          out.flush();
        } catch (e) {
          info.setError(e instanceof SpatialInputError ? e.message : `spatial join: ${(e as Error).message}`);
        }
      },
    }),
  );
}
