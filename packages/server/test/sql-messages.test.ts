import { describe, expect, it } from 'vitest';
import { engineAdvice } from '../src/services/sql-sandbox/messages';
import { STORES, useStudio } from './harness';

// DuckDB 1.5.6's own messages, as its locked instances answer them (autoinstall and autoload off).
const advice = (kind: string, name: string, ext: string) =>
  `Catalog Error: ${kind} with name "${name}" is not in the catalog, but it exists in the ${ext} extension.\n\nPlease try installing and loading the ${ext} extension by running:\nINSTALL ${ext};\nLOAD ${ext};\n\nAlternatively, consider enabling auto-install and auto-load by running:\nSET autoinstall_known_extensions=1;\nSET autoload_known_extensions=1;`;

describe("a function of an extension the studio does not load is named in the studio's terms", () => {
  it.each([
    ['excel_text', advice('Scalar Function', 'excel_text', 'excel'), "`excel_text` is not available in the studio's SQL (format numbers with printf() or format(), dates with strftime())"],
    ['read_xlsx', advice('Table Function', 'read_xlsx', 'excel'), "`read_xlsx` is not available in the studio's SQL (upload the spreadsheet as a dataset and query it by its table name)"],
    ['st_area', 'Catalog Error: Scalar Function with name "st_area" is not in the catalog, but it exists in the spatial extension.\n\nPlease try installing and loading the spatial extension:\nINSTALL spatial;\nLOAD spatial;\n\n', "`st_area` is not available in the studio's SQL"],
    ['a prefix the sandbox added', `The query failed: ${advice('Scalar Function', 'excel_text', 'excel')}`, "The query failed: `excel_text` is not available in the studio's SQL (format numbers with printf() or format(), dates with strftime())"],
  ])('%s', (_name, message, expected) => {
    const out = engineAdvice(message);
    expect(out).toBe(expected);
    expect(out).not.toMatch(/INSTALL|LOAD|autoinstall/);
  });

  it.each([
    'Catalog Error: Scalar Function with name nosuchfn does not exist!\nDid you mean "nanosecond"?',
    'Binder Error: Referenced column "x" not found in FROM clause!',
  ])('leaves other messages as they are: %s', (message) => {
    expect(engineAdvice(message)).toBe(message);
  });
});

describe.each(STORES)('user SQL naming such a function on %s', (kind) => {
  const { as } = useStudio(kind);
  it.each([
    ["select excel_text(1, '0')", '`excel_text` is not available in the studio\'s SQL'],
  ])('%s answers 422 without the install advice', async (query, expected) => {
    const res = await as('owner', 'POST', '/v1/data-queries/json', { query });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain(expected);
    expect(res.body).not.toMatch(/INSTALL|LOAD |autoinstall/);
  });
});
