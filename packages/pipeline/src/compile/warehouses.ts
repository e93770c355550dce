import { StudioError } from '@studio/schema';
import { commonCall, h3Unavailable, quoteWith, type Dialect, type SqlType } from './dialect';
import { duckdb } from './duckdb';
import { postgres } from './postgres';
import { bigquerySpatial, redshiftSpatial, snowflakeSpatial, trinoSpatial, type SpatialSql } from './spatial-sql';

/**
 * The dialects of the warehouses pipelines are pushed down to. Each differs from the others in quoting,
 * type names, true division and a few functions; the rest of the compiler's SQL is the same everywhere.
 * Placeholders are `{{pN}}`: each driver turns them into its warehouse's own (`$n`, `?`, `@pN`, `:pN`)
 * and binds the values, so a compiled pipeline never carries a value in its text.
 */

const template = (n: number) => `{{p${n}}}`;

const unavailable = (dialect: string, fn: string) =>
  new StudioError(409, `${fn}() has no equivalent on ${dialect}`, 'Run this pipeline on the studio\'s own engine (a snapshot of the dataset)');

interface Spec {
  name: string;
  orderKey?: Dialect['orderKey'];
  quote: string;
  types: Record<SqlType, string>;
  divide: (a: string, b: string) => string;
  calls: Record<string, (a: string[]) => string>;
  /** The spatial steps' SQL; absent: they answer 409 naming the step. */
  spatial?: SpatialSql;
}

function dialectOf(spec: Spec): Dialect {
  const d: Dialect = {
    name: spec.name,
    quoteIdent: quoteWith(spec.quote),
    placeholder: template,
    typeName: (t) => spec.types[t],
    h3: false,
    divide: spec.divide,
    ...(spec.orderKey && { orderKey: spec.orderKey }),
    ...(spec.spatial && { spatial: spec.spatial }),
    call(fn, a) {
      if (fn.startsWith('h3_')) throw h3Unavailable(spec.name);
      const own = spec.calls[fn];
      if (own) return own(a);
      const sql = commonCall(d, fn, a);
      if (sql === undefined) throw unavailable(spec.name, fn);
      return sql;
    },
  };
  return d;
}

const doubleDivide = (a: string, b: string) => `(CAST(${a} AS DOUBLE) / NULLIF(${b}, 0))`;

/** Nulls last written as a key of its own: the same order, in SQL every grammar reads. */
const nullsLastKey = (expr: string, desc: boolean) => `(CASE WHEN ${expr} IS NULL THEN 1 ELSE 0 END) ASC, ${expr} ${desc ? 'DESC' : 'ASC'}`;

/** Presto and Trino, and Athena (engine version 3 is Trino). */
export const trinoDialect = dialectOf({
  name: 'trino',
  quote: '"',
  types: { bigint: 'BIGINT', double: 'DOUBLE', varchar: 'VARCHAR', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' },
  divide: doubleDivide,
  spatial: trinoSpatial,
  calls: {
    // Trino has no exact median: its approximate percentile (error well under 1% of the rank).
    median: (a) => `approx_percentile(CAST(${a[0]} AS DOUBLE), 0.5)`,
    mode: () => { throw unavailable('trino', 'mode'); },
    round: (a) => (a.length > 1 ? `round(${a[0]}, CAST(${a[1]} AS INTEGER))` : `round(${a[0]})`),
    pow: (a) => `power(${a[0]}, ${a[1]})`,
    date_trunc: (a) => `date_trunc(${a[0]}, ${a[1]})`,
    epoch_ms: (a) => `CAST(to_unixtime(CAST(${a[0]} AS TIMESTAMP)) * 1000 AS BIGINT)`,
  },
});

export const snowflakeDialect = dialectOf({
  name: 'snowflake',
  quote: '"',
  types: { bigint: 'BIGINT', double: 'DOUBLE', varchar: 'VARCHAR', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP_NTZ' },
  divide: doubleDivide,
  spatial: snowflakeSpatial,
  calls: {
    median: (a) => `median(${a[0]})`,
    mode: (a) => `mode(${a[0]})`,
    round: (a) => (a.length > 1 ? `round(${a[0]}, CAST(${a[1]} AS INTEGER))` : `round(${a[0]})`),
    pow: (a) => `power(${a[0]}, ${a[1]})`,
    date_trunc: (a) => `date_trunc(${a[0]}, ${a[1]})`,
    epoch_ms: (a) => `date_part(epoch_millisecond, CAST(${a[0]} AS TIMESTAMP_NTZ))`,
  },
});

export const bigqueryDialect = dialectOf({
  name: 'bigquery',
  quote: '`',
  orderKey: nullsLastKey,
  types: { bigint: 'INT64', double: 'FLOAT64', varchar: 'STRING', boolean: 'BOOL', timestamp: 'TIMESTAMP' },
  // BigQuery's own division that answers NULL on a zero divisor.
  divide: (a, b) => `SAFE_DIVIDE(${a}, ${b})`,
  spatial: bigquerySpatial,
  calls: {
    median: (a) => `APPROX_QUANTILES(${a[0]}, 2)[OFFSET(1)]`,
    mode: (a) => `APPROX_TOP_COUNT(${a[0]}, 1)[OFFSET(0)].value`,
    round: (a) => (a.length > 1 ? `ROUND(${a[0]}, CAST(${a[1]} AS INT64))` : `ROUND(${a[0]})`),
    pow: (a) => `POW(${a[0]}, ${a[1]})`,
    // The unit of TIMESTAMP_TRUNC is a keyword, not a value: a bound unit cannot reach it.
    date_trunc: () => { throw unavailable('bigquery', 'date_trunc'); },
    epoch_ms: (a) => `UNIX_MILLIS(CAST(${a[0]} AS TIMESTAMP))`,
    log10: (a) => `LOG10(${a[0]})`,
  },
});

/** Databricks SQL (Spark SQL). */
export const databricksDialect = dialectOf({
  name: 'databricks',
  quote: '`',
  orderKey: nullsLastKey,
  types: { bigint: 'BIGINT', double: 'DOUBLE', varchar: 'STRING', boolean: 'BOOLEAN', timestamp: 'TIMESTAMP' },
  divide: doubleDivide,
  calls: {
    median: (a) => `median(${a[0]})`,
    mode: (a) => `mode(${a[0]})`,
    round: (a) => (a.length > 1 ? `round(${a[0]}, CAST(${a[1]} AS INT))` : `round(${a[0]})`),
    pow: (a) => `pow(${a[0]}, ${a[1]})`,
    date_trunc: (a) => `date_trunc(${a[0]}, ${a[1]})`,
    epoch_ms: (a) => `unix_millis(CAST(${a[0]} AS TIMESTAMP))`,
  },
});

/**
 * A dialect that is another's with the placeholders of push-down and no H3 (PostgreSQL-like, DuckDB-like), and its
 * own spatial SQL or none (MotherDuck's spatial extension measures in degrees, not the studio's metres).
 */
function variantOf(base: Dialect, name: string, spatial: SpatialSql | undefined, types?: Partial<Record<SqlType, string>>): Dialect {
  const { spatial: _baseSpatial, ...rest } = base;
  const variant: Dialect = {
    ...rest,
    ...(spatial && { spatial }),
    name,
    placeholder: template,
    h3: false,
    typeName: (t) => types?.[t] ?? base.typeName(t),
    call: (fn, a) => {
      if (fn.startsWith('h3_')) throw h3Unavailable(name);
      // The shared functions with the variant's own type names (a cast to text on Redshift is VARCHAR(65535),
      // not the base's TEXT, which Redshift reads as VARCHAR(256) and cuts longer values at); the rest as the base writes them.
      return commonCall(variant, fn, a) ?? base.call(fn, a);
    },
  };
  return variant;
}

export const postgresPushDialect = variantOf(postgres, 'postgres', postgres.spatial);
export const redshiftDialect = variantOf(postgres, 'redshift', redshiftSpatial, { varchar: 'VARCHAR(65535)' });
/** Kinetica's SQL is PostgreSQL-like; VARCHAR is its text type. */
export const kineticaDialect = variantOf(postgres, 'kinetica', undefined, { varchar: 'VARCHAR' });
export const motherduckDialect = variantOf(duckdb, 'motherduck', undefined);

/** The push-down dialect of a warehouse connection's kind. */
export const WAREHOUSE_DIALECTS: Record<string, Dialect> = {
  postgres: postgresPushDialect,
  redshift: redshiftDialect,
  presto: trinoDialect,
  athena: trinoDialect,
  snowflake: snowflakeDialect,
  bigquery: bigqueryDialect,
  databricks: databricksDialect,
  kinetica: kineticaDialect,
  motherduck: motherduckDialect,
};
