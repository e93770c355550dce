import { describe, expect, it } from 'vitest';
import { WORKBOOK_STATE_VERSION, parseWorkbookState, type WorkbookState } from '@studio/schema';
import { freeName, inputProblem, newCell, reduce, emptyState } from '../src/workbook/cells';
import { expressionProblem, fieldText, withFieldText, STEP_SPECS } from '../src/workbook/steps';
import { chartCellOption } from '../src/workbook/drawings';

const step = (id: string, name: string, node: Record<string, unknown>, inputs: string[] = []) => ({ id, name, kind: 'step' as const, collapsed: false, node: node as { type: string }, inputs });

describe('workbook state', () => {
  it('upgrades a version-0 list of cells: the inputs move out of the node', () => {
    const v0 = [
      { id: 'a', name: 'stores', kind: 'step', node: { type: 'dataset', uuid: 'x' } },
      { id: 'b', name: 'busy', kind: 'step', node: { type: 'filter', expression: 'n > 1', input: ['stores'] } },
    ];
    expect(parseWorkbookState(v0)).toEqual({
      version: WORKBOOK_STATE_VERSION,
      cells: [step('a', 'stores', { type: 'dataset', uuid: 'x' }), step('b', 'busy', { type: 'filter', expression: 'n > 1' }, ['stores'])],
    });
  });

  it.each([
    [{ version: 2, cells: [] }, 'This workbook was saved by a newer studio (state version 2; this studio reads up to 1)'],
    ['cells', 'Invalid workbook state: not an object'],
    [{ widgets: [] }, 'Invalid workbook state: neither a versioned state nor a list of cells'],
    [{ version: 1, cells: [step('a', 'x', { type: 'filter' }), step('b', 'X', { type: 'sort' })] }, 'Invalid workbook state: cells: Two cells are named X'],
    [{ version: 1, cells: [step('a', '1st', { type: 'filter' })] }, 'Invalid workbook state: cells.0.name: Cell names are letters, digits and underscores, starting with a letter'],
  ])('refuses %j with 422: %s', (stored, message) => {
    expect(() => parseWorkbookState(stored)).toThrow(message);
  });
});

describe('workbook cells', () => {
  const s: WorkbookState = { version: 1, cells: [step('c1', 'stores', { type: 'dataset', uuid: 'x' }), step('c2', 'filtered', { type: 'filter', expression: 'a > 1' }, ['stores'])] };

  it('names new cells by what they make, reading the last table above', () => {
    const group = newCell(s, 'step', 'group');
    expect(group).toMatchObject({ id: 'c3', name: 'grouped', inputs: ['filtered'], node: { type: 'group', by: [], expressions: ['count(*) AS n'] } });
    expect(newCell(s, 'step', 'join')).toMatchObject({ name: 'joined', inputs: ['filtered', ''] });
    expect(newCell(s, 'sql')).toMatchObject({ name: 'result', query: 'select * from filtered' });
    expect(freeName(s, 'filtered')).toBe('filtered_2');
    expect(freeName(s, '2024 sales')).toBe('_2024_sales');
  });

  it.each([
    ['move up', { type: 'move', id: 'c2', by: -1 } as const, ['filtered', 'stores']],
    ['move past the top', { type: 'move', id: 'c1', by: -1 } as const, ['stores', 'filtered']],
    ['duplicate', { type: 'duplicate', id: 'c1' } as const, ['stores', 'stores_copy', 'filtered']],
    ['remove', { type: 'remove', id: 'c1' } as const, ['filtered']],
  ])('%s', (_label, action, names) => {
    expect(reduce(s, action).cells.map((c) => c.name)).toEqual(names);
  });

  it('renames a cell and the steps that read it follow', () => {
    const renamed = reduce(s, { type: 'rename', id: 'c1', name: 'shops' });
    expect(renamed.cells.map((c) => [c.name, c.kind === 'step' ? c.inputs : []])).toEqual([['shops', []], ['filtered', ['shops']]]);
  });

  it('refuses reading a later cell, a missing one, or a cell that makes no table', () => {
    const moved = reduce(s, { type: 'move', id: 'c2', by: -1 });
    expect(inputProblem(moved.cells[0]!, moved)).toBe('filtered reads stores, which comes after it: move stores above');
    const withText = reduce(emptyState(), { type: 'add', cell: { id: 't', name: 'notes', kind: 'markdown', collapsed: false, text: '' } });
    const reader = { ...step('r', 'r', { type: 'filter', expression: 'a' }, ['notes']) };
    expect(inputProblem(reader, reduce(withText, { type: 'add', cell: reader }))).toBe('r reads notes, which makes no table');
  });
});

describe('workbook step fields', () => {
  const field = (type: keyof typeof STEP_SPECS, prop: string) => STEP_SPECS[type].fields.find((f) => f.prop === prop)!;
  it.each([
    ['lines into a list', field('select', 'expressions'), 'a\n\n b AS c \n', { expressions: ['a', 'b AS c'] }],
    ['a whole number', field('limit', 'length'), '25', { length: 25 }],
    ['text that is no number stays text for the validator', field('limit', 'length'), '2.5', { length: '2.5' }],
    ['an empty optional prop is left out', field('limit', 'offset'), '', {}],
    ['JSON when it parses', field('hexify', 'geojson'), '{"type":"Point"}', { geojson: { type: 'Point' } }],
    ['join columns into on', field('join', 'on'), 'store\nday', { on: [{ columns: ['store', 'day'] }] }],
  ])('%s', (_label, f, text, props) => {
    const node = withFieldText(f, {}, text);
    expect(node).toEqual(props);
    if (f.prop === 'on' || f.kind === 'lines') expect(fieldText(f, node)).toBe(text.split('\n').map((l) => l.trim()).filter(Boolean).join('\n'));
  });

  it('names the line an expression fails on', () => {
    expect(expressionProblem(field('select', 'expressions'), 'a\nb +')).toMatch(/^Line 2: /);
    expect(expressionProblem(field('sort', 'by'), 'desc(a)\nb')).toBe('');
  });
});

describe('workbook drawings', () => {
  it('draws bars from the picked columns, nothing until both are picked', () => {
    const rows = [{ c: 'Cafe', t: 60n }, { c: 'Fuel', t: 8 }];
    expect(chartCellOption({ chart: 'bar', x: 'c', y: '' }, rows)).toBeNull();
    const option = chartCellOption({ chart: 'bar', x: 'c', y: 't' }, rows) as { xAxis: { data: string[] }; series: { data: number[] }[] };
    expect([option.xAxis.data, option.series[0]!.data]).toEqual([['Cafe', 'Fuel'], [60, 8]]);
  });
});
