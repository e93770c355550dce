import { StudioError } from '@studio/schema';
import type { SpatialSql } from './spatial-sql';

/** Column types the compiler itself produces (inline data, casts). */
export type SqlType = 'bigint' | 'double' | 'varchar' | 'boolean' | 'timestamp';

/**
 * Everything that differs between SQL engines. The compiler only talks to this interface, so a new
 * warehouse is one more implementation (see duckdb.ts, postgres.ts).
 */
export interface Dialect {
  readonly name: string;
  /** The only way an identifier reaches SQL. */
  quoteIdent(name: string): string;
  /** Placeholder for the n-th (1-based) bound parameter. */
  placeholder(n: number): string;
  typeName(t: SqlType): string;
  /** A canonical allow-listed function (functions.ts) applied to compiled argument SQL. */
  call(name: string, args: string[]): string;
  /** True division that yields NULL on a zero divisor, in both engines. */
  divide(a: string, b: string): string;
  /** Whether h3_* functions exist on this engine (DuckDB: registered from h3-js). */
  readonly h3: boolean;
  /** One ORDER BY key, nulls last (default `expr ASC|DESC NULLS LAST`). */
  orderKey?(expr: string, desc: boolean): string;
  /** The spatial steps' SQL (spatial-sql.ts); absent where the engine has no spatial SQL (the steps answer 409). */
  readonly spatial?: SpatialSql;
}

export const quoteWith = (q: string) => (name: string) => {
  if (name.includes('\u0000')) throw new StudioError(422, 'Identifiers cannot contain NUL characters');
  return q + name.split(q).join(q + q) + q;
};

/** Functions whose SQL is the same in every supported dialect. */
export function commonCall(d: Dialect, name: string, a: string[]): string | undefined {
  const t = d.typeName.bind(d);
  switch (name) {
    case 'sum': case 'min': case 'max': case 'avg': case 'abs': case 'floor': case 'ceil': case 'sqrt':
    case 'ln': case 'log10': case 'exp': case 'lower': case 'upper': case 'length': case 'trim':
    case 'concat': case 'coalesce': case 'nullif':
      return `${name}(${a.join(', ')})`;
    case 'count': return `count(${a[0]})`;
    case 'substring': return `substr(${a.join(', ')})`;
    case 'to_double': return `CAST(${a[0]} AS ${t('double')})`;
    case 'to_integer': return `CAST(${a[0]} AS ${t('bigint')})`;
    case 'to_string': return `CAST(${a[0]} AS ${t('varchar')})`;
    case 'to_timestamp': return `CAST(${a[0]} AS ${t('timestamp')})`;
    case 'year': case 'month': case 'day': case 'hour':
      return `CAST(EXTRACT(${name.toUpperCase()} FROM ${a[0]}) AS ${t('bigint')})`;
    default: return undefined;
  }
}

export const h3Unavailable = (dialect: string) =>
  new StudioError(
    409,
    `H3 functions need an H3 extension, which the ${dialect} connection does not have`,
    'Run H3 expressions (h3_*, enrich with LATLNG) on the DuckDB engine',
  );
