import { describe, expect, it } from 'vitest';
import { csvField, csvLine, spreadsheetField } from '../src/services/csv-text';

describe('CSV fields', () => {
  it.each([
    ['plain text', 'Coit Tower', 'Coit Tower'],
    ['a comma', 'a,b', '"a,b"'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a newline', 'two\nlines', '"two\nlines"'],
    ['edge spaces kept by quoting', ' padded ', '" padded "'],
    ['null', null, ''],
    ['a number', 12.5, '12.5'],
    ['an object as JSON', { a: 1 }, '"{""a"":1}"'],
  ])('%s', (_case, value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it.each([
    ['a formula', '=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['a plus', '+1+1', "'+1+1"],
    ['a minus', '-2+3', "'-2+3"],
    ['an at', '@SUM(A1)', "'@SUM(A1)"],
    ['a negative number stays a number', -2, '-2'],
    ['ordinary text', 'map.publish', 'map.publish'],
  ])('for a spreadsheet: %s', (_case, value, expected) => {
    expect(spreadsheetField(value)).toBe(expected);
  });

  it('joins a line with its newline', () => {
    expect(csvLine(['a', 1, null])).toBe('a,1,\n');
  });
});
