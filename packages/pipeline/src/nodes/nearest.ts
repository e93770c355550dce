import { z } from 'zod';
import { base, geometryColumn, m, metres, outputColumn, stringList } from './common';

const T = 'nearest';
/** Most neighbours a row may ask for: the result is k rows per input row. */
export const MAX_NEAREST_K = 100;

/**
 * nearest: each row of the first input with its `k` nearest rows of the second within `maxDistance` metres
 * (spheroid), one output row per neighbour with the distance in metres as `distanceColumn`. The bound makes
 * it a within-distance join (indexed) rather than a scan of every pair. INNER drops rows with no neighbour.
 */
export const nearestNode = z.looseObject({
  ...base(T),
  leftGeometry: geometryColumn(T, 'leftGeometry'),
  rightGeometry: geometryColumn(T, 'rightGeometry'),
  k: z
    .number(m(T, `k must be an integer from 1 to ${MAX_NEAREST_K}`))
    .int(m(T, `k must be an integer from 1 to ${MAX_NEAREST_K}`))
    .min(1, m(T, `k must be an integer from 1 to ${MAX_NEAREST_K}`))
    .max(MAX_NEAREST_K, m(T, `k must be an integer from 1 to ${MAX_NEAREST_K}`))
    .default(1),
  maxDistance: metres(T, 'maxDistance', { positive: true }),
  join: z.enum(['INNER', 'LEFT'], m(T, 'join must be INNER or LEFT')).default('INNER'),
  columns: stringList(T, 'columns').default([]),
  distanceColumn: outputColumn(T, 'distanceColumn'),
});
export type NearestProps = z.infer<typeof nearestNode>;
