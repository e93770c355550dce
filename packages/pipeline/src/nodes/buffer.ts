import { z } from 'zod';
import { base, geometryColumn, metres, outputColumn } from './common';

const T = 'buffer';
/** buffer: adds the geometry grown by `distance` metres (negative shrinks polygons) as column `as` (default buffer). */
export const bufferNode = z.looseObject({
  ...base(T),
  geometry: geometryColumn(T, 'geometry'),
  distance: metres(T, 'distance', { negative: true }),
  as: outputColumn(T, 'as'),
});
export type BufferProps = z.infer<typeof bufferNode>;
