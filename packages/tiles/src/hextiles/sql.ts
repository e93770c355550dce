import { quoteIdent, quoteLiteral, specType } from '@studio/engine';
import { TILE_QUANTILE_LEVELS, type TileInterval } from '@studio/schema';

/** A file path the server built itself (temp dirs, cache entries) as a DuckDB literal: never user text. */
export const pathLiteral = quoteLiteral;

/** date_trunc unit and the strftime pattern of a time step's path (see docs/decisions.md "Hex tiles"). */
export const INTERVAL_UNITS: Record<TileInterval, { unit: string; format: string }> = {
  T: { unit: 'minute', format: '%Y-%m-%dT%H%M' },
  H: { unit: 'hour', format: '%Y-%m-%dT%H' },
  D: { unit: 'day', format: '%Y-%m-%d' },
  M: { unit: 'month', format: '%Y-%m' },
  Y: { unit: 'year', format: '%Y' },
};

/** A time step's path: its interval code then its start, e.g. D2024-01-05, T2024-01-05T1307. */
export const TIME_PATH = /^(?:T\d{4}-\d\d-\d\dT\d{4}|H\d{4}-\d\d-\d\dT\d\d|D\d{4}-\d\d-\d\d|M\d{4}-\d\d|Y\d{4})$/;

export const isNumericType = (duckdbType: string) => ['INTEGER', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL'].includes(specType(duckdbType));

/** Types read back from an archive's metadata before they are used in a CAST. */
const SAFE_TYPE = /^[A-Z][A-Z0-9_]*(\(\d+(, ?\d+)?\))?$/;
export function checkedType(t: string): string {
  if (!SAFE_TYPE.test(t)) throw new Error(`unexpected column type in tileset metadata: ${t}`);
  return t;
}

/**
 * One SELECT list of quantile boundaries (TILE_QUANTILE_LEVELS) per field: numeric fields get
 * quantile_cont over their non-null values, other fields NULL. The build and POST /v1/tileset/quantiles
 * both use it, so stored and computed quantiles agree.
 */
export function quantileList(fields: { name: string; type: string }[]): string {
  const levels = `[${TILE_QUANTILE_LEVELS.join(', ')}]`;
  return fields
    .map((f) => (isNumericType(f.type) ? `quantile_cont(CAST(${quoteIdent(f.name)} AS DOUBLE), ${levels})` : 'NULL') + ` AS ${quoteIdent(f.name)}`)
    .join(', ');
}

/** Quantile rows from DuckDB (lists of doubles, or NULL) as plain JSON values. */
export function quantileValues(row: Record<string, unknown>, fields: { name: string }[]): Record<string, number[] | null> {
  return Object.fromEntries(fields.map((f) => {
    const v = row[f.name];
    return [f.name, Array.isArray(v) ? v.map(Number) : null];
  }));
}
