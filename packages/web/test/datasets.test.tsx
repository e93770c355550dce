// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import type { DatasetColumn } from '@studio/schema';
import { defaultName, formatOf, headerNames, layersOfRefusal } from '../src/datasets/upload';
import { pagesOf, previewWindow } from '../src/datasets/previewWindow';
import { formatBytes, formatCell, formatStat } from '../src/datasets/format';
import { SchemaTable } from '../src/datasets/SchemaTable';
import { render } from './dom';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('upload formats', () => {
  it.each([
    ['points.csv', { contentType: 'text/csv' }],
    ['POINTS.CSV', { contentType: 'text/csv' }],
    ['a.tsv', { contentType: 'text/tab-separated-values' }],
    ['a.json', { contentType: 'application/json' }],
    ['a.ndjson', { contentType: 'application/x-ndjson' }],
    ['a.jsonl', { contentType: 'application/x-ndjson' }],
    ['zones.geojson', { contentType: 'application/geo+json' }],
    ['t.parquet', { contentType: 'application/vnd.apache.parquet' }],
    ['big.csv.gz', { contentType: 'text/csv', contentEncoding: 'gzip' }],
    ['z.geojson.gz', { contentType: 'application/geo+json', contentEncoding: 'gzip' }],
    ['notes.txt', null],
    ['archive.gz', null],
    ['README', null],
    ['sheet.xlsx', { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' }],
    ['parcels.zip', { contentType: 'application/zip' }],
    ['trails.kml', { contentType: 'application/vnd.google-earth.kml+xml' }],
    ['trails.kmz', { contentType: 'application/vnd.google-earth.kmz' }],
    ['ride.gpx', { contentType: 'application/gpx+xml' }],
    ['zones.fgb', { contentType: 'application/flatgeobuf' }],
    ['trips.arrow', { contentType: 'application/vnd.apache.arrow.file' }],
    ['trips.feather', { contentType: 'application/vnd.apache.arrow.file' }],
    ['trips.arrows', { contentType: 'application/vnd.apache.arrow.stream' }],
    ['roads.geojsonl', { contentType: 'application/x-ndjson' }],
    ['old.xls', null],
  ])('%s', (name, format) => {
    expect(formatOf(name)).toEqual(format);
  });

  it.each([
    ['points.csv', 'points'],
    ['big.data.csv.gz', 'big.data'],
    ['notes.txt', 'notes.txt'],
    ['.csv', '.csv'],
  ])('names %s as %s', (file, name) => {
    expect(defaultName(file)).toBe(name);
  });

  it.each([
    ['the most used delimiter', 'id;name;"a;b"\n1;x;y\n', undefined, ['id', 'name', 'a;b']],
    ['quotes with a doubled quote and a comma', 'name,"said ""hi"", then",n\r\n', undefined, ['name', 'said "hi", then', 'n']],
    ['the chosen delimiter', 'a,b|c\n', '|', ['a,b', 'c']],
    ['tabs, after a byte-order mark', '\uFEFFx\ty\n', undefined, ['x', 'y']],
  ])('reads the column names of a first line: %s', (_label, text, delimiter, names) => {
    expect(headerNames(text, delimiter)).toEqual(names);
  });

  it.each([
    ['a GeoPackage of three layers', '{"layers":["areas","places","roads"]}', ['areas', 'places', 'roads']],
    ['one layer (nothing to choose)', '{"layers":["places"]}', null],
    ['another refusal', 'Parser Error: unexpected token', null],
    ['no details', undefined, null],
  ])('the layers a refused upload offers to choose from: %s', (_label, details, layers) => {
    expect(layersOfRefusal(details)).toEqual(layers);
  });
});

describe('previewWindow', () => {
  it('renders only the visible rows plus overscan', () => {
    const w = previewWindow(0, 300, 1_000_000, 30, 8_000_000, 5);
    expect([w.first, w.last]).toEqual([0, 15]);
    const later = previewWindow(30_000, 300, 1000, 30, 8_000_000, 5);
    // Scrolling past the end stops at the last full viewport.
    expect([later.first, later.last, later.top(later.first)]).toEqual([985, 1000, 985 * 30]);
  });

  it('maps a capped scroll range onto a million rows', () => {
    const total = 1_000_000;
    const w0 = previewWindow(0, 300, total, 30, 1_000_000, 0);
    expect(w0.bodyHeight).toBe(1_000_000);
    expect(w0.first).toBe(0);
    expect(w0.top(0)).toBe(0);
    const end = previewWindow(1_000_000 - 300, 300, total, 30, 1_000_000, 0);
    expect(end.last).toBe(total);
    // The last row sits at the bottom of the viewport.
    expect(end.top(total - 1) + 30).toBeCloseTo(1_000_000, 6);
    const mid = previewWindow((1_000_000 - 300) / 2, 300, total, 30, 1_000_000, 0);
    expect(Math.abs(mid.first - total / 2)).toBeLessThan(10);
  });

  it.each([
    [0, 10, [0]],
    [495, 510, [0, 1]],
    [1000, 1000, []],
    [999_990, 1_000_000, [1999]],
  ])('pages of rows %i..%i', (first, last, pages) => {
    expect(pagesOf(first, last, 500)).toEqual(pages);
  });
});

describe('formatting', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [12_345, '12 kB'],
    [1_500_000, '1.5 MB'],
    [null, '—'],
  ])('bytes %s', (n, s) => expect(formatBytes(n)).toBe(s));
  it.each([
    [null, 'null'],
    [3, '3'],
    ['x', 'x'],
    [{ a: 1 }, '{"a":1}'],
  ])('cell %j', (v, s) => expect(formatCell(v)).toBe(s));
  it.each([
    [1234, '1,234'],
    [0.123456789, '0.12345679'],
    ['2024-01-01', '2024-01-01'],
    [undefined, '—'],
  ])('stat %j', (v, s) => expect(formatStat(v)).toBe(s));
});

describe('SchemaTable', () => {
  it('shows types, role badges and statistics', async () => {
    const columns: DatasetColumn[] = [
      { name: 'lat', type: 'DOUBLE', duckdbType: 'DOUBLE', role: 'latitude', stats: { nullCount: 0, min: 40.1, max: 40.9, mean: 40.5, distinctCount: 10 } },
      { name: 'label', type: 'STRING', duckdbType: 'VARCHAR', stats: { nullCount: 2, min: 'a', max: 'z', distinctCount: 3 } },
    ];
    const { container } = await render(<SchemaTable columns={columns} />);
    const rows = [...container.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows).toEqual([
      ['lat', 'DOUBLE', 'lat (latitude)', '0', '40.1', '40.9', '40.5', '10'],
      ['label', 'STRING VARCHAR', '', '2', 'a', 'z', '—', '3'],
    ]);
  });
});
