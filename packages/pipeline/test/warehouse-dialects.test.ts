import { DuckDBInstance } from '@duckdb/node-api';
import { Parser } from 'node-sql-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_DIALECTS, compilePipeline } from '../src/index';
import { ds } from './fixtures';

/**
 * Every push-down dialect's compiled SQL, read by a parser for that dialect that the studio did not write:
 * node-sql-parser's own grammar per database, and DuckDB's json_serialize_sql for MotherDuck. Where it has
 * no grammar of the warehouse, the nearest (named here and in docs/decisions.md): Databricks → hive
 * (Spark SQL descends from HiveQL), Kinetica → postgresql, Presto and Athena (engine version 3 is Trino) → trino.
 */
const PARSERS: Record<string, string> = {
  postgres: 'postgresql', redshift: 'redshift', presto: 'trino', athena: 'trino', snowflake: 'snowflake', bigquery: 'bigquery',
  databricks: 'hive', kinetica: 'postgresql', motherduck: 'duckdb',
};

const PIPELINES: [string, unknown][] = [
  ['filter, group and sort', { type: 'sort', by: ['desc(total)'], input: [{ type: 'group', by: ['city'], expressions: ['sum(metric1) AS total', 'count(*) AS n', 'avg(metric2) AS mean'], input: [{ type: 'filter', expression: "city <> 'z' AND metric1 > 1", input: [ds('people')] }] }] }],
  ['select with arithmetic and casts', { type: 'select', expressions: ['id', 'metric1 / metric2 AS ratio', 'round(metric2, 1) AS r', 'upper(name) AS big', "concat(name, '!') AS shout"], input: [ds('people')] }],
  ['limit and offset after a sort', { type: 'limit', length: 3, offset: 1, input: [{ type: 'sort', by: ['asc(id)'], input: [ds('people')] }] }],
  ['text search', { type: 'filter', expression: "name LIKE 'a%' OR city IS NULL", input: [ds('people')] }],
  ['a median', { type: 'group', by: ['city'], expressions: ['median(metric2) AS med'], input: [ds('people')] }],
];

/** The compiled text with each bound value written as a literal, for a parser that knows no {{pN}}. */
const withLiterals = (sql: string) => sql.replace(/\{\{p\d+\}\}/g, '1');
const RELATION = 'people_table';

let duck: DuckDBInstance;
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
});
afterAll(() => duck.closeSync());

async function duckdbParses(sql: string): Promise<void> {
  const c = await duck.connect();
  try {
    const r = (await c.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS j', [sql])).getRowObjectsJS()[0]!.j as string;
    const parsed = JSON.parse(r) as { error: boolean; error_message?: string };
    if (parsed.error) throw new Error(parsed.error_message);
  } finally {
    c.closeSync();
  }
}

describe('pushed-down pipelines parse in their warehouse dialect', () => {
  const parser = new Parser();
  const cases = Object.keys(WAREHOUSE_DIALECTS).flatMap((kind) => PIPELINES.map(([what, p]) => [kind, what, p] as const));
  it.each(cases)('%s: %s', async (kind, _what, pipeline) => {
    let compiled;
    try {
      compiled = compilePipeline(pipeline, { dialect: WAREHOUSE_DIALECTS[kind]!, resolveDataset: () => ({ relationSql: RELATION }) });
    } catch (e) {
      // A function the warehouse lacks is refused by name (409), never sent.
      expect(e).toMatchObject({ status: 409, message: expect.stringMatching(/has no equivalent on|need an H3 extension/) });
      return;
    }
    expect(compiled.sql).not.toMatch(/'(a%|z|!)'/);
    const sql = withLiterals(compiled.sql);
    if (PARSERS[kind] === 'duckdb') await duckdbParses(sql);
    else expect(() => parser.astify(sql, { database: PARSERS[kind] })).not.toThrow();
  });

  it('quotes identifiers as each warehouse does', () => {
    const p = { type: 'select', expressions: ['id AS "a b"'], input: [ds('people')] };
    const sqlOf = (kind: string) => compilePipeline(p, { dialect: WAREHOUSE_DIALECTS[kind]!, resolveDataset: () => ({ relationSql: RELATION }) }).sql;
    expect(sqlOf('bigquery')).toContain('`a b`');
    expect(sqlOf('databricks')).toContain('`a b`');
    expect(sqlOf('snowflake')).toContain('"a b"');
    expect(sqlOf('presto')).toContain('"a b"');
  });
});
