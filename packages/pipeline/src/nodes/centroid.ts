import { z } from 'zod';
import { base, geometryColumn, outputColumn } from './common';

const T = 'centroid';
/** centroid: adds the geometry's centroid (planar in lon/lat, as PostGIS geometry) as column `as` (default centroid). */
export const centroidNode = z.looseObject({ ...base(T), geometry: geometryColumn(T, 'geometry'), as: outputColumn(T, 'as') });
export type CentroidProps = z.infer<typeof centroidNode>;
