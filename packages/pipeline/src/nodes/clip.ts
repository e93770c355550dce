import { z } from 'zod';
import { base, geometryColumn, outputColumn } from './common';

const T = 'clip';
/**
 * clip: each row of the first input whose geometry meets the union of the second input's polygons, with the part
 * inside it as `as` (default clipped) and that part's share of the row's area (spheroid) as `shareColumn`
 * (default area_share; NULL for points and lines). Rows outside every polygon are dropped.
 */
export const clipNode = z.looseObject({
  ...base(T),
  geometry: geometryColumn(T, 'geometry'),
  clipGeometry: geometryColumn(T, 'clipGeometry'),
  as: outputColumn(T, 'as'),
  shareColumn: outputColumn(T, 'shareColumn'),
});
export type ClipProps = z.infer<typeof clipNode>;
