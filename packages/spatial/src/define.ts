import {
  DuckDBAnyType,
  DuckDBDecimalValue,
  DuckDBScalarFunction,
  DuckDBTypeId,
  blobValue,
  listValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBVector,
} from '@duckdb/node-api';
import { GeomReader, SpatialInputError, TextMemo, geomValueAt, type GeomValue } from './args';
import { GeosError, type Geos, type GeomPtr, type PreparedPtr } from './geos';
import type { Shape } from './wkb';

/**
 * One scalar function as DuckDB sees it, declared by the kinds of its arguments. Every argument is registered as
 * ANY (varargs when some are optional): @duckdb/node-api 1.5.6 allows no overloads from JS and exposes no argument
 * types at bind, so a function reads each vector's actual type per chunk — text, BLOB or GEOMETRY for a geometry.
 * NULL in any argument answers NULL (PostGIS's functions are STRICT).
 */
export type ArgKind = 'geom' | 'num' | 'text' | 'list';

export interface Row {
  /** A geometry argument as GEOS holds it (k counted from 0). */
  geom(k: number): GeomPtr;
  /** The argument prepared, when its value repeats (a join's polygon), else null. */
  prepared(k: number): PreparedPtr | null;
  shape(k: number): Shape;
  value(k: number): GeomValue;
  num(k: number): number;
  text(k: number): string;
  list(k: number): unknown[];
  /** How many arguments this call has. */
  readonly count: number;
  readonly reader: GeomReader;
  readonly geos: Geos;
}

export interface FunctionSpec {
  /** As users write it, e.g. ST_Area; registered lowercased. */
  label: string;
  /** The registered name when it is not the label lowercased (a name the sandbox's rewrite maps to). */
  name?: string;
  args: ArgKind[];
  optional?: ArgKind[];
  returns: DuckDBType;
  row(r: Row): unknown;
}

/** A DuckDB numeric value as a JS number (BIGINT and HUGEINT values arrive as bigints, DECIMAL ones as DuckDBDecimalValue); NaN otherwise. */
export const numberOf = (x: unknown): number => {
  if (typeof x === 'number') return x;
  if (typeof x === 'bigint') return Number(x);
  if (x instanceof DuckDBDecimalValue) return x.toDouble();
  return NaN;
};

const NUMERIC = new Set([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER, DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT, DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL,
]);

function outValue(type: DuckDBType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return blobValue(v);
  if (Array.isArray(v)) return listValue(v as string[]);
  if (typeof v === 'number' && Number.isNaN(v)) return null;
  if (type.typeId === DuckDBTypeId.INTEGER && typeof v === 'number') return v;
  return v;
}

/** Registers `spec` on the connection over the process's GEOS. */
export function registerFunction(connection: DuckDBConnection, geos: Geos, spec: FunctionSpec): void {
  const { label, args, optional = [] } = spec;
  const kinds = [...args, ...optional];
  const arity = optional.length ? `${args.length} to ${kinds.length}` : String(args.length);
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: spec.name ?? label.toLowerCase(),
      returnType: spec.returns,
      ...(optional.length ? { varArgsType: DuckDBAnyType.instance } : { parameterTypes: args.map(() => DuckDBAnyType.instance) }),
      mainFunction: (info, input, out) => {
        const count = input.columnCount;
        const rows = input.rowCount; // a native call each time it is read
        try {
          if (count < args.length || count > kinds.length) throw new SpatialInputError(`${label} takes ${arity} arguments, not ${count}`);
          const vectors: DuckDBVector[] = [];
          for (let j = 0; j < count; j++) {
            const v = input.getColumnVector(j);
            const kind = kinds[j]!;
            if (kind === 'num' && !NUMERIC.has(v.type.typeId) && v.type.typeId !== DuckDBTypeId.SQLNULL) throw new SpatialInputError(`${label}: argument ${j + 1} must be a number, not ${v.type.toString()}`);
            if (kind === 'text' && v.type.typeId !== DuckDBTypeId.VARCHAR && v.type.typeId !== DuckDBTypeId.SQLNULL) throw new SpatialInputError(`${label}: argument ${j + 1} must be text, not ${v.type.toString()}`);
            if (kind === 'list' && v.type.typeId !== DuckDBTypeId.LIST && v.type.typeId !== DuckDBTypeId.SQLNULL) throw new SpatialInputError(`${label}: argument ${j + 1} must be a list of geometries, not ${v.type.toString()}`);
            vectors.push(v);
          }
          const reader = new GeomReader(geos, label);
          const memos = vectors.map((v, j) => (kinds[j] === 'geom' && v.type.typeId === DuckDBTypeId.VARCHAR ? TextMemo.of(v) : undefined));
          let i = 0;
          const values: unknown[] = new Array(count);
          const geomValues: (GeomValue | null)[] = new Array(count);
          const row: Row = {
            geom: (k) => reader.geom(k + 1, geomValues[k]!),
            prepared: (k) => reader.prepared(k + 1, geomValues[k]!),
            shape: (k) => reader.shape(k + 1, geomValues[k]!),
            value: (k) => geomValues[k]!,
            num: (k) => values[k] as number,
            text: (k) => values[k] as string,
            list: (k) => values[k] as unknown[],
            count,
            reader,
            geos,
          };
          for (i = 0; i < rows; i++) {
            let isNull = false;
            for (let j = 0; j < count && !isNull; j++) {
              const kind = kinds[j]!;
              if (kind === 'geom') {
                const g = geomValueAt(label, j + 1, vectors[j]!, i, memos[j]);
                geomValues[j] = g;
                isNull = g === null;
              } else {
                const raw = vectors[j]!.getItem(i);
                isNull = raw === null;
                values[j] = kind === 'num' ? numberOf(raw) : kind === 'list' ? (raw as { items?: unknown[] } | null)?.items : raw;
              }
            }
            if (isNull) { out.setItem(i, null); continue; }
            try {
              out.setItem(i, outValue(spec.returns, spec.row(row)) as never);
            } finally {
              reader.release();
            }
          }
          out.flush();
        } catch (e) {
          if (e instanceof SpatialInputError) info.setError(e.message);
          else if (e instanceof GeosError) info.setError(`${label}: GEOS could not compute it: ${e.message}${/Topology|Invalid|Self-intersection/i.test(e.message) ? ' (the input is likely an invalid geometry: ST_MakeValid repairs it)' : ''}`);
          else info.setError(`${label}: ${(e as Error).message}`);
        }
      },
    }),
  );
}
