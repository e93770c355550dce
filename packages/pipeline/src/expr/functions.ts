/**
 * The function allow-list. Anything else in an expression is refused at parse time. `sql` names are
 * canonical; each dialect maps them (see compile/dialect.ts).
 */
export type FnKind = 'aggregate' | 'scalar' | 'date' | 'h3';
export type FnSpec = { canonical: string; kind: FnKind; min: number; max: number };

const spec = (canonical: string, kind: FnKind, min: number, max = min): FnSpec => ({ canonical, kind, min, max });

export const FUNCTIONS: Record<string, FnSpec> = {
  // aggregations (NULLs skipped, as in SQL)
  sum: spec('sum', 'aggregate', 1),
  count: spec('count', 'aggregate', 1),
  min: spec('min', 'aggregate', 1),
  max: spec('max', 'aggregate', 1),
  mean: spec('avg', 'aggregate', 1),
  avg: spec('avg', 'aggregate', 1),
  median: spec('median', 'aggregate', 1),
  mode: spec('mode', 'aggregate', 1),
  // scalar
  abs: spec('abs', 'scalar', 1),
  round: spec('round', 'scalar', 1, 2),
  floor: spec('floor', 'scalar', 1),
  ceil: spec('ceil', 'scalar', 1),
  sqrt: spec('sqrt', 'scalar', 1),
  ln: spec('ln', 'scalar', 1),
  log10: spec('log10', 'scalar', 1),
  exp: spec('exp', 'scalar', 1),
  pow: spec('pow', 'scalar', 2),
  lower: spec('lower', 'scalar', 1),
  upper: spec('upper', 'scalar', 1),
  length: spec('length', 'scalar', 1),
  trim: spec('trim', 'scalar', 1),
  concat: spec('concat', 'scalar', 1, 64),
  substring: spec('substring', 'scalar', 2, 3),
  coalesce: spec('coalesce', 'scalar', 1, 64),
  nullif: spec('nullif', 'scalar', 2),
  to_double: spec('to_double', 'scalar', 1),
  to_integer: spec('to_integer', 'scalar', 1),
  to_string: spec('to_string', 'scalar', 1),
  to_timestamp: spec('to_timestamp', 'scalar', 1),
  // date
  year: spec('year', 'date', 1),
  month: spec('month', 'date', 1),
  day: spec('day', 'date', 1),
  hour: spec('hour', 'date', 1),
  date_trunc: spec('date_trunc', 'date', 2),
  epoch_ms: spec('epoch_ms', 'date', 1),
  // H3 (cells as hex strings)
  h3_latlng_to_cell: spec('h3_latlng_to_cell', 'h3', 3),
  h3_cell_to_parent: spec('h3_cell_to_parent', 'h3', 2),
  h3_cell_to_lat: spec('h3_cell_to_lat', 'h3', 1),
  h3_cell_to_lng: spec('h3_cell_to_lng', 'h3', 1),
  h3_get_resolution: spec('h3_get_resolution', 'h3', 1),
};

/** date_trunc units: the same enum as enrich's timeInterval. */
export const DATE_UNITS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
