import { NODE_SPECS, POLYGON_AGGREGATES, SPATIAL_PREDICATES, TIME_INTERVALS, parseExpression, parseItem, parseSortKey, type NodeType } from '@studio/pipeline';

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
  /** A number that may have decimals (metres). */
  | 'number'
  /** aggregateInPolygons' aggregates, one per line: `count AS n`, `sum(mag) AS total`. */
  | 'aggregates'
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
const GEOMETRY_HELP = 'A column holding geometry (GeoJSON, WKT or WKB)';
const geometry = (prop: string, label: string, help = GEOMETRY_HELP): Field => ({ prop, label, kind: 'columns', single: true, help });
const output = (prop: string, label: string, placeholder: string): Field => ({ prop, label, kind: 'text', optional: true, help: `Default: ${placeholder}` });
const keptColumns: Field = { prop: 'columns', label: 'Columns of the second input to add', kind: 'lines', optional: true, help: 'One per line' };

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
  spatialJoin: {
    label: 'Spatial join',
    summary: 'Rows of the first cell with the rows of the second whose geometry relates to theirs',
    fields: [
      { prop: 'predicate', label: 'Relation', kind: 'enum', options: SPATIAL_PREDICATES, help: 'contains: the first geometry contains the second; dwithin: within a distance' },
      { prop: 'distance', label: 'Distance (metres, for dwithin)', kind: 'number', optional: true },
      { prop: 'join', label: 'Join', kind: 'enum', options: ['INNER', 'LEFT'] },
      geometry('leftGeometry', 'Geometry of the first cell'),
      { prop: 'rightGeometry', label: 'Geometry of the second cell', kind: 'text', help: GEOMETRY_HELP },
      keptColumns,
    ],
    initial: { predicate: 'intersects', join: 'INNER', leftGeometry: '', rightGeometry: '', columns: [] },
  },
  aggregateInPolygons: {
    label: 'Aggregate in polygons',
    summary: 'Counts (sums, averages…) the features of the second cell inside each polygon of the first',
    fields: [
      geometry('polygonGeometry', 'Polygon geometry'),
      { prop: 'featureGeometry', label: 'Feature geometry (second cell)', kind: 'text', help: GEOMETRY_HELP },
      { prop: 'predicate', label: 'Inside means', kind: 'enum', options: ['contains', 'intersects', 'covers'] },
      { prop: 'aggregates', label: 'Aggregates', kind: 'aggregates', help: `One per line: count AS n, sum(mag) AS total (${POLYGON_AGGREGATES.join(', ')})` },
    ],
    initial: { polygonGeometry: '', featureGeometry: '', predicate: 'contains', aggregates: [{ op: 'count', as: 'count' }] },
  },
  nearest: {
    label: 'Nearest',
    summary: 'The k nearest rows of the second cell within a distance, with the distance',
    fields: [
      geometry('leftGeometry', 'Geometry of the first cell'),
      { prop: 'rightGeometry', label: 'Geometry of the second cell', kind: 'text', help: GEOMETRY_HELP },
      { prop: 'k', label: 'How many', kind: 'integer' },
      { prop: 'maxDistance', label: 'Within (metres)', kind: 'number' },
      { prop: 'join', label: 'Rows with none', kind: 'enum', options: ['INNER', 'LEFT'], help: 'INNER drops them, LEFT keeps them' },
      keptColumns,
      output('distanceColumn', 'Distance column', 'distance'),
    ],
    initial: { leftGeometry: '', rightGeometry: '', k: 1, maxDistance: 10000, join: 'INNER', columns: [] },
  },
  buffer: {
    label: 'Buffer',
    summary: 'The geometry grown by a distance in metres',
    fields: [geometry('geometry', 'Geometry'), { prop: 'distance', label: 'Distance (metres)', kind: 'number' }, output('as', 'Column name', 'buffer')],
    initial: { geometry: '', distance: 1000 },
  },
  centroid: { label: 'Centroid', summary: 'The centre of each geometry', fields: [geometry('geometry', 'Geometry'), output('as', 'Column name', 'centroid')], initial: { geometry: '' } },
  measure: {
    label: 'Measure',
    summary: 'Area (m²) or length (m) of each geometry on the spheroid',
    fields: [geometry('geometry', 'Geometry'), { prop: 'measure', label: 'Measure', kind: 'enum', options: ['area', 'length'] }, output('as', 'Column name', 'the measure')],
    initial: { geometry: '', measure: 'area' },
  },
  dissolve: {
    label: 'Dissolve',
    summary: 'The union of the geometries of each group',
    fields: [geometry('geometry', 'Geometry'), { prop: 'by', label: 'Group by', kind: 'columns' }, output('as', 'Column name', 'the geometry column')],
    initial: { geometry: '', by: [] },
  },
  clip: {
    label: 'Clip',
    summary: 'The part of each geometry inside the polygons of the second cell, with its area share',
    fields: [
      geometry('geometry', 'Geometry'),
      { prop: 'clipGeometry', label: 'Polygon geometry (second cell)', kind: 'text', help: GEOMETRY_HELP },
      output('as', 'Clipped column', 'clipped'),
      output('shareColumn', 'Share column', 'area_share'),
    ],
    initial: { geometry: '', clipGeometry: '' },
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
  spatialJoin: 'spatial_joined', aggregateInPolygons: 'in_polygons', nearest: 'nearest', buffer: 'buffered', centroid: 'centroids',
  measure: 'measured', dissolve: 'dissolved', clip: 'clipped',
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
  if (Array.isArray(v) && field.kind !== 'aggregates') return v.map(String).join('\n');
  if (field.kind === 'json') return typeof v === 'string' ? v : JSON.stringify(v, null, 1);
  if (field.kind === 'aggregates' && Array.isArray(v)) return v.map(aggregateText).join('\n');
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
    case 'aggregates':
      value = list.map(aggregateOf);
      break;
    case 'number':
      value = text.trim() === '' ? undefined : Number.isFinite(Number(text.trim())) ? Number(text.trim()) : text;
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

type Aggregate = { op: string; column?: string; as: string };
const aggregateText = (a: Aggregate) => `${a.op}${a.column ? `(${a.column})` : ''} AS ${a.as}`;
/** `sum(mag) AS total` as the node's {op, column, as}; a line that is not of that shape keeps its text as `op` for the validator to name. */
function aggregateOf(line: string): Aggregate {
  const m = /^(\w+)\s*(?:\(\s*([^()]*?)\s*\))?\s+AS\s+(.+)$/i.exec(line);
  if (!m) return { op: line, as: '' };
  return { op: m[1]!.toLowerCase(), ...(m[2] && m[2] !== '*' && { column: m[2] }), as: m[3]!.trim() };
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
