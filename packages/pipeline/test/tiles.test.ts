import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { cellToChildren, cellToParent, latLngToCell } from 'h3-js';
import { compilePipeline, executePipeline, registerH3Functions, type TileSource } from '../src/index';

/**
 * The tile nodes against a TileSource over real DuckDB tables (the server's comes from archives).
 * Two "tilesets" share cells: a holds f and g, b holds f; both at data res 7, offset 2 (tiles at 5).
 */
const TILE = cellToParent(latLngToCell(37.77, -122.41, 7), 5);
const CELLS = cellToChildren(TILE, 7).slice(0, 6);

let db: DuckDBInstance;
let c: DuckDBConnection;
const asked: { res: number; within?: readonly string[]; interval?: string }[] = [];

function source(table: string, fields: string[], timeIntervals: string[] = []): TileSource {
  return {
    resolutionOffset: 2,
    minRes: 6,
    maxRes: 7,
    fields,
    timeIntervals,
    cells: (res, opts) => {
      asked.push({ res, ...opts });
      return `(SELECT * FROM ${table}${opts.interval ? '_t' : ''} WHERE length(hex) > 0 AND ${res} = ${res})`;
    },
    quantiles: (res, interval) => [{ path: `${interval}2024-01-01`, time: '2024-01-01T00:00:00.000Z', field: fields[0]!, quantiles: [res, res + 1] }, { path: `${interval}2024-01-02`, time: '2024-01-02T00:00:00.000Z', field: fields[0]!, quantiles: null }],
  };
}
const SOURCES: Record<string, TileSource> = { a: source('ta', ['f', 'g'], ['D']), b: source('tb', ['f'], ['D']) };
const run = (node: unknown) =>
  executePipeline(node, { engine: 'duckdb', connection: c }, () => ({ relationSql: '(SELECT 1)' }), (uuid) => SOURCES[uuid]!);

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  c = await db.connect();
  registerH3Functions(c);
  const values = (f: (cell: string, i: number) => string) => CELLS.map((cell, i) => `('${cell}', ${f(cell, i)})`).join(', ');
  await c.run(`CREATE TABLE ta AS SELECT * FROM (VALUES ${values((_c, i) => `${i}, ${i * 10}`)}) t(hex, f, g)`);
  await c.run(`CREATE TABLE tb AS SELECT * FROM (VALUES ${values((_c, i) => `${i * 2}`)}) t(hex, f) WHERE f > 2`);
  await c.run(`CREATE TABLE ta_t AS SELECT hex, TIMESTAMP '2024-01-01' AS time, f, g FROM ta`);
  await c.run(`CREATE TABLE tb_t AS SELECT hex, TIMESTAMP '2024-01-01' AS time, f FROM tb`);
});
afterAll(() => {
  c?.closeSync();
  db?.closeSync();
});

describe('tile nodes', () => {
  it('hexTile asks for the cells at tile resolution + offset inside the tile', async () => {
    asked.length = 0;
    const rows = await run({ type: 'hexTile', uuid: 'a', tileIndex: TILE });
    expect(asked).toEqual([{ res: 7, within: [TILE] }]);
    expect(rows.map((r) => r.hex).sort()).toEqual([...CELLS].sort());
  });

  it('tileJoin keeps every cell of any input and numbers a field name already taken', async () => {
    const rows = await run({ type: 'tileJoin', input: [{ type: 'hexTile', uuid: 'a', tileIndex: TILE }, { type: 'hexTile', uuid: 'b', tileIndex: TILE }] });
    expect(Object.keys(rows[0]!)).toEqual(['hex', 'f', 'g', 'f_2']);
    expect(rows).toHaveLength(CELLS.length);
    for (const r of rows) expect(r.f_2).toBe(Number(r.f) * 2 > 2 ? Number(r.f) * 2 : null);
  });

  it('tileJoin joins on time too when every input has it', async () => {
    const polygon = { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-123, 37], [-122, 37], [-122, 38], [-123, 38], [-123, 37]]] } };
    const ex = (uuid: string, timeColumnName?: string) => ({ type: 'tileExtract', sourceId: uuid, geojson: polygon, res: 7, timeInterval: 'DAY', sourceColumn: 'f', ...(timeColumnName && { timeColumnName }) });
    const rows = await run({ type: 'tileJoin', input: [ex('a', 'day'), ex('b')] });
    expect(Object.keys(rows[0]!)).toEqual(['hex', 'day', 'f', 'f_2']);
    expect(rows.every((r) => r.day === '2024-01-01T00:00:00.000Z')).toBe(true);
  });

  it('tileQuantiles answers the stored rows, null where an entry failed', async () => {
    const rows = await run({ type: 'tileQuantiles', uuid: 'a', res: 6, interval: 'D' });
    expect(rows).toEqual([
      { path: 'D2024-01-01', time: '2024-01-01T00:00:00.000Z', field: 'f', quantiles: [6, 7] },
      { path: 'D2024-01-02', time: '2024-01-02T00:00:00.000Z', field: 'f', quantiles: null },
    ]);
  });

  it.each([
    ['a resolution the tileset lacks', { type: 'hexTile', uuid: 'a', tileIndex: cellToParent(TILE, 3) }, 'hexTile node: the tileset has no cells at resolution 5 (it has 6 to 7)'],
    ['an unknown field', { type: 'tileExtract', sourceId: 'a', geojson: { type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] } }, sourceColumn: 'z' }, 'tileExtract node: z is not a field of the tileset (fields: f, g)'],
    ['seconds', { type: 'tileExtract', sourceId: 'a', geojson: { type: 'Feature', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] } }, timeInterval: 'SECOND' }, 'tileExtract node: the tileset has no SECOND time steps (it has D)'],
    ['an interval the tileset lacks', { type: 'tileQuantiles', uuid: 'a', res: 6, interval: 'M' }, 'tileQuantiles node: the tileset has no M time steps (it has D)'],
  ])('refuses %s (422)', async (_l, node, message) => {
    await expect(run(node)).rejects.toMatchObject({ status: 422, message });
  });

  it('needs the DuckDB engine and a tile resolver (409 otherwise)', () => {
    const node = { type: 'hexTile', uuid: 'a', tileIndex: TILE };
    const resolveDataset = () => ({ relationSql: 'x' });
    expect(() => compilePipeline(node, { dialect: 'postgres', resolveDataset, resolveTiles: (u) => SOURCES[u]! })).toThrow(expect.objectContaining({ status: 409 }));
    expect(() => compilePipeline(node, { dialect: 'duckdb', resolveDataset })).toThrow(expect.objectContaining({ status: 409 }));
  });
});
