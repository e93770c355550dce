import { describe, expect, it } from 'vitest';
import { csvColumns, jsonColumns, parseCsv } from '../src/compile/inline';

/** Inline data typed in a pipeline (inline_data node): CSV text or JSON objects, to typed columns. */
describe('inline CSV text, field by field', () => {
  it.each([
    ['plain fields', 'a,b\n1,2\n', [['a', 'b'], ['1', '2']]],
    ['CRLF line ends', 'a,b\r\n1,2\r\n', [['a', 'b'], ['1', '2']]],
    ['a lone CR', 'a,b\r1,2', [['a', 'b'], ['1', '2']]],
    ['no final newline', 'a\nx', [['a'], ['x']]],
    ['quoted fields with commas, "" and newlines', 'a,b\n"x, y","say ""hi""\nthere"\n', [['a', 'b'], ['x, y', 'say "hi"\nthere']]],
    ['a quote inside an unquoted field stays', 'a\nit"s\n', [['a'], ['it"s']]],
    ['blank lines carry no row', 'a\n\nx\n\n', [['a'], ['x']]],
    ['an empty last field', 'a,b\n1,\n', [['a', 'b'], ['1', '']]],
    ['an empty quoted field', 'a,b\n"",2\n', [['a', 'b'], ['', '2']]],
  ])('%s', (_label, text, rows) => {
    expect(parseCsv(text)).toEqual(rows);
  });

  it('refuses a quoted field never closed (422)', () => {
    expect(() => parseCsv('a\n"open\n')).toThrow(expect.objectContaining({ status: 422, message: 'inline_data node: unterminated quoted CSV field' }));
  });
});

describe('inline CSV columns and their types', () => {
  it.each([
    ['whole numbers', ['1', '-2', '+3', ''], 'bigint', [1, -2, 3, null]],
    ['numbers past 2^53 are not integers', ['9007199254740993'], 'double', [9007199254740992]],
    ['decimals and exponents', ['1.5', '.5', '2.', '1e3', '-4E-2'], 'double', [1.5, 0.5, 2, 1000, -0.04]],
    ['booleans in any case', ['true', 'FALSE', ''], 'boolean', [true, false, null]],
    ['dates and times, zoned or not', ['2024-01-02', '2024-01-02 03:04:05', '2024-01-02T03:04:05.123Z', '2024-01-02T05:04:05+02:00'], 'timestamp', ['2024-01-02 00:00:00.000', '2024-01-02 03:04:05.000', '2024-01-02 03:04:05.123', '2024-01-02 03:04:05.000']],
    ['a date that does not exist', ['2024-13-45'], 'varchar', ['2024-13-45']],
    ['text mixed with numbers', ['1', 'x'], 'varchar', ['1', 'x']],
    ['a number with text after it', ['12abc'], 'varchar', ['12abc']],
    ['text before a number', ['abc12'], 'varchar', ['abc12']],
    ['a boolean with more after it', ['trueish'], 'varchar', ['trueish']],
    ['a date with text after it', ['2024-01-02x'], 'varchar', ['2024-01-02x']],
    ['only empty cells', ['', ''], 'varchar', [null, null]],
  ])('%s', (_label, cells, type, values) => {
    // Beside an id column: a one-column row with an empty cell is a blank line, which carries no row.
    const [, column] = csvColumns(['id,v', ...cells.map((c, i) => `${i},${c}`)].join('\n') + '\n');
    expect(column).toEqual({ name: 'v', type, values });
  });

  it('reads a one-column row with an empty cell as a blank line: no row', () => {
    expect(csvColumns('v\n1\n\n2\n')).toEqual([{ name: 'v', type: 'bigint', values: [1, 2] }]);
  });

  it('trims header names and keeps the columns in order', () => {
    expect(csvColumns(' a , b\n1,x\n').map((c) => [c.name, c.type])).toEqual([['a', 'bigint'], ['b', 'varchar']]);
  });

  it.each([
    ['no data at all', '', 'inline_data node: data must not be empty'],
    ['a header with an empty name', 'a,,c\n1,2,3\n', 'inline_data node: column 2 has no name'],
    ['a header naming a column twice', 'a,a\n1,2\n', 'inline_data node: duplicate column name a'],
    ['a row narrower than the header', 'a,b\n1,2\n3\n', 'inline_data node: CSV row 3 has 1 fields, the header has 2'],
    ['a row wider than the header', 'a\n1,2\n', 'inline_data node: CSV row 2 has 2 fields, the header has 1'],
  ])('refuses %s (422)', (_label, text, message) => {
    expect(() => csvColumns(text)).toThrow(expect.objectContaining({ status: 422, message }));
  });
});

describe('inline JSON objects as columns', () => {
  it('takes the columns in order of first appearance; a missing key is NULL', () => {
    expect(jsonColumns([{ a: 1 }, { b: 'x', a: 2 }, { c: true }]).map((c) => [c.name, c.values])).toEqual([
      ['a', [1, 2, null]],
      ['b', [null, 'x', null]],
      ['c', [null, null, true]],
    ]);
  });

  it.each([
    ['whole numbers', [1, null, -3], 'bigint', [1, null, -3]],
    ['numbers with fractions', [1, 2.5], 'double', [1, 2.5]],
    ['an integer past 2^53', [2 ** 60], 'double', [2 ** 60]],
    ['booleans', [true, null, false], 'boolean', [true, null, false]],
    ['text', ['x', null], 'varchar', ['x', null]],
    ['numbers and text mixed', [1, 'x'], 'varchar', ['1', 'x']],
    ['objects and lists, as JSON text', [{ k: 1 }, [1, 2]], 'varchar', ['{"k":1}', '[1,2]']],
    ['only nulls', [null, null], 'varchar', [null, null]],
    ['infinite numbers', [1, Infinity], 'varchar', ['1', 'null']],
  ])('%s', (_label, values, type, out) => {
    expect(jsonColumns(values.map((v) => ({ v })))).toEqual([{ name: 'v', type, values: out }]);
  });

  it('refuses a key that is empty (422)', () => {
    expect(() => jsonColumns([{ '': 1 }])).toThrow(expect.objectContaining({ status: 422, message: 'inline_data node: column 1 has no name' }));
  });
});
