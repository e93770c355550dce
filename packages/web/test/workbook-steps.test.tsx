// @vitest-environment jsdom
import { useState } from 'react';
import { act } from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { checkPipeline, type NodeType } from '@studio/pipeline';
import { WORKBOOK_STATE_VERSION, type StepCell, type WorkbookCell, type WorkbookState } from '@studio/schema';
import { StepForm, type StepChoices } from '../src/workbook/StepForm';
import { newCell } from '../src/workbook/cells';
import { STEP_TYPES } from '../src/workbook/steps';
import { WorkbookRunner, type CellStatus } from '../src/workbook/run';
import { render, waitFor } from './dom';
import { useRealStudio } from './real-studio';
import { jobEnded, useWarehouse, warehouseConnection } from '../../server/test/harness';

const STORES = [
  'store,category,sales,lat,lng,ts',
  'A,food,10,37.77,-122.41,2024-01-01 10:00:00',
  'B,food,30,37.78,-122.42,2024-01-02 11:00:00',
  'C,fuel,5,37.79,-122.43,2024-01-02 12:00:00',
  'D,toys,7,37.80,-122.44,2024-01-03 09:00:00',
].join('\n');
// Places and areas with WKT geometry columns (as a CSV upload keeps them): the spatial steps' inputs.
const PLACES = 'place,kind,wkt\np1,a,POINT(-122.41 37.77)\np2,a,POINT(-122.42 37.78)\np3,b,POINT(-122.30 37.60)\n';
const AREAS = [
  'area,kind,wkt',
  'north,x,"POLYGON((-122.5 37.7, -122.38 37.7, -122.38 37.85, -122.5 37.85, -122.5 37.7))"',
  'south,x,"POLYGON((-122.35 37.55, -122.25 37.55, -122.25 37.65, -122.35 37.65, -122.35 37.55))"',
].join('\n');
const GEO_COLUMNS = (first: string) => [first, 'kind', 'wkt'].map((name) => ({ name, type: 'Utf8' }));
const RING = [[[-122.5, 37.7], [-122.38, 37.7], [-122.38, 37.85], [-122.5, 37.85], [-122.5, 37.7]]];
const FEATURE = JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: RING } });
const POLYGON = JSON.stringify({ type: 'Polygon', coordinates: [[[-122.5, 37.7], [-122.38, 37.7], [-122.38, 37.85], [-122.5, 37.85], [-122.5, 37.7]]] });

afterEach(() => {
  document.body.innerHTML = '';
});

/** Sets a form control's value the way typing or picking does, so React sees the change. */
function setValue(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

/** The control a form label names (by its text, without "(optional)"), or an aria-labelled control. */
function control(root: HTMLElement, label: string): HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | HTMLElement {
  const byAria = root.querySelector<HTMLElement>(`[aria-label="${label}"]`);
  if (byAria) return byAria;
  const l = [...root.querySelectorAll('label')].find((x) => x.textContent?.replace(' (optional)', '').trim() === label);
  const el = l?.htmlFor ? root.ownerDocument.getElementById(l.htmlFor) : null;
  if (!el) throw new Error(`No field labelled ${label}: ${[...root.querySelectorAll('label')].map((x) => x.textContent).join(' | ')}`);
  return el;
}

type Fill = [label: string, value: string] | [label: string, value: string, 'check'];

describe('workbook step forms: form → node → validator → result, for each node type', () => {
  const { ctx, tokenOf } = useRealStudio();
  const ids = { stores: '', regions: '', cells: '', tiles: '', connection: '', tile: '', places: '', areas: '' };
  const database = useWarehouse('wb_steps', 'create table t (one int); insert into t values (1)');
  const as = (method: 'GET' | 'POST', url: string, payload?: unknown, contentType = 'application/json') =>
    ctx.s.app.inject({ method, url, payload: payload as string, headers: { authorization: ctx.cast.tokens.owner, 'content-type': contentType } });

  beforeAll(async () => {
    const up = async (name: string, csv: string) => (await as('POST', `/v1/datasets/data?name=${name}`, csv, 'text/csv')).json().item.id as string;
    ids.stores = await up('stores', STORES);
    ids.regions = await up('regions', 'store,region\nA,north\nB,south\n');
    ids.places = await up('places', PLACES);
    ids.areas = await up('areas', AREAS);
    const { latLngToCell, cellToParent } = await import('h3-js');
    ids.cells = await up('cells', `hex,pop\n${latLngToCell(37.77, -122.41, 7)},1200\n`);
    const built = await as('POST', '/v1/datasets/hextile', { source: ids.stores, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, sourceTimeColumn: 'ts', timeIntervals: ['D'], outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] });
    expect(built.statusCode, built.body).toBe(201);
    ids.tiles = built.json().item.id;
    expect(await jobEnded((url) => as('GET', url), built.json().job.id)).toMatchObject({ status: 'succeeded' });
    ids.tile = cellToParent(latLngToCell(37.77, -122.41, 8), 4);
    const conn = await as('POST', '/v1/data-connections', { name: 'warehouse', ...warehouseConnection(database) });
    expect(conn.statusCode, conn.body).toBe(201);
    ids.connection = conn.json().item.id;
  }, 120_000);

  const storesCell: WorkbookCell = { id: 'c0', name: 'stores', kind: 'step', collapsed: false, node: { type: 'dataset', uuid: '' }, inputs: [] };
  const base = (): WorkbookState => ({
    version: WORKBOOK_STATE_VERSION,
    cells: [
      { ...storesCell, node: { type: 'dataset', uuid: ids.stores } },
      { id: 'c1', name: 'regions', kind: 'step', collapsed: false, node: { type: 'dataset', uuid: ids.regions }, inputs: [] },
      { id: 'c2', name: 'with_hex', kind: 'step', collapsed: false, node: { type: 'select', expressions: ['store', 'h3_latlng_to_cell(lat, lng, 7) AS hex'] }, inputs: ['stores'] },
      { id: 'c3', name: 'cut_a', kind: 'step', collapsed: false, node: { type: 'tileExtract', sourceId: ids.tiles, geojson: JSON.parse(FEATURE), res: 8 }, inputs: [] },
      { id: 'c4', name: 'cut_b', kind: 'step', collapsed: false, node: { type: 'tileExtract', sourceId: ids.tiles, geojson: JSON.parse(FEATURE), res: 8 }, inputs: [] },
      { id: 'c5', name: 'places', kind: 'step', collapsed: false, node: { type: 'dataset', uuid: ids.places }, inputs: [] },
      { id: 'c6', name: 'areas', kind: 'step', collapsed: false, node: { type: 'dataset', uuid: ids.areas }, inputs: [] },
    ],
  });
  const STORE_COLUMNS = ['store', 'category', 'sales', 'lat', 'lng', 'ts'].map((name) => ({ name, type: 'Utf8' }));

  /** [type, the fields a user fills (label, value), the input cells, what the result must show] */
  const CASES: [NodeType, () => Fill[], string[], (rows: Record<string, unknown>[], count: number) => void][] = [
    ['dataset', () => [['Dataset', ids.stores]], [], (_r, n) => expect(n).toBe(4)],
    ['inline_data', () => [['Format', 'CSV'], ['Data', 'x,y\n1,2\n3,4\n']], [], (r, n) => expect([n, r[0]]).toEqual([2, { x: 1, y: 2 }])],
    ['select', () => [['Columns and expressions', 'store\nsales * 2 AS doubled']], ['stores'], (r) => expect(r[0]).toEqual({ store: 'A', doubled: 20 })],
    ['filter', () => [['Condition', 'sales > 6']], ['stores'], (_r, n) => expect(n).toBe(3)],
    ['group', () => [['Group by', 'category', 'check'], ['Aggregates', 'count(*) AS n']], ['stores'], (r) => expect(r.map((x) => `${x.category}:${x.n}`).sort()).toEqual(['food:2', 'fuel:1', 'toys:1'])],
    ['sort', () => [['Sort by', 'desc(sales)']], ['stores'], (r) => expect(r.map((x) => x.store)).toEqual(['B', 'A', 'D', 'C'])],
    ['limit', () => [['Rows', '2'], ['Skip', '1']], ['stores'], (r) => expect(r.map((x) => x.store)).toEqual(['B', 'C'])],
    ['join', () => [['Join', 'INNER'], ['Input 2', 'regions'], ['On columns', 'store', 'check']], ['stores'], (r) => expect(r.map((x) => `${x.store}:${x.region}`).sort()).toEqual(['A:north', 'B:south'])],
    ['enrich', () => [['Source dataset', ids.cells], ['Source columns', 'pop'], ['Match by', 'H3'], ['H3 column', 'hex']], ['with_hex'], (r) => expect(r.find((x) => x.store === 'A')?.pop).toBe(1200)],
    ['hexify', () => [['Shape', POLYGON], ['Resolution', '7']], [], (_r, n) => expect(n).toBeGreaterThan(5)],
    ['hexTile', () => [['Hex-tile dataset', ids.tiles], ['Tile (H3 cell)', ids.tile]], [], (_r, n) => expect(n).toBeGreaterThan(0)],
    ['tileExtract', () => [['Hex-tile dataset', ids.tiles], ['Shape', FEATURE], ['Resolution', '8']], [], (_r, n) => expect(n).toBe(4)],
    ['tileJoin', () => [['Input 2', 'cut_b']], ['cut_a'], (_r, n) => expect(n).toBe(4)],
    ['tileQuantiles', () => [['Hex-tile dataset', ids.tiles], ['Resolution', '8'], ['Interval', 'D']], [], (_r, n) => expect(n).toBeGreaterThan(0)],
    ['databaseQuery', () => [['Connection', ids.connection], ['Query', 'select one from t']], [], (r) => expect(r).toEqual([{ one: 1 }])],
    ['spatialJoin', () => [['Relation', 'contains'], ['Input 2', 'places'], ['Geometry of the first cell', 'wkt'], ['Geometry of the second cell', 'wkt'], ['Columns of the second input to add', 'place']], ['areas'],
      (r) => expect(r.map((x) => `${x.area}:${x.place}`).sort()).toEqual(['north:p1', 'north:p2', 'south:p3'])],
    ['aggregateInPolygons', () => [['Input 2', 'places'], ['Polygon geometry', 'wkt'], ['Feature geometry (second cell)', 'wkt'], ['Aggregates', 'count AS n']], ['areas'],
      (r) => expect(r.map((x) => `${x.area}:${x.n}`).sort()).toEqual(['north:2', 'south:1'])],
    ['nearest', () => [['Input 2', 'places'], ['Geometry of the first cell', 'wkt'], ['Geometry of the second cell', 'wkt'], ['How many', '2'], ['Within (metres)', '2000'], ['Columns of the second input to add', 'place']], ['places'],
      // p1 and p2 are ~1.4 km apart: each finds itself and the other; p3 only itself.
      (r) => expect(r.map((x) => `${String((x as Record<string, unknown>).place)}`).length).toBe(5)],
    ['buffer', () => [['Geometry', 'wkt'], ['Distance (metres)', '250.5']], ['places'], (r) => expect(String(r[0]!.buffer)).toMatch(/^\{"type":"Polygon"/)],
    ['centroid', () => [['Geometry', 'wkt']], ['areas'], (r) => expect(JSON.parse(String(r[0]!.centroid))).toMatchObject({ type: 'Point' })],
    // The areas' own `area` column holds their names: the measure gets a name of its own.
    ['measure', () => [['Geometry', 'wkt'], ['Measure', 'area'], ['Column name', 'square_metres']], ['areas'], (r) => expect(Number(r[0]!.square_metres)).toBeGreaterThan(1e8)],
    ['dissolve', () => [['Geometry', 'wkt'], ['Group by', 'kind', 'check']], ['areas'], (r) => expect(r.map((x) => [x.kind, JSON.parse(String(x.wkt)).type])).toEqual([['x', 'MultiPolygon']])],
    ['clip', () => [['Geometry', 'wkt'], ['Input 2', 'areas'], ['Polygon geometry (second cell)', 'wkt']], ['areas'], (r) => expect(r.map((x) => Math.round(Number(x.area_share) * 1e6) / 1e6)).toEqual([1, 1])],
  ];

  it('has a case for every node type', () => {
    expect(CASES.map(([t]) => t).sort()).toEqual([...STEP_TYPES].sort());
  });

  it.each(CASES)('%s', async (type, fills, inputs, check) => {
    const state = base();
    const start = { ...(newCell(state, 'step', type) as StepCell), inputs };
    const choices: StepChoices = {
      columns: inputs[0] === 'stores' ? STORE_COLUMNS : inputs[0] === 'with_hex' ? [{ name: 'store', type: 'Utf8' }, { name: 'hex', type: 'Utf8' }]
        : inputs[0] === 'places' ? GEO_COLUMNS('place') : inputs[0] === 'areas' ? GEO_COLUMNS('area') : [],
      datasets: [{ id: ids.stores, name: 'stores' }, { id: ids.regions, name: 'regions' }, { id: ids.cells, name: 'cells' }, { id: ids.tiles, name: 'tiles' }],
      connections: [{ id: ids.connection, name: 'warehouse' }],
    };
    let latest = start;
    function Form() {
      const [cell, setCell] = useState(start);
      return <StepForm cell={cell} state={{ ...state, cells: [...state.cells, cell] }} choices={choices} readOnly={false} onChange={(c) => { latest = c; setCell(c); }} />;
    }
    const { container } = await render(<Form />);
    for (const [label, value, how] of fills()) {
      await act(async () => {
        if (how === 'check') {
          const group = control(container, label);
          const box = [...group.querySelectorAll('label')].find((l) => l.textContent === value)!.querySelector('input')!;
          box.click();
        } else setValue(control(container, label) as HTMLInputElement, value);
      });
    }
    const node = { ...latest.node, input: latest.inputs.map(() => ({ type: 'dataset', uuid: ids.stores, input: [] })) };
    const checked = checkPipeline(type === 'tileJoin' ? { ...latest.node, input: [base().cells[3]!, base().cells[4]!].map((c) => ({ ...(c as StepCell).node, input: [] })) } : node);
    expect(checked.ok ? 'valid' : checked.message).toBe('valid');
    // The node runs as a workbook cell, reading the cells above.
    const runner = new WorkbookRunner(new StudioClient({ baseUrl: ctx.address, token: tokenOf('owner') }));
    const seen: Record<string, CellStatus> = {};
    const full = { ...state, cells: [...state.cells, { ...latest, id: 'under_test', name: 'under_test' }] };
    await runner.run(full, (id, s) => (seen[id] = s), { only: 'under_test' });
    const status = seen.under_test;
    if (status?.state !== 'done') throw new Error(`${type} did not run: ${JSON.stringify(status)}`);
    check(status.result.rows, status.result.rowCount);
  });

  it('shows the expression parser’s message under the field as it is typed, and clears it when the text parses', async () => {
    const state = base();
    const start = newCell(state, 'step', 'filter') as StepCell;
    function Form() {
      const [cell, setCell] = useState(start);
      return <StepForm cell={cell} state={{ ...state, cells: [...state.cells, cell] }} choices={{ columns: [], datasets: [], connections: [] }} readOnly={false} onChange={setCell} />;
    }
    const { container } = await render(<Form />);
    await act(async () => setValue(control(container, 'Condition') as HTMLInputElement, 'sales >'));
    const alert = await waitFor(() => container.querySelector('[role="alert"]'));
    expect(alert.textContent).toMatch(/Expected|expression|end/i);
    await act(async () => setValue(control(container, 'Condition') as HTMLInputElement, 'sales > 6'));
    expect(container.querySelector('[role="alert"]')).toBeNull();
  });
});
