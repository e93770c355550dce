export { registerSpatialFunctions, SPATIAL_FUNCTIONS } from './functions';
export { mapSpatialCall } from './sql-calls';
export { Geos } from './geos';
export { normaliseGeometry, wrapLongitude, type Normalised, type Repair } from './antimeridian';
export type { Shape } from './wkb';
export { planSpatialJoins } from './join/plan';
export { planSpatialJoinSql } from './join/sql';
export { readWkb, writeWkb } from './wkb';
export { hilbert, hilbertOfLngLat } from './hilbert';
