import { z } from 'zod';
import { SPATIAL_PREDICATES, base, geometryColumn, m, metres, stringList } from './common';

const T = 'spatialJoin';
/**
 * spatialJoin: each row of the first input with the rows of the second whose geometry relates to its own
 * (`contains`: the first's geometry contains the second's). `dwithin` takes `distance` in metres. `columns` are
 * the second input's columns added to the first's (all of the first's are kept).
 */
export const spatialJoinNode = z
  .looseObject({
    ...base(T),
    predicate: z.enum(SPATIAL_PREDICATES, m(T, `predicate must be one of ${SPATIAL_PREDICATES.join(', ')}`)),
    distance: metres(T, 'distance').optional(),
    join: z.enum(['INNER', 'LEFT'], m(T, 'join must be INNER or LEFT')).default('INNER'),
    leftGeometry: geometryColumn(T, 'leftGeometry'),
    rightGeometry: geometryColumn(T, 'rightGeometry'),
    columns: stringList(T, 'columns').default([]),
  })
  .refine((n) => (n.predicate === 'dwithin') === (n.distance !== undefined), m(T, 'distance (metres) is required with predicate dwithin and only with it'));
export type SpatialJoinProps = z.infer<typeof spatialJoinNode>;
