import { describe, expect, it } from 'vitest';
import { WAREHOUSE_DIALECTS } from '../src/index';
import { commonCall, h3Unavailable } from '../src/compile/dialect';
import { duckdb } from '../src/compile/duckdb';
import { postgres } from '../src/compile/postgres';

/**
 * The SQL each warehouse receives for the pipeline's functions, types and operators: a table per concern,
 * one row per warehouse, written as that warehouse's documentation spells it. A wrong function name or a
 * wrong cast here is a query the warehouse refuses or, worse, answers differently.
 */
const d = (kind: string) => WAREHOUSE_DIALECTS[kind]!;

describe('functions each warehouse spells its own way', () => {
  it.each([
    ['presto', 'median', ['x'], 'approx_percentile(CAST(x AS DOUBLE), 0.5)'],
    ['snowflake', 'median', ['x'], 'median(x)'],
    ['bigquery', 'median', ['x'], 'APPROX_QUANTILES(x, 2)[OFFSET(1)]'],
    ['databricks', 'median', ['x'], 'median(x)'],
    ['snowflake', 'mode', ['x'], 'mode(x)'],
    ['bigquery', 'mode', ['x'], 'APPROX_TOP_COUNT(x, 1)[OFFSET(0)].value'],
    ['databricks', 'mode', ['x'], 'mode(x)'],
    ['athena', 'round', ['x', '{{p0}}'], 'round(x, CAST({{p0}} AS INTEGER))'],
    ['athena', 'round', ['x'], 'round(x)'],
    ['snowflake', 'round', ['x', '{{p0}}'], 'round(x, CAST({{p0}} AS INTEGER))'],
    ['snowflake', 'round', ['x'], 'round(x)'],
    ['bigquery', 'round', ['x', '{{p0}}'], 'ROUND(x, CAST({{p0}} AS INT64))'],
    ['bigquery', 'round', ['x'], 'ROUND(x)'],
    ['databricks', 'round', ['x', '{{p0}}'], 'round(x, CAST({{p0}} AS INT))'],
    ['databricks', 'round', ['x'], 'round(x)'],
    ['presto', 'pow', ['x', 'y'], 'power(x, y)'],
    ['snowflake', 'pow', ['x', 'y'], 'power(x, y)'],
    ['bigquery', 'pow', ['x', 'y'], 'POW(x, y)'],
    ['databricks', 'pow', ['x', 'y'], 'pow(x, y)'],
    ['presto', 'date_trunc', ['{{p0}}', 't'], 'date_trunc({{p0}}, t)'],
    ['snowflake', 'date_trunc', ['{{p0}}', 't'], 'date_trunc({{p0}}, t)'],
    ['databricks', 'date_trunc', ['{{p0}}', 't'], 'date_trunc({{p0}}, t)'],
    ['presto', 'epoch_ms', ['t'], 'CAST(to_unixtime(CAST(t AS TIMESTAMP)) * 1000 AS BIGINT)'],
    ['snowflake', 'epoch_ms', ['t'], 'date_part(epoch_millisecond, CAST(t AS TIMESTAMP_NTZ))'],
    ['bigquery', 'epoch_ms', ['t'], 'UNIX_MILLIS(CAST(t AS TIMESTAMP))'],
    ['databricks', 'epoch_ms', ['t'], 'unix_millis(CAST(t AS TIMESTAMP))'],
    ['bigquery', 'log10', ['x'], 'LOG10(x)'],
    // The functions every warehouse shares, with each one's own type names in casts.
    ['snowflake', 'to_timestamp', ['x'], 'CAST(x AS TIMESTAMP_NTZ)'],
    ['bigquery', 'to_integer', ['x'], 'CAST(x AS INT64)'],
    ['bigquery', 'to_string', ['x'], 'CAST(x AS STRING)'],
    ['databricks', 'year', ['t'], 'CAST(EXTRACT(YEAR FROM t) AS BIGINT)'],
    ['redshift', 'to_string', ['x'], 'CAST(x AS VARCHAR(65535))'],
    ['kinetica', 'to_string', ['x'], 'CAST(x AS VARCHAR)'],
    ['presto', 'sum', ['x'], 'sum(x)'],
  ])('%s: %s(%s) is %s', (kind, fn, args, sql) => {
    expect(d(kind).call(fn, [...args])).toBe(sql);
  });

  it.each([
    ['presto', 'mode', 'mode() has no equivalent on trino'],
    ['bigquery', 'date_trunc', 'date_trunc() has no equivalent on bigquery'],
    ['snowflake', 'no_such_function', 'no_such_function() has no equivalent on snowflake'],
  ])('%s refuses %s() by name (409) and says where it runs', (kind, fn, message) => {
    let error: unknown;
    try {
      d(kind).call(fn, ['x']);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 409, message, details: "Run this pipeline on the studio's own engine (a snapshot of the dataset)" });
  });

  it.each(Object.keys(WAREHOUSE_DIALECTS))('%s refuses H3 functions, naming itself, and declares no H3', (kind) => {
    const name = d(kind).name;
    expect(d(kind).h3).toBe(false);
    expect(() => d(kind).call('h3_latlng_to_cell', ['a', 'b', 'c'])).toThrow(`H3 functions need an H3 extension, which the ${name} connection does not have`);
    // A name merely containing h3_ is an ordinary function.
    expect(() => d(kind).call('sum', ['h3_x'])).not.toThrow();
  });
});

describe('types, division, quoting and placeholders per warehouse', () => {
  it.each([
    ['presto', ['BIGINT', 'DOUBLE', 'VARCHAR', 'BOOLEAN', 'TIMESTAMP']],
    ['snowflake', ['BIGINT', 'DOUBLE', 'VARCHAR', 'BOOLEAN', 'TIMESTAMP_NTZ']],
    ['bigquery', ['INT64', 'FLOAT64', 'STRING', 'BOOL', 'TIMESTAMP']],
    ['databricks', ['BIGINT', 'DOUBLE', 'STRING', 'BOOLEAN', 'TIMESTAMP']],
  ])('%s names the types %j', (kind, names) => {
    expect((['bigint', 'double', 'varchar', 'boolean', 'timestamp'] as const).map((t) => d(kind).typeName(t))).toEqual(names);
  });

  it.each([
    ['presto', '(CAST(a AS DOUBLE) / NULLIF(b, 0))'],
    ['snowflake', '(CAST(a AS DOUBLE) / NULLIF(b, 0))'],
    ['databricks', '(CAST(a AS DOUBLE) / NULLIF(b, 0))'],
    ['bigquery', 'SAFE_DIVIDE(a, b)'],
  ])('%s divides truly, NULL for a zero divisor: %s', (kind, sql) => {
    expect(d(kind).divide('a', 'b')).toBe(sql);
  });

  it.each([
    ['bigquery', '`a``b`'],
    ['databricks', '`a``b`'],
    ['snowflake', '"a`b"'],
    ['presto', '"a`b"'],
  ])('%s quotes an identifier with a backtick in it as %s', (kind, quoted) => {
    expect(d(kind).quoteIdent('a`b')).toBe(quoted);
  });

  it.each(Object.keys(WAREHOUSE_DIALECTS))('%s receives values as {{pN}} placeholders its driver binds', (kind) => {
    expect(d(kind).placeholder(3)).toBe('{{p3}}');
  });

  it.each([
    ['bigquery', true],
    ['databricks', true],
    ['snowflake', false],
    ['presto', false],
  ])('%s sorts nulls last with a key of their own: %s', (kind, own) => {
    const key = d(kind).orderKey?.('x', true);
    if (own) expect(key).toBe('(CASE WHEN x IS NULL THEN 1 ELSE 0 END) ASC, x DESC');
    else expect(key).toBeUndefined();
    if (own) expect(d(kind).orderKey!('x', false)).toBe('(CASE WHEN x IS NULL THEN 1 ELSE 0 END) ASC, x ASC');
  });
});

describe('functions every engine writes alike', () => {
  const same = ['sum', 'min', 'max', 'avg', 'abs', 'floor', 'ceil', 'sqrt', 'ln', 'log10', 'exp', 'lower', 'upper', 'length', 'trim', 'concat', 'coalesce', 'nullif'];
  it.each(same)('%s(a, b) keeps its name and arguments', (fn) => {
    expect(commonCall(duckdb, fn, ['a', 'b'])).toBe(`${fn}(a, b)`);
  });

  it.each([
    ['count', ['x', 'ignored'], 'count(x)'],
    ['substring', ['s', '{{p1}}', '{{p2}}'], 'substr(s, {{p1}}, {{p2}})'],
    ['to_double', ['x'], 'CAST(x AS DOUBLE PRECISION)'],
    ['to_integer', ['x'], 'CAST(x AS BIGINT)'],
    ['to_string', ['x'], 'CAST(x AS TEXT)'],
    ['to_timestamp', ['x'], 'CAST(x AS TIMESTAMP)'],
    ['year', ['t'], 'CAST(EXTRACT(YEAR FROM t) AS BIGINT)'],
    ['month', ['t'], 'CAST(EXTRACT(MONTH FROM t) AS BIGINT)'],
    ['day', ['t'], 'CAST(EXTRACT(DAY FROM t) AS BIGINT)'],
    ['hour', ['t'], 'CAST(EXTRACT(HOUR FROM t) AS BIGINT)'],
    ['median', ['x'], undefined],
  ])('%s on PostgreSQL is %s', (fn, args, sql) => {
    expect(commonCall(postgres, fn, [...args])).toBe(sql);
  });

  it('says where H3 expressions run when a connection cannot', () => {
    expect(h3Unavailable('snowflake')).toMatchObject({ status: 409, details: 'Run H3 expressions (h3_*, enrich with LATLNG) on the DuckDB engine' });
  });
});
