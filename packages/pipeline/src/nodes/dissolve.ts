import { z } from 'zod';
import { base, geometryColumn, outputColumn, stringList } from './common';

const T = 'dissolve';
/** dissolve: one row per value of `by` (one row for all when empty) with the union of its geometries as `as` (default: the geometry column's name). */
export const dissolveNode = z.looseObject({
  ...base(T),
  geometry: geometryColumn(T, 'geometry'),
  by: stringList(T, 'by').default([]),
  as: outputColumn(T, 'as'),
});
export type DissolveProps = z.infer<typeof dissolveNode>;
