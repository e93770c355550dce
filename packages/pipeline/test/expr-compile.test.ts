import { describe, expect, it } from 'vitest';
import { bareColumns, compileExpr, defaultName } from '../src/compile/expr';
import { Params } from '../src/compile/params';
import { duckdb } from '../src/compile/duckdb';
import { bigqueryDialect } from '../src/compile/warehouses';
import { parseExpression, parseItem } from '../src/expr/parse';

/** An expression as the engine receives it: SQL text with placeholders, and the values bound to them. */
function compiled(text: string, opts: { qualifier?: string; dialect?: typeof duckdb } = {}) {
  const dialect = opts.dialect ?? duckdb;
  const params = new Params(dialect);
  const sql = compileExpr(parseExpression(text), { dialect, params, qualifier: opts.qualifier });
  return { sql, values: params.values };
}

describe('expressions compiled to SQL with bound values', () => {
  it.each([
    // Literals are bound, typed by kind: whole numbers BIGINT, others DOUBLE; text and booleans cast.
    ['7', 'CAST($1 AS BIGINT)', [7]],
    ['2.5', 'CAST($1 AS DOUBLE)', [2.5]],
    ["'x'", 'CAST($1 AS VARCHAR)', ['x']],
    ['true', 'CAST($1 AS BOOLEAN)', [true]],
    ['NULL', 'NULL', []],
    // Next to a column in a comparison, a text literal takes the column's type (e.g. a timestamp): no cast.
    ["ts >= '2024-01-01'", '("ts" >= $1)', ['2024-01-01']],
    ["'2024-01-01' < ts", '($1 < "ts")', ['2024-01-01']],
    // Two literals compared keep their casts (no column to take a type from).
    ["'a' = 'b'", '(CAST($1 AS VARCHAR) = CAST($2 AS VARCHAR))', ['a', 'b']],
    ['a != b', '("a" <> "b")', []],
    ['a / b', '("a" / NULLIF("b", 0))', []],
    ['a AND NOT b', '("a" AND (NOT "b"))', []],
    ['a OR b', '("a" OR "b")', []],
    ['- a', '(- "a")', []],
    ["city IN ('Oslo', 'Rome')", '("city" IN ($1, $2))', ['Oslo', 'Rome']],
    ["'Oslo' IN ('Oslo', 'Rome')", '(CAST($1 AS VARCHAR) IN (CAST($2 AS VARCHAR), CAST($3 AS VARCHAR)))', ['Oslo', 'Oslo', 'Rome']],
    ["city NOT IN ('Oslo')", '("city" NOT IN ($1))', ['Oslo']],
    ["ts BETWEEN '2024-01-01' AND '2024-02-01'", '("ts" BETWEEN $1 AND $2)', ['2024-01-01', '2024-02-01']],
    ['n NOT BETWEEN 1 AND 2', '("n" NOT BETWEEN CAST($1 AS BIGINT) AND CAST($2 AS BIGINT))', [1, 2]],
    ['x IS NULL', '("x" IS NULL)', []],
    ['x IS NOT NULL', '("x" IS NOT NULL)', []],
    ["name LIKE 'a%'", '(CAST("name" AS VARCHAR) LIKE CAST($1 AS VARCHAR))', ['a%']],
    ["name NOT LIKE 'a%'", '(CAST("name" AS VARCHAR) NOT LIKE CAST($1 AS VARCHAR))', ['a%']],
    ["date_trunc('month', ts)", "date_trunc('month', \"ts\")", []],
    ['count(*)', 'count(*)', []],
    ['sum(metric1)', 'sum("metric1")', []],
  ])('%s', (text, sql, values) => {
    expect(compiled(text)).toEqual({ sql, values });
  });

  it('qualifies columns with the table alias it is given', () => {
    expect(compiled('a + 1', { qualifier: 't' }).sql).toBe('(t."a" + CAST($1 AS BIGINT))');
  });

  it("writes the warehouse's own types and division", () => {
    expect(compiled("a / 2 = 'x' OR 'y' = 'z'", { dialect: bigqueryDialect })).toEqual({
      sql: '((SAFE_DIVIDE(`a`, CAST({{p1}} AS INT64)) = {{p2}}) OR (CAST({{p3}} AS STRING) = CAST({{p4}} AS STRING)))',
      values: [2, 'x', 'y', 'z'],
    });
  });

  // The parser refuses these first; the compiler refuses them again for an AST from anywhere else.
  it.each([
    ['a date_trunc unit it does not know', { kind: 'call', name: 'date_trunc', pos: 0, args: [{ kind: 'literal', value: 'week', pos: 11 }, { kind: 'column', name: 'ts', pos: 19 }] }, 'Invalid date_trunc unit at position 11'],
    ['an unknown function', { kind: 'call', name: 'nosuch', pos: 4, args: [] }, "Unknown function 'nosuch' at position 4"],
  ])('refuses %s (422)', (_label, ast, message) => {
    const params = new Params(duckdb);
    expect(() => compileExpr(ast as never, { dialect: duckdb, params })).toThrow(expect.objectContaining({ status: 422, message }));
  });
});

describe('names and columns of expressions', () => {
  it.each([
    ['sum(metric1) + 1 > x', ['x']],
    ['upper(name)', ['name']],
    ['a IN (b, c)', ['a', 'b', 'c']],
    ['a BETWEEN b AND c', ['a', 'b', 'c']],
    ["a LIKE b", ['a', 'b']],
    ['NOT a IS NULL', ['a']],
    ['- a', ['a']],
    ['count(*)', []],
  ])('%s reads %j outside aggregates', (text, columns) => {
    expect(bareColumns(parseExpression(text))).toEqual(columns);
  });

  it.each([
    ['city', 0, 'city'],
    ['count(*)', 1, 'count'],
    ['SUM(metric1)', 2, 'sum_metric1'],
    ['  avg(x)', 3, 'avg_x'],
    ['round(x, 1)', 4, 'expr_4'],
    ['a + b', 5, 'expr_5'],
    ['upper(lower(x))', 6, 'expr_6'],
  ])('names %s (item %i) %s', (text, index, name) => {
    const item = parseItem(text);
    expect(defaultName(item.expr, text, index)).toBe(name);
  });
});
