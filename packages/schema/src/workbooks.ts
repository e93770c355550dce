import { z } from 'zod';
import { StudioError } from './errors';
import { isStateObject, parseVersionedState, type StateUpgrade } from './versioned-state';

/**
 * A workbook's saved state (Workbook.latestState): a notebook of cells, top to bottom. Versioned like the
 * map and dashboard states: `version` plus WORKBOOK_UPGRADES[n] (n → n + 1), so an old workbook opens
 * upgraded instead of half-read. The web app parses every state it opens with `parseWorkbookState`.
 *
 * A step cell holds one pipeline node without its `input`: its inputs are the names of cells above it, so
 * a cell can be renamed, moved or re-run without copying the steps it reads. Node props are checked by the
 * pipeline's own validators when the cell runs (an unfinished step is saved as it is and shows its
 * validator's message), not here.
 */
export const WORKBOOK_STATE_VERSION = 1;

export const CELL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const CellName = z.string().regex(CELL_NAME, 'Cell names are letters, digits and underscores, starting with a letter');

const cellBase = {
  id: z.string().min(1).max(64),
  name: CellName,
  /** Shown as its title bar only. */
  collapsed: z.boolean().default(false),
};

export const StepCell = z.object({
  ...cellBase,
  kind: z.literal('step'),
  node: z.looseObject({ type: z.string().min(1).max(40) }),
  /** Names of the cells above whose results this step reads, in the node's input order. */
  inputs: z.array(CellName).max(20).default([]),
}).strict();

export const SqlCell = z.object({ ...cellBase, kind: z.literal('sql'), query: z.string().max(100_000) }).strict();

export const WORKBOOK_CHART_KINDS = ['bar', 'line', 'scatter', 'pie'] as const;
export const ChartCell = z.object({
  ...cellBase,
  kind: z.literal('chart'),
  source: CellName.or(z.literal('')),
  chart: z.enum(WORKBOOK_CHART_KINDS).default('bar'),
  /** The category (bar, line, pie) or x (scatter) column; '' until picked. */
  x: z.string().max(200).default(''),
  /** The value column. */
  y: z.string().max(200).default(''),
}).strict();

export const MapCell = z.object({ ...cellBase, kind: z.literal('map'), source: CellName.or(z.literal('')) }).strict();

export const MarkdownCell = z.object({ ...cellBase, kind: z.literal('markdown'), text: z.string().max(100_000) }).strict();

export const WorkbookCell = z.discriminatedUnion('kind', [StepCell, SqlCell, ChartCell, MapCell, MarkdownCell]);
export type WorkbookCell = z.infer<typeof WorkbookCell>;
export type StepCell = z.infer<typeof StepCell>;
export type SqlCell = z.infer<typeof SqlCell>;
export type ChartCell = z.infer<typeof ChartCell>;
export type MapCell = z.infer<typeof MapCell>;
export type MarkdownCell = z.infer<typeof MarkdownCell>;
export type CellKind = WorkbookCell['kind'];

export const WorkbookState = z
  .object({
    version: z.literal(WORKBOOK_STATE_VERSION),
    cells: z.array(WorkbookCell).max(200),
  })
  .strict()
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    const names = new Set<string>();
    for (const c of s.cells) {
      if (ids.has(c.id)) ctx.addIssue({ code: 'custom', message: `Two cells have the id ${c.id}`, path: ['cells'] });
      if (names.has(c.name.toLowerCase())) ctx.addIssue({ code: 'custom', message: `Two cells are named ${c.name}`, path: ['cells'] });
      ids.add(c.id);
      names.add(c.name.toLowerCase());
    }
  });
export type WorkbookState = z.infer<typeof WorkbookState>;


/**
 * UPGRADES[n]: version n to n + 1. Version 0 is a bare list of cells (no `version`), each step holding its
 * node with the node's `input` as names of earlier cells: the inputs move out of the node.
 */
export const WORKBOOK_UPGRADES: Record<number, StateUpgrade> = {
  0: (s) => {
    const cells = (Array.isArray(s.cells) ? s.cells : []).map((c: unknown) => {
      const cell = isStateObject(c) ? c : {};
      if (cell.kind !== 'step' || !isStateObject(cell.node)) return cell;
      const { input, ...node } = cell.node;
      const inputs = Array.isArray(input) ? input.filter((i): i is string => typeof i === 'string') : [];
      return { ...cell, node, inputs: Array.isArray(cell.inputs) ? cell.inputs : inputs };
    });
    return { version: 1, cells };
  },
};

/** Brings a stored workbook state to the current version and validates it; 422 on anything else. */
export function parseWorkbookState(stored: unknown): WorkbookState {
  const state = Array.isArray(stored) ? { cells: stored } : stored;
  if (!isStateObject(state)) throw new StudioError(422, 'Invalid workbook state: not an object');
  return parseVersionedState(state, {
    what: 'workbook',
    current: WORKBOOK_STATE_VERSION,
    upgrades: WORKBOOK_UPGRADES,
    schema: WorkbookState,
    versionOf: (s) => (typeof s.version === 'number' ? s.version : Array.isArray(s.cells) ? 0 : -1),
    unknownShape: 'neither a versioned state nor a list of cells',
  });
}

export const emptyWorkbookState = (): WorkbookState => ({ version: WORKBOOK_STATE_VERSION, cells: [] });

/** A temporary view as its maker sees it (catalog §9): what a workbook cell's run answers. */
export const TempViewWire = z.object({
  name: z.string(),
  expiresAt: z.string(),
  rowCount: z.number().int(),
  /** Where it was computed: `duckdb`, or the connection type of the warehouse it ran on. */
  engine: z.string().optional(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })).optional(),
  rows: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type TempViewWire = z.infer<typeof TempViewWire>;
