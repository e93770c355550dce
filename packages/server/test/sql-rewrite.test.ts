import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFound } from '@studio/schema';
import { SqlSandbox } from '../src/services/sql-sandbox';

/**
 * The sandbox's first wall (services/sql-sandbox/rewrite.ts), case by case: which names are datasets and
 * which are CTEs in scope, and what is refused with which message. A user who writes a WITH query must get
 * their CTEs; a name they did not declare must be a dataset they may read, or nothing.
 */
let dataDir: string;
let sandbox: SqlSandbox;
let places: string;
let other: string;
let zones: string;
let stops: string;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rewrite-'));
  places = path.join(dataDir, 'places.parquet');
  other = path.join(dataDir, 'b.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (SELECT * FROM (VALUES ('Ferry Building', 1), ('Coit Tower', 2)) t(name, n)) TO '${places}' (FORMAT parquet)`);
  await c.run(`COPY (SELECT 'from the dataset b' AS source) TO '${other}' (FORMAT parquet)`);
  zones = path.join(dataDir, 'zones.parquet');
  stops = path.join(dataDir, 'stops.parquet');
  await c.run(`COPY (SELECT * FROM (VALUES (1, 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))'), (2, 'POLYGON((10 10, 12 10, 12 12, 10 12, 10 10))')) t(id, geom)) TO '${zones}' (FORMAT parquet)`);
  await c.run(`COPY (SELECT * FROM (VALUES (1.0, 1.0), (2.0, 2.0), (4.0, 2.0), (11.0, 11.0), (20.0, 20.0)) t(lng, lat)) TO '${stops}' (FORMAT parquet)`);
  c.closeSync();
  db.closeSync();
  sandbox = new SqlSandbox({ dir: path.join(dataDir, 'sandbox'), memoryLimit: '256MB', maxInstances: 2, dataDir });
});
afterAll(async () => {
  await sandbox?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const datasets: Record<string, string> = {};
const resolve = async (name: string) => {
  const file = ({ places, b: other, zones, stops } as Record<string, string>)[name] ?? datasets[name];
  if (!file) throw notFound(`Unknown table ${name}`);
  return file;
};
const rows = async (query: string) => sandbox.readRows(await sandbox.compile(query, resolve));
const refusal = async (query: string) => {
  try {
    await rows(query);
  } catch (e) {
    return `${(e as { status?: number }).status} ${(e as Error).message}`;
  }
  return 'answered';
};

describe('names in a query', () => {
  it.each([
    ['a CTE in scope', 'WITH x AS (SELECT 41 AS a) SELECT a + 1 FROM x', [[42]]],
    ['CTEs that read earlier ones', 'WITH a AS (SELECT n FROM places), b AS (SELECT sum(n) AS s FROM a) SELECT s FROM b', [[3n]]],
    ['a recursive CTE reading itself', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT count(*) FROM r', [[3n]]],
    ['a CTE named like the dataset it reads (the inner name is the dataset)', 'WITH places AS (SELECT name FROM places WHERE n = 2) SELECT name FROM places', [['Coit Tower']]],
    ['a later CTE, not visible in an earlier one (the name is a dataset there)', "WITH a AS (SELECT source FROM b), b AS (SELECT 'the CTE' AS source) SELECT source FROM a", [['from the dataset b']]],
    ['a CTE of a subquery, not visible outside it', "SELECT (WITH b AS (SELECT 'inner' AS source) SELECT source FROM b) AS i, (SELECT source FROM b) AS o", [['inner', 'from the dataset b']]],
    // Numbers written with an exponent or a point survive the AST's round trip as doubles (was 422 "expected type 'double'").
    ['numbers in scientific notation', 'SELECT 1e6 / 4 AS a, 1E3 = 1000 AS b, 2.5e-1 * 4 = 1 AS c', [[250000, true, true]]],
  ])('%s', async (_label, query, expected) => {
    expect(await rows(query)).toEqual(expected);
  });
});

describe('spatial joins', () => {
  // (4, 2) lies on zone 1's edge: ST_Contains leaves it out, as PostGIS does.
  const query = 'SELECT z.id, count(*) AS n FROM stops s JOIN zones z ON ST_Contains(z.geom, ST_Point(s.lng, s.lat)) GROUP BY 1 ORDER BY 1';
  it('a join on ST_Contains is planned as a hash join on grid keys and counts as the nested loop does', async () => {
    const compiled = await sandbox.compile(query, resolve);
    expect(compiled.sql).toContain('studio_sj_cover');
    expect(await sandbox.readRows(compiled)).toEqual([[1, 2n], [2, 1n]]);
  });
  it('SELECT * of a planned join shows only the datasets\' columns', async () => {
    const got = await rows('SELECT * FROM stops s JOIN zones z ON ST_Intersects(ST_Point(s.lng, s.lat), z.geom) ORDER BY s.lng');
    expect(got.map((r) => r.length)).toEqual([4, 4, 4, 4]);
  });
});

describe('refusals', () => {
  it.each([
    ['two statements', 'SELECT 1; SELECT 2', '422 Exactly one SELECT statement is allowed'],
    ['a statement other than SELECT', "INSERT INTO places VALUES ('x', 1)", '422 Could not parse query: Only SELECT statements can be serialized to json!'],
    ['a table function', "SELECT * FROM read_csv('/etc/passwd')", '422 Table functions are not allowed in queries: read_csv'],
    ['a file-reading function in an expression', "SELECT getenv('HOME')", '422 Function not allowed in queries: getenv'],
    ['a setting', "SELECT current_setting('allowed_paths')", '422 Function not allowed in queries: current_setting'],
    ['a schema-qualified function', "SELECT main.lower('A')", '422 Function not allowed in queries: lower'],
    ['a catalog-qualified function', "SELECT system.main.lower('A')", '422 Function not allowed in queries: lower'],
    ['a schema-qualified table', 'SELECT * FROM main.places', '422 Unknown table main.places'],
    ['a catalog-qualified table', 'SELECT * FROM memory.main.places', '422 Unknown table main.places'],
    ['time travel', 'SELECT * FROM places AT (VERSION => 1)', '422 Time travel (AT) is not allowed in queries'],
    ['a name that is no dataset', 'SELECT * FROM nowhere', '404 Unknown table nowhere'],
  ])('%s', async (_label, query, message) => {
    expect(await refusal(query)).toBe(message);
  });
});
