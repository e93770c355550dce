import { tableFromIPC } from 'apache-arrow';
import { latLngToCell, polygonToCells } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/** A square around downtown San Francisco, as the hexify node takes it. */
const SQUARE = {
  type: 'Polygon',
  coordinates: [[[-122.42, 37.77], [-122.40, 37.77], [-122.40, 37.79], [-122.42, 37.79], [-122.42, 37.77]]],
};
const expectedCells = polygonToCells(SQUARE.coordinates[0]!.map(([lng, lat]) => [lat!, lng!]), 8).sort();

/**
 * Each source node the pipeline has, run through POST /v1/query in each answer format: the rows a user
 * gets back, worked out without the studio (by hand, or with h3-js for cells).
 */
const CASES: { name: string; pipeline: unknown; rows: Record<string, unknown>[] }[] = [
  {
    name: 'inline_data as CSV',
    pipeline: { type: 'sort', by: ['n'], input: [{ type: 'inline_data', format: 'CSV', data: 'n,label\n2,two\n1,one\n', input: [] }] },
    rows: [{ n: 1, label: 'one' }, { n: 2, label: 'two' }],
  },
  {
    name: 'inline_data as JSON objects',
    pipeline: { type: 'sort', by: ['n'], input: [{ type: 'inline_data', format: 'JSON_OBJECT', data: [{ n: 2, label: 'two' }, { n: 1, label: 'one' }], input: [] }] },
    rows: [{ n: 1, label: 'one' }, { n: 2, label: 'two' }],
  },
  {
    name: 'hexify of a polygon',
    pipeline: { type: 'sort', by: ['hex'], input: [{ type: 'hexify', geojson: SQUARE, res: 8, columnName: 'hex', input: [] }] },
    rows: expectedCells.map((hex) => ({ hex })),
  },
  {
    name: 'a filter over inline data with a parameter-like list',
    pipeline: { type: 'filter', expression: "label IN ('one', 'three')", input: [{ type: 'inline_data', format: 'JSON_OBJECT', data: [{ n: 1, label: 'one' }, { n: 2, label: 'two' }], input: [] }] },
    rows: [{ n: 1, label: 'one' }],
  },
];

describe.each(STORES)('every source node through /v1/query on %s', (kind) => {
  const { as } = useStudio(kind);
  const run = (pipeline: unknown, format: string) => as('owner', 'POST', `/v1/query?format=${format}`, pipeline);

  it('the cells of the polygon case are real (h3-js finds some at resolution 8)', () => {
    expect(expectedCells.length).toBeGreaterThan(3);
    expect(expectedCells).toContain(latLngToCell(37.78, -122.41, 8));
  });

  it.each(CASES)('$name answers the same rows as JSON, Arrow and CSV', async ({ pipeline, rows }) => {
    const json = await run(pipeline, 'json');
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().items).toEqual(rows);

    const arrow = await run(pipeline, 'arrow');
    expect(arrow.statusCode, arrow.body).toBe(200);
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.toArray().map((r) => Object.fromEntries(Object.entries(r.toJSON()).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))).toEqual(rows);

    const csv = await run(pipeline, 'csv');
    expect(csv.statusCode, csv.body).toBe(200);
    const [header, ...lines] = csv.body.trim().split('\n');
    expect(header!.split(',')).toEqual(Object.keys(rows[0]!));
    expect(lines).toEqual(rows.map((r) => Object.values(r).join(',')));
  });
});
