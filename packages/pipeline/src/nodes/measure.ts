import { z } from 'zod';
import { base, geometryColumn, m, outputColumn } from './common';

const T = 'measure';
/** measure: adds the geometry's area (m²) or length (m) on the spheroid as column `as` (default: the measure's name). */
export const measureNode = z.looseObject({
  ...base(T),
  geometry: geometryColumn(T, 'geometry'),
  measure: z.enum(['area', 'length'], m(T, 'measure must be area or length')),
  as: outputColumn(T, 'as'),
});
export type MeasureProps = z.infer<typeof measureNode>;
