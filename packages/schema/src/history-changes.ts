import { DIFF_DELETE, DIFF_INSERT, diff_match_patch } from '@dmsnell/diff-match-patch';
import type { Change, HistoryCollection, TextDiffPart } from './history';
import { canonicalJson } from './history-deltas';
import { keplerConfigOfMapState } from './kepler-files';
import { isStateObject as isObject } from './versioned-state';

/**
 * What changed between two saved states, in the terms of the thing (#51): layers, filters,
 * interactions, map style and view for maps; widgets, parameters and layout for dashboards; cells for
 * workbooks. The same function answers the server's diff call and the web app's diff view.
 */
export function describeChanges(type: HistoryCollection, before: unknown, after: unknown): Change[] {
  return DESCRIBERS[type](before, after);
}

const DESCRIBERS: Record<HistoryCollection, (before: unknown, after: unknown) => Change[]> = {
  maps: describeMapChanges,
  insights: describeDashboardChanges,
  workbooks: describeWorkbookChanges,
};

type Item = Record<string, unknown>;
const same = (a: unknown, b: unknown) => a === b || canonicalJson(a) === canonicalJson(b);
const asItems = (v: unknown): Item[] => (Array.isArray(v) ? v.filter(isObject) : []);
const asObject = (v: unknown): Item => (isObject(v) ? v : {});

/** Properties whose text is shown as a text diff (SQL and markdown). */
const TEXT_PROPERTIES = new Set(['query', 'sql', 'text', 'expression']);

export function textDiff(before: string, after: string): TextDiffPart[] {
  const dmp = new diff_match_patch();
  const parts = dmp.diff_main(before, after);
  dmp.diff_cleanupSemantic(parts);
  return parts.map(([op, text]) => ({ op: op === DIFF_INSERT ? 'insert' : op === DIFF_DELETE ? 'delete' : 'equal', text: String(text) }));
}

/**
 * The leaves that differ between two values as dotted paths under `prefix`: objects are walked,
 * arrays and scalars compared whole (a colour [r, g, b] is one property).
 */
export function changedProperties(before: unknown, after: unknown, prefix = ''): { property: string | null; before: unknown; after: unknown }[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changedProperties(before[k], after[k], prefix ? `${prefix}.${k}` : k));
  }
  return same(before, after) ? [] : [{ property: prefix || null, before, after }];
}

function propertyChanges(area: string, id: string | null, label: string, before: unknown, after: unknown, prefix = ''): Change[] {
  return changedProperties(before, after, prefix).map((p) => ({
    area,
    id,
    label,
    kind: 'changed' as const,
    property: p.property,
    before: p.before,
    after: p.after,
    ...(TEXT_PROPERTIES.has(p.property?.split('.').pop() ?? '') && typeof p.before === 'string' && typeof p.after === 'string' ? { textDiff: textDiff(p.before, p.after) } : {}),
  }));
}

/**
 * Items of a list matched by id: added, removed, changed (one change per property), and moved when
 * the order of the items both lists keep differs. `inner` picks the part of an item its properties
 * are named from (a kepler layer's `config`, so the property reads 'color', not 'config.color').
 */
function listChanges(area: string, before: Item[], after: Item[], opts: { idOf: (i: Item) => string; labelOf: (i: Item) => string; props?: (i: Item) => unknown }): Change[] {
  const oldById = new Map(before.map((i) => [opts.idOf(i), i]));
  const newById = new Map(after.map((i) => [opts.idOf(i), i]));
  const changes: Change[] = [];
  for (const item of before) {
    const id = opts.idOf(item);
    if (!newById.has(id)) changes.push({ area, id, label: opts.labelOf(item), kind: 'removed', property: null, before: item, after: null });
  }
  for (const item of after) {
    const id = opts.idOf(item);
    const old = oldById.get(id);
    if (!old) changes.push({ area, id, label: opts.labelOf(item), kind: 'added', property: null, before: null, after: item });
    else changes.push(...itemChanges(area, id, opts.labelOf(item), old, item, opts.props));
  }
  const keptOld = before.map(opts.idOf).filter((id) => newById.has(id));
  const keptNew = after.map(opts.idOf).filter((id) => oldById.has(id));
  keptNew.forEach((id, at) => {
    if (keptOld[at] !== id) changes.push({ area, id, label: opts.labelOf(newById.get(id)!), kind: 'moved', property: null, before: keptOld.indexOf(id), after: at });
  });
  return changes;
}

/** An item's property changes: those under `props(item)` named without its prefix, the rest by their full path. */
function itemChanges(area: string, id: string, label: string, old: Item, item: Item, props?: (i: Item) => unknown): Change[] {
  if (!props) return propertyChanges(area, id, label, old, item);
  const inner = propertyChanges(area, id, label, props(old), props(item));
  const outerKeys = [...new Set([...Object.keys(old), ...Object.keys(item)])].filter((k) => old[k] !== props(old) || item[k] !== props(item));
  const outer = outerKeys.flatMap((k) => propertyChanges(area, id, label, old[k], item[k], k));
  return [...inner, ...outer];
}

const idOf = (i: Item) => String(i.id ?? '');

// --- maps: kepler's saved config {visState: {layers, filters, interactionConfig, ...}, mapState, mapStyle}

function keplerParts(state: unknown) {
  const config = asObject(keplerConfigOfMapState(state)?.config);
  return { visState: asObject(config.visState), mapState: asObject(config.mapState), mapStyle: asObject(config.mapStyle) };
}

const layerLabel = (l: Item) => {
  const label = asObject(l.config).label;
  return typeof label === 'string' && label ? label : idOf(l);
};
const filterLabel = (f: Item) => {
  const name = Array.isArray(f.name) ? f.name.join(', ') : typeof f.name === 'string' ? f.name : '';
  return name || idOf(f);
};

function describeMapChanges(before: unknown, after: unknown): Change[] {
  const a = keplerParts(before);
  const b = keplerParts(after);
  const changes = [
    ...listChanges('layer', asItems(a.visState.layers), asItems(b.visState.layers), { idOf, labelOf: layerLabel, props: (l) => l.config }),
    ...listChanges('filter', asItems(a.visState.filters), asItems(b.visState.filters), { idOf, labelOf: filterLabel }),
  ];
  const oldInteractions = asObject(a.visState.interactionConfig);
  const newInteractions = asObject(b.visState.interactionConfig);
  for (const key of [...new Set([...Object.keys(oldInteractions), ...Object.keys(newInteractions)])]) {
    changes.push(...propertyChanges('interaction', key, key, oldInteractions[key], newInteractions[key]));
  }
  const { layers: _l1, filters: _f1, interactionConfig: _i1, ...restA } = a.visState;
  const { layers: _l2, filters: _f2, interactionConfig: _i2, ...restB } = b.visState;
  changes.push(...propertyChanges('map', null, 'Map', restA, restB));
  changes.push(...propertyChanges('mapStyle', null, 'Map style', a.mapStyle, b.mapStyle));
  changes.push(...propertyChanges('view', null, 'View', a.mapState, b.mapState));
  return changes;
}

// --- dashboards: {widgets, parameters, layout}

function describeDashboardChanges(before: unknown, after: unknown): Change[] {
  const a = asObject(before);
  const b = asObject(after);
  const widgetLabel = (w: Item) => (typeof w.title === 'string' && w.title ? w.title : `${String(w.kind ?? 'widget')} ${idOf(w)}`);
  const titles = new Map([...asItems(a.widgets), ...asItems(b.widgets)].map((w) => [idOf(w), widgetLabel(w)]));
  const { widgets: _w1, parameters: _p1, layout: _y1, version: _v1, ...restA } = a;
  const { widgets: _w2, parameters: _p2, layout: _y2, version: _v2, ...restB } = b;
  return [
    ...listChanges('widget', asItems(a.widgets), asItems(b.widgets), { idOf, labelOf: widgetLabel }),
    ...listChanges('parameter', asItems(a.parameters), asItems(b.parameters), { idOf, labelOf: (p) => (typeof p.label === 'string' && p.label ? p.label : idOf(p)) }),
    // Layout items are the widgets' places on the grid: named by their widget; their order means nothing.
    ...listChanges('layout', asItems(a.layout), asItems(b.layout), { idOf: (i) => String(i.i ?? ''), labelOf: (i) => titles.get(String(i.i)) ?? String(i.i) }).filter(
      (c) => c.kind !== 'moved',
    ),
    ...propertyChanges('dashboard', null, 'Dashboard', restA, restB),
  ];
}

// --- workbooks: {cells}

function describeWorkbookChanges(before: unknown, after: unknown): Change[] {
  const a = asObject(before);
  const b = asObject(after);
  return listChanges('cell', asItems(a.cells), asItems(b.cells), { idOf, labelOf: (c) => (typeof c.name === 'string' && c.name ? c.name : idOf(c)) });
}
