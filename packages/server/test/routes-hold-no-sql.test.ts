import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Routes call services and hold no SQL (#20, docs/architecture.md): every read or write of the catalog is a
 * service's method, where its guard, its unit of work and its tests live. A route file that builds a query
 * of its own is named here with the line.
 */
const ROUTES = path.resolve(import.meta.dirname, '../src/routes');
const QUERY = /\.(selectFrom|updateTable|insertInto|deleteFrom|replaceInto|with)\(|\bsql`|\.execute\(\)|\.executeTakeFirst(OrThrow)?\(\)/;

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));

describe('routes', () => {
  it('build no catalog query of their own', () => {
    const found = files(ROUTES).flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (QUERY.test(line) ? [`${path.relative(ROUTES, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
