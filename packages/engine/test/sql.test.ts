import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdent, quoteLiteral } from '../src';
import { setup, type Ctx } from './helpers';

/**
 * The quoting helpers are the one place names and engine-made strings enter SQL text: each case is a
 * name or value a user can give (a dataset called `Stores "2024"`, a file of O'Brien's), round-tripped
 * through DuckDB itself, so a quote that is not doubled ends the identifier or the literal early.
 */
let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

describe('quoteIdent', () => {
  it.each([
    ['plain', 'stores', '"stores"'],
    ['a keyword', 'select', '"select"'],
    ['a double quote', 'Stores "2024"', '"Stores ""2024"""'],
    ['only quotes', '""', '""""""'],
    ['an injection attempt', 'x" FROM t; DROP TABLE y; --', '"x"" FROM t; DROP TABLE y; --"'],
  ])('quotes a name with %s, and DuckDB reads it back as the same name', async (_, name, quoted) => {
    expect(quoteIdent(name)).toBe(quoted);
    const rows = await ctx.engine.query(`SELECT 1 AS ${quoteIdent(name)}`);
    expect(Object.keys(rows[0]!)).toEqual([name]);
  });
});

describe('quoteLiteral', () => {
  it.each([
    ['plain', '/data/a.parquet', "'/data/a.parquet'"],
    ['an apostrophe', "O'Brien's.csv", "'O''Brien''s.csv'"],
    ['only apostrophes', "''", "''''''"],
  ])('quotes a value with %s, and DuckDB reads it back unchanged', async (_, value, quoted) => {
    expect(quoteLiteral(value)).toBe(quoted);
    expect(await ctx.engine.query(`SELECT ${quoteLiteral(value)} AS v`)).toEqual([{ v: value }]);
  });

  it('refuses a NUL, which would cut the literal short in C strings', () => {
    expect(() => quoteLiteral('a\0b')).toThrow('NUL in SQL literal');
  });
});
