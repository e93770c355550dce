import { describe, expect, it } from 'vitest';
import { StudioError } from '@studio/schema';
import { duckdb } from '../src/compile/duckdb';
import { postgres } from '../src/compile/postgres';

/** Column names a user types in a pipeline enter both dialects' SQL through quoteIdent only. */
describe.each([['duckdb', duckdb], ['postgres', postgres]] as const)('%s quoteIdent', (_, dialect) => {
  it.each([
    ['price', '"price"'],
    ['Price "net"', '"Price ""net"""'],
    ['a" OR 1=1 --', '"a"" OR 1=1 --"'],
  ])('quotes %j as %s', (name, quoted) => {
    expect(dialect.quoteIdent(name)).toBe(quoted);
  });

  it('refuses a NUL with 422 and a message that says why', () => {
    const refused = (() => {
      try {
        dialect.quoteIdent('a\u0000b');
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(StudioError);
    expect([(refused as StudioError).status, (refused as StudioError).message]).toEqual([422, 'Identifiers cannot contain NUL characters']);
  });
});
