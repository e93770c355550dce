import { z } from 'zod';
import { isValidCell } from 'h3-js';

/** H3 resolution bounds (catalog §9). */
export const MIN_RES = 0;
export const MAX_RES = 15;

/** Time buckets for enrichment / date_trunc: YEAR down to SECOND (QUARTER and WEEK deliberately left out). */
export const TIME_INTERVALS = ['YEAR', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND'] as const;
export type TimeInterval = (typeof TIME_INTERVALS)[number];

/** A zod issue message that says which node type and which prop failed. */
export const m = (type: string, text: string) => ({ error: `${type} node: ${text}` });

export const nonEmptyString = (type: string, prop: string) =>
  z.string(m(type, `${prop} must be a string`)).min(1, m(type, `${prop} must not be empty`));

export const stringList = (type: string, prop: string) =>
  z.array(z.string(m(type, `${prop} entries must be strings`)), m(type, `${prop} must be a list of strings`));

export const nonEmptyStringList = (type: string, prop: string) =>
  z
    .array(
      z.string(m(type, `${prop} entries must be strings`)).min(1, m(type, `${prop} entries must not be empty`)),
      m(type, `${prop} must be a list of strings`),
    )
    .min(1, m(type, `${prop} must not be empty`));

export const resolution = (type: string, prop = 'res') =>
  z
    .number(m(type, `${prop} must be an integer from 0 to 15`))
    .int(m(type, `${prop} must be an integer from 0 to 15`))
    .min(MIN_RES, m(type, `${prop} must be an integer from 0 to 15`))
    .max(MAX_RES, m(type, `${prop} must be an integer from 0 to 15`));

export const h3Cell = (type: string, prop: string) =>
  z
    .string(m(type, `${prop} must be a valid H3 index`))
    .refine((s) => isValidCell(s), m(type, `${prop} must be a valid H3 index`));

/** Node-level fields every node has; `input` is validated recursively by validate.ts, not here. */
export const base = <T extends string>(type: T) => ({ type: z.literal(type) });

/** The spatial predicates a spatial join or an aggregate into polygons tests (PostGIS's names, lower-case). */
export const SPATIAL_PREDICATES = ['intersects', 'contains', 'within', 'covers', 'dwithin'] as const;
export type SpatialPredicate = (typeof SPATIAL_PREDICATES)[number];

/** A distance or radius in metres on the WGS 84 spheroid (docs/spatial-sql.md). */
export const metres = (type: string, prop: string, { positive = false, negative = false } = {}) => {
  const text = `${prop} must be a number of metres${positive ? ' greater than 0' : negative ? '' : ' (0 or more)'}`;
  const n = z.number(m(type, text)).refine(Number.isFinite, m(type, text));
  return positive ? n.refine((v) => v > 0, m(type, text)) : negative ? n : n.refine((v) => v >= 0, m(type, text));
};

/** A column of an input holding geometry (WKT, GeoJSON, WKB, or the warehouse's own geometry type). */
export const geometryColumn = (type: string, prop: string) => nonEmptyString(type, prop);

/** The name of a column a step adds; defaults differ per step. */
export const outputColumn = (type: string, prop: string) => nonEmptyString(type, prop).optional();
