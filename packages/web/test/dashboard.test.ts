import { describe, expect, it } from 'vitest';
import { parseDashboardState, type Widget } from '@studio/schema';
import { TEMPLATES, newWidgetId, reduce, valuesFromSearch } from '../src/dashboard/state';
import { change, chartOption, formatNumber } from '../src/dashboard/options';

const widget = (id: string, kind: Widget['kind'] = 'bar'): Widget => ({
  id, kind, title: id, parameterIds: [], options: { numberFormat: 'number', decimals: 0 },
  query: { datasetId: '00000000-0000-4000-8000-000000000001', dimensions: ['category'], measures: [{ fn: 'count' }], columns: [], filters: [], limit: 1000 },
});

describe('dashboard state updaters', () => {
  it('adds widgets below the others, each with a layout cell, and removes both together', () => {
    let s = TEMPLATES.blank!.state();
    s = reduce(s, { type: 'addWidget', payload: widget('a') });
    s = reduce(s, { type: 'addWidget', payload: widget('b', 'kpi') });
    expect(s.layout).toEqual([{ i: 'a', x: 0, y: 0, w: 6, h: 9 }, { i: 'b', x: 0, y: 9, w: 3, h: 4 }]);
    s = reduce(s, { type: 'removeWidget', payload: 'a' });
    expect(s.widgets.map((w) => w.id)).toEqual(['b']);
    expect(s.layout.map((l) => l.i)).toEqual(['b']);
    expect(newWidgetId(s, 'kpi')).toBe('kpi-2');
  });
  it('binds a new parameter to the chosen widgets and unbinds it everywhere when removed', () => {
    let s = reduce(reduce(TEMPLATES.blank!.state(), { type: 'addWidget', payload: widget('a') }), { type: 'addWidget', payload: widget('b') });
    s = reduce(s, { type: 'addParameter', payload: { parameter: { id: 'category', label: '', type: 'DROPDOWN', column: 'category', source: { kind: 'STATIC', values: [] } }, bindTo: ['a'] } });
    expect(s.widgets.map((w) => w.parameterIds)).toEqual([['category'], []]);
    expect(() => parseDashboardState(s)).not.toThrow();
    s = reduce(s, { type: 'removeParameter', payload: 'category' });
    expect(s.widgets.map((w) => w.parameterIds)).toEqual([[], []]);
  });
  it('every template is a valid saved state; the report template says what to add', () => {
    for (const t of Object.values(TEMPLATES)) expect(() => parseDashboardState(t.state())).not.toThrow();
    expect(TEMPLATES.report!.state().widgets[0]!.text).toContain('# Report');
  });
  it('reads only the dashboard\'s parameters from the link', () => {
    const params = [{ id: 'category', label: '', type: 'DROPDOWN' as const, column: 'c', source: { kind: 'STATIC' as const, values: [] } }];
    expect(valuesFromSearch(new URLSearchParams('category=Cafe&other=1&empty='), params)).toEqual({ category: 'Cafe' });
  });
});

describe('dashboard widget options', () => {
  it.each([
    [1234.5, 'number', 0, '1,235'],
    [1234.5, 'compact', 1, '1.2K'],
    [0.256, 'percent', 1, '25.6%'],
    [12, 'currency', 2, '$12.00'],
    [null, 'number', 0, '–'],
  ] as const)('formats %s as %s', (v, numberFormat, decimals, expected) => {
    expect(formatNumber(v, { numberFormat, decimals })).toBe(expected);
  });
  it('compares with the previous period', () => {
    expect(change(150, 100)).toBe(0.5);
    expect(change(50, 0)).toBeNull();
  });
  it('draws two dimensions as one series per second value, stacked for stacked bars', () => {
    const w = { ...widget('s', 'stackedBar'), query: { ...widget('s').query!, dimensions: ['month', 'category'] } };
    const opt = chartOption(w, { columns: [{ name: 'month', type: 'string' }, { name: 'category', type: 'string' }, { name: 'count', type: 'number' }], rows: [['Jan', 'Cafe', 3], ['Jan', 'Fuel', 1], ['Feb', 'Cafe', 2]] }) as { xAxis: { data: string[] }; series: { name: string; stack?: string; data: unknown[] }[] };
    expect(opt.xAxis.data).toEqual(['Jan', 'Feb']);
    expect(opt.series.map((s) => [s.name, s.stack, s.data])).toEqual([['Cafe', 'total', [3, 2]], ['Fuel', 'total', [1, null]]]);
  });
});
