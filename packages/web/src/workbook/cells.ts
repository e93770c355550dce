import type { NodeType } from '@studio/pipeline';
import { WORKBOOK_STATE_VERSION, type CellKind, type WorkbookCell, type WorkbookState } from '@studio/schema';
import { STEP_CELL_NAMES, STEP_SPECS } from './steps';

/**
 * The workbook's state changes, as a map of small pure updaters (kepler.gl's reducer style): the page
 * keeps the states it went through, so every change can be undone.
 */
export type Action =
  | { type: 'add'; cell: WorkbookCell; after?: string }
  | { type: 'update'; cell: WorkbookCell }
  | { type: 'remove'; id: string }
  | { type: 'move'; id: string; by: -1 | 1 }
  | { type: 'duplicate'; id: string }
  | { type: 'toggle'; id: string }
  | { type: 'rename'; id: string; name: string };

type Updaters = { [T in Action['type']]: (s: WorkbookState, a: Extract<Action, { type: T }>) => WorkbookState };

const withCells = (s: WorkbookState, cells: WorkbookCell[]): WorkbookState => ({ ...s, cells });

const UPDATERS: Updaters = {
  add: (s, a) => {
    const after = a.after ? s.cells.findIndex((c) => c.id === a.after) : -1;
    const at = after < 0 ? s.cells.length : after + 1;
    return withCells(s, [...s.cells.slice(0, at), a.cell, ...s.cells.slice(at)]);
  },
  update: (s, a) => withCells(s, s.cells.map((c) => (c.id === a.cell.id ? a.cell : c))),
  remove: (s, a) => withCells(s, s.cells.filter((c) => c.id !== a.id)),
  move: (s, a) => {
    const i = s.cells.findIndex((c) => c.id === a.id);
    const j = i + a.by;
    if (i < 0 || j < 0 || j >= s.cells.length) return s;
    const cells = [...s.cells];
    [cells[i], cells[j]] = [cells[j]!, cells[i]!];
    return withCells(s, cells);
  },
  duplicate: (s, a) => {
    const cell = s.cells.find((c) => c.id === a.id);
    if (!cell) return s;
    const copy = { ...structuredClone(cell), id: newCellId(s), name: freeName(s, `${cell.name}_copy`) };
    return UPDATERS.add(s, { type: 'add', cell: copy, after: cell.id });
  },
  toggle: (s, a) => withCells(s, s.cells.map((c) => (c.id === a.id ? { ...c, collapsed: !c.collapsed } : c))),
  /** Steps, charts and maps that read the cell by name follow it (SQL text is the user's: it is left as written). */
  rename: (s, a) => {
    const old = s.cells.find((c) => c.id === a.id)?.name.toLowerCase();
    if (old === undefined) return s;
    const follow = (n: string) => (n.toLowerCase() === old ? a.name : n);
    return withCells(s, s.cells.map((c) => {
      if (c.id === a.id) return { ...c, name: a.name };
      if (c.kind === 'step') return { ...c, inputs: c.inputs.map(follow) };
      if (c.kind === 'chart' || c.kind === 'map') return { ...c, source: follow(c.source) };
      return c;
    }));
  },
};

export function reduce(state: WorkbookState, action: Action): WorkbookState {
  return (UPDATERS[action.type] as (s: WorkbookState, a: Action) => WorkbookState)(state, action);
}

export const emptyState = (): WorkbookState => ({ version: WORKBOOK_STATE_VERSION, cells: [] });

export function newCellId(s: WorkbookState): string {
  let n = s.cells.length + 1;
  while (s.cells.some((c) => c.id === `c${n}`)) n++;
  return `c${n}`;
}

/** `base`, or `base_2`, `base_3`…: the first name no cell has (names are compared without case). */
export function freeName(s: WorkbookState, base: string): string {
  const clean = base.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([^A-Za-z_])/, '_$1').slice(0, 56) || 'cell';
  const taken = new Set(s.cells.map((c) => c.name.toLowerCase()));
  if (!taken.has(clean.toLowerCase())) return clean;
  let n = 2;
  while (taken.has(`${clean}_${n}`.toLowerCase())) n++;
  return `${clean}_${n}`;
}

/** Result-producing cells: steps and SQL (charts, maps and text draw or say, they make no table). */
export const makesTable = (c: WorkbookCell): boolean => c.kind === 'step' || c.kind === 'sql';

/** A new cell of a kind (a step of `stepType`), reading the last table-making cell above where it goes. */
export function newCell(s: WorkbookState, kind: CellKind, stepType: NodeType = 'filter', extra: Record<string, unknown> = {}): WorkbookCell {
  const id = newCellId(s);
  const last = [...s.cells].reverse().find(makesTable)?.name ?? '';
  switch (kind) {
    case 'step': {
      const spec = STEP_SPECS[stepType];
      // A join's second input and a tile join's others are picked by the user.
      const inputs = Array.from({ length: spec.inputs[0] }, (_, i) => (i === 0 ? last : ''));
      return { id, kind, name: freeName(s, STEP_CELL_NAMES[stepType]), collapsed: false, node: { type: stepType, ...structuredClone(spec.initial), ...extra }, inputs };
    }
    case 'sql':
      return { id, kind, name: freeName(s, 'result'), collapsed: false, query: last ? `select * from ${last}` : 'select 1 as one' };
    case 'chart':
      return { id, kind, name: freeName(s, 'chart'), collapsed: false, source: last, chart: 'bar', x: '', y: '' };
    case 'map':
      return { id, kind, name: freeName(s, 'map'), collapsed: false, source: last };
    case 'markdown':
      return { id, kind, name: freeName(s, 'notes'), collapsed: false, text: '## Notes\n\nWhat this workbook finds.' };
  }
}

/** The cells a cell reads, by name: a step's inputs, the cells a SQL query names, a chart's or map's source. */
export function readsOf(cell: WorkbookCell, state: WorkbookState): string[] {
  switch (cell.kind) {
    case 'step':
      return cell.inputs;
    case 'sql': {
      // Names of cells above that the query mentions as words: the server resolves them, this only
      // decides what re-runs (a name in a string or comment re-runs it too, which costs time, not truth).
      const words = new Set((cell.query.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((w) => w.toLowerCase()));
      return state.cells.filter((c) => c.id !== cell.id && makesTable(c) && words.has(c.name.toLowerCase())).map((c) => c.name);
    }
    case 'chart':
    case 'map':
      return cell.source ? [cell.source] : [];
    case 'markdown':
      return [];
  }
}

/**
 * Why a cell cannot read its inputs, or null: each name must be a table-making cell above it (a later cell
 * or a missing one is refused with its name).
 */
export function inputProblem(cell: WorkbookCell, state: WorkbookState): string | null {
  const at = state.cells.findIndex((c) => c.id === cell.id);
  for (const name of readsOf(cell, state)) {
    if (!name) return `${cell.name}: pick the cell to read`;
    const i = state.cells.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
    if (i < 0) return `${cell.name} reads ${name}, which is not a cell of this workbook`;
    if (i >= at) return `${cell.name} reads ${name}, which comes after it: move ${name} above`;
    if (!makesTable(state.cells[i]!)) return `${cell.name} reads ${name}, which makes no table`;
  }
  return null;
}

/** The datasets the workbook reads (linked to the record on save, as maps link theirs). */
export function datasetsOf(state: WorkbookState): string[] {
  const ids = new Set<string>();
  for (const c of state.cells) {
    if (c.kind !== 'step') continue;
    for (const prop of ['uuid', 'sourceId']) {
      const v = c.node[prop];
      if (typeof v === 'string' && /^[0-9a-f-]{36}$/i.test(v)) ids.add(v);
    }
  }
  return [...ids];
}
