import { NODE_SPECS, TIME_INTERVALS, parseExpression, parseItem, parseSortKey, type NodeType } from '@studio/pipeline';

/**
 * The form of each of the pipeline's fifteen node types (catalog §3): which props it edits, as what kind
 * of input, and the node a new step starts from. The form writes node props directly; the pipeline's own
 * validator (checkPipeline) judges the node when the cell runs, so a form never has rules of its own
 * beyond turning text into the prop's type.
 */

type Props = Record<string, unknown>;

/** How a prop is edited. */
export type FieldKind =
  /** One line of text. */
  | 'text'
  /** A pipeline expression, checked by the expression parser as it is typed. */
  | 'expression'
  /** One item per line: `expr [AS alias]`, checked per line. */
  | 'items'
  /** One sort key per line: `col`, `desc(col)`, checked per line. */
  | 'sortKeys'
  /** Columns of the input, picked from its schema (or typed, one per line, before it has run). */
  | 'columns'
  /** Free lines of text. */
  | 'lines'
  | 'integer'
  | 'enum'
  /** A JSON value (GeoJSON), kept as typed until it parses. */
  | 'json'
  | 'textarea'
  /** A dataset the user may read, picked by name. */
  | 'dataset'
  /** A saved database connection. */
  | 'connection';

export interface Field {
  prop: string;
  label: string;
  kind: FieldKind;
  /** enum: the choices. */
  options?: readonly string[];
  /** Not required by the node (left out of it when empty). */
  optional?: boolean;
  /** columns: a single column rather than a list. */
  single?: boolean;
  help?: string;
}

export interface StepSpec {
  label: string;
  /** What the step does, in a line. */
  summary: string;
  fields: Field[];
  /** Props of a new step of this type (besides `type`). */
  initial: Props;
  /** How many earlier cells it reads: [min, max] (from the pipeline's NODE_SPECS). */
  inputs: readonly [number, number];
}

const GEOJSON_HELP = 'A GeoJSON Polygon, MultiPolygon, Feature or FeatureCollection';

const specs: Record<NodeType, Omit<StepSpec, 'inputs'>> = {
  dataset: { label: 'Dataset', summary: 'Reads a dataset', fields: [{ prop: 'uuid', label: 'Dataset', kind: 'dataset' }], initial: { uuid: '' } },
  inline_data: {
    label: 'Inline data',
    summary: 'Rows typed into the workbook',
    fields: [
      { prop: 'format', label: 'Format', kind: 'enum', options: ['CSV', 'JSON_OBJECT'] },
      { prop: 'data', label: 'Data', kind: 'textarea', help: 'CSV with a header line, or a JSON array of objects' },
    ],
    initial: { format: 'CSV', data: 'name,value\na,1\nb,2\n' },
  },
  select: { label: 'Select', summary: 'Keeps and computes columns', fields: [{ prop: 'expressions', label: 'Columns and expressions', kind: 'items' }], initial: { expressions: [] } },
  filter: { label: 'Filter', summary: 'Keeps the rows an expression holds for', fields: [{ prop: 'expression', label: 'Condition', kind: 'expression' }], initial: { expression: '' } },
  group: {
    label: 'Group',
    summary: 'Aggregates rows by columns',
    fields: [
      { prop: 'by', label: 'Group by', kind: 'columns' },
      { prop: 'expressions', label: 'Aggregates', kind: 'items', help: 'e.g. count(*) AS n, sum(sales) AS total' },
    ],
    initial: { by: [], expressions: ['count(*) AS n'] },
  },
  sort: { label: 'Sort', summary: 'Orders rows', fields: [{ prop: 'by', label: 'Sort by', kind: 'sortKeys', help: 'col or desc(col), one per line' }], initial: { by: [] } },
  limit: {
    label: 'Limit',
    summary: 'Keeps the first rows',
    fields: [
      { prop: 'length', label: 'Rows', kind: 'integer' },
      { prop: 'offset', label: 'Skip', kind: 'integer', optional: true },
    ],
    initial: { length: 100 },
  },
  join: {
    label: 'Join',
    summary: 'Joins two cells on shared columns',
    fields: [
      { prop: 'join', label: 'Join', kind: 'enum', options: ['LEFT', 'INNER', 'FULL'] },
      { prop: 'on', label: 'On columns', kind: 'columns' },
    ],
    initial: { join: 'INNER', on: [{ columns: [] }] },
  },
  enrich: {
    label: 'Enrich',
    summary: 'Adds columns of a dataset by H3 cell or location',
    fields: [
      { prop: 'sourceId', label: 'Source dataset', kind: 'dataset' },
      { prop: 'sourceColumn', label: 'Source columns', kind: 'lines' },
      { prop: 'targetType', label: 'Match by', kind: 'enum', options: ['H3', 'LATLNG'] },
      { prop: 'column', label: 'H3 column', kind: 'columns', single: true, optional: true },
      { prop: 'latColumn', label: 'Latitude column', kind: 'columns', single: true, optional: true },
      { prop: 'lngColumn', label: 'Longitude column', kind: 'columns', single: true, optional: true },
      { prop: 'timeColumn', label: 'Time column', kind: 'columns', single: true, optional: true },
      { prop: 'timeInterval', label: 'Time interval', kind: 'enum', options: TIME_INTERVALS, optional: true },
    ],
    initial: { targetType: 'H3' },
  },
  hexify: {
    label: 'Hexify',
    summary: 'The H3 cells covering a shape',
    fields: [
      { prop: 'geojson', label: 'Shape', kind: 'json', help: GEOJSON_HELP },
      { prop: 'res', label: 'Resolution', kind: 'integer' },
      { prop: 'columnName', label: 'Column name', kind: 'text', optional: true },
    ],
    initial: { res: 7 },
  },
  hexTile: {
    label: 'Hex tile',
    summary: 'One tile of a hex-tile dataset',
    fields: [
      { prop: 'uuid', label: 'Hex-tile dataset', kind: 'dataset' },
      { prop: 'tileIndex', label: 'Tile (H3 cell)', kind: 'text' },
      { prop: 'resolutionOffset', label: 'Resolution offset', kind: 'integer', optional: true },
    ],
    initial: { uuid: '', tileIndex: '' },
  },
  tileExtract: {
    label: 'Tile extract',
    summary: 'The cells of a hex-tile dataset inside a shape',
    fields: [
      { prop: 'sourceId', label: 'Hex-tile dataset', kind: 'dataset' },
      { prop: 'geojson', label: 'Shape', kind: 'json', help: 'A GeoJSON Feature holding a Polygon or MultiPolygon' },
      { prop: 'res', label: 'Resolution', kind: 'integer', optional: true },
      { prop: 'sourceColumn', label: 'Columns', kind: 'lines', optional: true },
      { prop: 'h3ColumnName', label: 'H3 column name', kind: 'text', optional: true },
      { prop: 'timeColumnName', label: 'Time column name', kind: 'text', optional: true },
      { prop: 'timeInterval', label: 'Time interval', kind: 'enum', options: TIME_INTERVALS, optional: true },
      { prop: 'maxRows', label: 'Most rows', kind: 'integer', optional: true },
    ],
    initial: { sourceId: '' },
  },
  databaseQuery: {
    label: 'Database query',
    summary: 'SQL run on a saved connection',
    fields: [
      { prop: 'connectionId', label: 'Connection', kind: 'connection' },
      { prop: 'query', label: 'Query', kind: 'textarea' },
      { prop: 'params', label: 'Parameters', kind: 'lines', optional: true },
    ],
    initial: { connectionId: '', query: '' },
  },
  tileJoin: { label: 'Tile join', summary: 'Joins hex-tile cells of two or more cells', fields: [], initial: {} },
  tileQuantiles: {
    label: 'Tile quantiles',
    summary: 'Quantiles of a hex-tile dataset',
    fields: [
      { prop: 'uuid', label: 'Hex-tile dataset', kind: 'dataset' },
      { prop: 'res', label: 'Resolution', kind: 'integer' },
      { prop: 'interval', label: 'Interval', kind: 'enum', options: ['T', 'H', 'D', 'M', 'Y'] },
    ],
    initial: { uuid: '', res: 7, interval: 'D' },
  },
};

/**
 * The name a new step's cell gets: what its result is, as a word SQL takes as a table name (a cell named
 * `group` or `limit` would need quoting in every SQL cell that reads it).
 */
export const STEP_CELL_NAMES: Record<NodeType, string> = {
  dataset: 'data', inline_data: 'inline', select: 'selected', filter: 'filtered', group: 'grouped', sort: 'sorted', limit: 'limited',
  join: 'joined', enrich: 'enriched', hexify: 'hexes', hexTile: 'tile', tileExtract: 'extract', databaseQuery: 'query_rows',
  tileJoin: 'tiles_joined', tileQuantiles: 'quantiles',
};

/** Every step type with its form, in the order catalog §3 lists them. */
export const STEP_SPECS: Record<NodeType, StepSpec> = Object.fromEntries(
  Object.entries(specs).map(([type, s]) => [type, { ...s, inputs: NODE_SPECS[type as NodeType].inputs }]),
) as Record<NodeType, StepSpec>;

export const STEP_TYPES = Object.keys(STEP_SPECS) as NodeType[];

/** The text a field shows for the node's prop. */
export function fieldText(field: Field, node: Props): string {
  const v = field.prop === 'on' ? (node.on as { columns?: unknown }[] | undefined)?.[0]?.columns : node[field.prop];
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(String).join('\n');
  if (field.kind === 'json') return typeof v === 'string' ? v : JSON.stringify(v, null, 1);
  return String(v);
}

/** The node with the field's prop set from its text: lists split by line, numbers parsed, JSON parsed when it parses. */
export function withFieldText(field: Field, node: Props, text: string): Props {
  const next = { ...node };
  const list = text.split('\n').map((l) => l.trim()).filter(Boolean);
  let value: unknown;
  switch (field.kind) {
    case 'items':
    case 'sortKeys':
    case 'lines':
      value = list;
      break;
    case 'columns':
      value = field.single ? text.trim() : list;
      break;
    case 'integer':
      // Text that is not a whole number stays text: the validator names the prop and what it wants.
      value = text.trim() === '' ? undefined : /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
      break;
    case 'json':
      try {
        value = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        value = text;
      }
      break;
    default:
      value = text;
  }
  if (field.prop === 'on') {
    next.on = [{ columns: Array.isArray(value) ? value : [] }];
    return next;
  }
  if (field.optional && (value === undefined || value === '' || (Array.isArray(value) && value.length === 0))) delete next[field.prop];
  else next[field.prop] = value;
  return next;
}

/** What the expression parser says of a field's text, line by line: '' when every line parses. */
export function expressionProblem(field: Field, text: string): string {
  const parse = field.kind === 'expression' ? parseExpression : field.kind === 'items' ? parseItem : field.kind === 'sortKeys' ? parseSortKey : null;
  if (!parse) return '';
  const lines = field.kind === 'expression' ? [text] : text.split('\n');
  for (const [n, line] of lines.entries()) {
    if (!line.trim()) continue;
    try {
      parse(line);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const details = (e as { details?: string }).details;
      return `${lines.length > 1 ? `Line ${n + 1}: ` : ''}${message}${details ? ` ${details}` : ''}`;
    }
  }
  return '';
}
