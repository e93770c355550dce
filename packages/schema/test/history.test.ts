import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedProperties, describeChanges } from '../src/history-changes';
import { applyStateDelta, canonicalJson, HISTORY_FULL_EVERY, nextIsFull, rebaseChain, reconstructState, stateDelta, type StoredVersionBody } from '../src/history-deltas';

const layer = (id: string, label: string, color = [10, 20, 30], opacity = 0.8) => ({
  id,
  type: 'point',
  config: { dataId: 'd1', label, color, isVisible: true, visConfig: { opacity, radius: 10 } },
  visualChannels: { colorField: null },
});
const mapState = (layers: unknown[], extra: { filters?: unknown[]; mapStyle?: unknown; mapState?: unknown; tooltip?: unknown } = {}) => ({
  studioVersion: 1,
  kepler: {
    version: 'v1',
    config: {
      visState: { layers, filters: extra.filters ?? [], interactionConfig: { tooltip: extra.tooltip ?? { enabled: true } }, layerBlending: 'normal' },
      mapState: extra.mapState ?? { latitude: 1, longitude: 2, zoom: 3 },
      mapStyle: extra.mapStyle ?? { styleType: 'dark' },
    },
  },
});

describe('deltas', () => {
  const a = mapState([layer('a', 'Cafes'), layer('b', 'Bars')]);
  it.each([
    ['a layer inserted first', mapState([layer('n', 'New'), layer('a', 'Cafes'), layer('b', 'Bars')])],
    ['a layer restyled', mapState([layer('a', 'Cafes', [1, 2, 3]), layer('b', 'Bars')])],
    ['a layer removed', mapState([layer('b', 'Bars')])],
    ['layers swapped', mapState([layer('b', 'Bars'), layer('a', 'Cafes')])],
    ['the view moved', mapState([layer('a', 'Cafes'), layer('b', 'Bars')], { mapState: { latitude: 5, longitude: 6, zoom: 7 } })],
    ['a long SQL edited', { ...a, sql: `select * from t where x = 1 ${'and y > 0 '.repeat(30)}` }],
  ])('%s: the delta reproduces the new state', (_what, b) => {
    const delta = stateDelta(a, b);
    expect(delta).toBeDefined();
    expect(canonicalJson(applyStateDelta(a, delta))).toBe(canonicalJson(b));
  });

  it('an equal state (key order aside) has no delta', () => {
    expect(stateDelta({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBeUndefined();
  });

  it('a layer inserted first is one entry, not a rewrite of the layers after it', () => {
    const many = Array.from({ length: 50 }, (_, i) => layer(`l${i}`, `Layer ${i}`));
    const delta = stateDelta(mapState(many), mapState([layer('n', 'New'), ...many]));
    expect(JSON.stringify(delta).length).toBeLessThan(500);
  });

  it('a long text edited by a character is stored as a text patch', () => {
    const sql = `select ${'column_name, '.repeat(200)} 1`;
    const delta = stateDelta({ sql }, { sql: `${sql}2` });
    expect(JSON.stringify(delta).length).toBeLessThan(200);
  });

  it('duplicate ids and items without ids still round-trip', () => {
    const before = { items: [{ id: 'x', v: 1 }, { id: 'x', v: 2 }, { v: 3 }, 4] };
    const after = { items: [{ v: 3 }, { id: 'x', v: 2 }, 5, { id: 'x', v: 9 }, { id: 'x', v: 1 }] };
    expect(canonicalJson(applyStateDelta(before, stateDelta(before, after)))).toBe(canonicalJson(after));
  });

  it('a chain of 60 random edits reconstructs every version; rebased after thinning, every kept one still does', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 48271) % 2147483647), seed % n);
    const states: unknown[] = [];
    let layers = [layer('a', 'A'), layer('b', 'B')];
    for (let i = 0; i < 60; i++) {
      const op = rand(4);
      if (op === 0) layers = [...layers.slice(0, rand(layers.length + 1)), layer(`n${i}`, `N${i}`), ...layers.slice(rand(layers.length + 1))];
      else if (op === 1 && layers.length > 1) layers = layers.filter((_, j) => j !== rand(layers.length));
      else if (op === 2) layers = layers.map((l, j) => (j === rand(layers.length) ? layer(l.id, l.config.label, [i, i, i], i / 100) : l));
      else layers = [...layers].reverse();
      states.push(mapState(layers));
    }
    const chain = rebaseChain(states);
    expect(chain.filter((c) => c.kind === 'full').length).toBe(Math.ceil(60 / HISTORY_FULL_EVERY));
    states.forEach((s, n) => {
      const start = n - (n % HISTORY_FULL_EVERY);
      expect(canonicalJson(reconstructState(chain.slice(start, n + 1) as StoredVersionBody[]))).toBe(canonicalJson(s));
    });
    const kept = states.filter((_, i) => i % 3 === 0);
    const rebased = rebaseChain(kept);
    kept.forEach((s, n) => expect(canonicalJson(reconstructState(rebased.slice(0, n + 1) as StoredVersionBody[]))).toBe(canonicalJson(s)));
  });

  // The walk that skips equal subtrees before jsondiffpatch (stateDelta) must never call a changed pair equal: JSON
  // values that share most of their structure (one edited from the other) still round-trip, and equal ones have no delta.
  it('random JSON values edited from each other: the delta reproduces the edit, none for an equal copy', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, false, 0, 1, '', 'a'), fc.integer(), fc.string(), tie('array'), tie('object'), tie('layers')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'id', 'i'), tie('value'), { maxKeys: 4 }),
      layers: fc.array(fc.record({ id: fc.constantFrom('x', 'y', 'z', 1), v: tie('value') }), { maxLength: 4 }),
    })).value;
    const edit = (v: unknown, path: number[]): unknown => {
      if (!path.length || v === null || typeof v !== 'object') return path.length ? v : { edited: path.length };
      const [p, ...rest] = path;
      if (Array.isArray(v)) return v.length ? v.map((x, i) => (i === p! % v.length ? edit(x, rest) : structuredClone(x))) : [1];
      const keys = Object.keys(v);
      if (!keys.length) return { added: true };
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === keys[p! % keys.length] ? edit(x, rest) : structuredClone(x)]));
    };
    fc.assert(
      fc.property(json, fc.array(fc.nat(8), { maxLength: 5 }), (before, path) => {
        const after = edit(before, path);
        expect(canonicalJson(applyStateDelta(before, stateDelta(before, after)))).toBe(canonicalJson(after));
        expect(stateDelta(before, structuredClone(before))).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it('a chain read for the call alone (owned) is patched in place and gives the same state', () => {
    const states = [mapState([layer('a', 'A')]), mapState([layer('a', 'A', [1, 1, 1]), layer('b', 'B')]), mapState([layer('b', 'B')])];
    const chain = () => structuredClone(rebaseChain(states)) as StoredVersionBody[];
    expect(canonicalJson(reconstructState(chain(), { owned: true }))).toBe(canonicalJson(states[2]));
    const kept = chain();
    reconstructState(kept);
    expect(kept).toEqual(rebaseChain(states));
  });

  it.each([
    [null, true],
    [0, false],
    [HISTORY_FULL_EVERY - 2, false],
    [HISTORY_FULL_EVERY - 1, true],
  ])('after a chain of %s deltas the next version is full: %s', (chain, full) => expect(nextIsFull(chain)).toBe(full));
});

describe('describeChanges', () => {
  const base = mapState([layer('a', 'Cafes'), layer('b', 'Bars')]);
  const pick = (cs: ReturnType<typeof describeChanges>) => cs.map((c) => [c.area, c.id, c.label, c.kind, c.property, c.before, c.after]);
  it.each([
    ['a layer restyled', mapState([layer('a', 'Cafes', [1, 2, 3]), layer('b', 'Bars')]), [['layer', 'a', 'Cafes', 'changed', 'color', [10, 20, 30], [1, 2, 3]]]],
    ['an opacity changed', mapState([layer('a', 'Cafes'), layer('b', 'Bars', undefined, 0.3)]), [['layer', 'b', 'Bars', 'changed', 'visConfig.opacity', 0.8, 0.3]]],
    ['a layer added', mapState([layer('a', 'Cafes'), layer('b', 'Bars'), layer('c', 'Shops')]), [['layer', 'c', 'Shops', 'added', null, null, layer('c', 'Shops')]]],
    ['a layer removed', mapState([layer('b', 'Bars')]), [['layer', 'a', 'Cafes', 'removed', null, layer('a', 'Cafes'), null]]],
    ['layers swapped', mapState([layer('b', 'Bars'), layer('a', 'Cafes')]), [['layer', 'b', 'Bars', 'moved', null, 1, 0], ['layer', 'a', 'Cafes', 'moved', null, 0, 1]]],
    ['the view moved', mapState([layer('a', 'Cafes'), layer('b', 'Bars')], { mapState: { latitude: 1, longitude: 2, zoom: 9 } }), [['view', null, 'View', 'changed', 'zoom', 3, 9]]],
    ['the map style changed', mapState([layer('a', 'Cafes'), layer('b', 'Bars')], { mapStyle: { styleType: 'light' } }), [['mapStyle', null, 'Map style', 'changed', 'styleType', 'dark', 'light']]],
    ['the tooltip turned off', mapState([layer('a', 'Cafes'), layer('b', 'Bars')], { tooltip: { enabled: false } }), [['interaction', 'tooltip', 'tooltip', 'changed', 'enabled', true, false]]],
    [
      'a filter added',
      mapState([layer('a', 'Cafes'), layer('b', 'Bars')], { filters: [{ id: 'f1', name: ['price'], value: [1, 5] }] }),
      [['filter', 'f1', 'price', 'added', null, null, { id: 'f1', name: ['price'], value: [1, 5] }]],
    ],
    ['nothing', mapState([layer('a', 'Cafes'), layer('b', 'Bars')]), []],
  ])('maps: %s', (_what, after, expected) => expect(pick(describeChanges('maps', base, after))).toEqual(expected));

  it('maps: a bare kepler config (state version 0) is read like a studio state', () => {
    const bare = base.kepler;
    expect(pick(describeChanges('maps', bare, mapState([layer('a', 'Cafes', [0, 0, 0]), layer('b', 'Bars')])))).toEqual([['layer', 'a', 'Cafes', 'changed', 'color', [10, 20, 30], [0, 0, 0]]]);
  });

  const widget = (id: string, title: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'kpi', title, parameterIds: [], ...extra });
  const dash = (widgets: unknown[], layout: unknown[] = [], parameters: unknown[] = []) => ({ version: 1, widgets, parameters, layout });
  it.each([
    ['a widget retitled', dash([widget('w1', 'Sales')]), dash([widget('w1', 'Revenue')]), [['widget', 'w1', 'Revenue', 'changed', 'title', 'Sales', 'Revenue']]],
    ['a widget added', dash([]), dash([widget('w1', 'Sales')]), [['widget', 'w1', 'Sales', 'added', null, null, widget('w1', 'Sales')]]],
    [
      'a widget moved on the grid',
      dash([widget('w1', 'Sales')], [{ i: 'w1', x: 0, y: 0, w: 6, h: 8 }]),
      dash([widget('w1', 'Sales')], [{ i: 'w1', x: 6, y: 0, w: 6, h: 8 }]),
      [['layout', 'w1', 'Sales', 'changed', 'x', 0, 6]],
    ],
    [
      'a parameter default changed',
      dash([], [], [{ id: 'city', label: 'City', type: 'TEXT', column: 'c', defaultValue: 'Oslo' }]),
      dash([], [], [{ id: 'city', label: 'City', type: 'TEXT', column: 'c', defaultValue: 'Rome' }]),
      [['parameter', 'city', 'City', 'changed', 'defaultValue', 'Oslo', 'Rome']],
    ],
  ])('dashboards: %s', (_what, before, after, expected) => expect(pick(describeChanges('insights', before, after))).toEqual(expected));

  it('workbooks: an SQL edit names the cell and carries a text diff', () => {
    const wb = (query: string, extra: unknown[] = []) => ({ version: 1, cells: [{ id: 'c1', name: 'trips', kind: 'sql', query, collapsed: false }, ...extra] });
    const [change, ...rest] = describeChanges('workbooks', wb('select a from t'), wb('select a, b from t'));
    expect(rest).toEqual([]);
    expect(change).toMatchObject({ area: 'cell', id: 'c1', label: 'trips', kind: 'changed', property: 'query' });
    expect(change!.textDiff).toEqual([
      { op: 'equal', text: 'select a' },
      { op: 'insert', text: ', b' },
      { op: 'equal', text: ' from t' },
    ]);
    const step = { id: 's1', name: 'filtered', kind: 'step', node: { type: 'filter', condition: 'x > 1' }, inputs: ['trips'], collapsed: false };
    const changed = describeChanges('workbooks', wb('q', [step]), wb('q', [{ ...step, node: { type: 'filter', condition: 'x > 2' } }]));
    expect(pick(changed)).toEqual([['cell', 's1', 'filtered', 'changed', 'node.condition', 'x > 1', 'x > 2']]);
  });

  it('changedProperties walks objects and compares arrays whole', () => {
    expect(changedProperties({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { b: 1, c: [1, 3] }, e: 2 })).toEqual([
      { property: 'a.c', before: [1, 2], after: [1, 3] },
      { property: 'd', before: 1, after: undefined },
      { property: 'e', before: undefined, after: 2 },
    ]);
  });
});
