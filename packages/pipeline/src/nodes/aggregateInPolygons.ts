import { z } from 'zod';
import { base, geometryColumn, m, nonEmptyString } from './common';

const T = 'aggregateInPolygons';
export const POLYGON_AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;

const aggregate = z
  .looseObject(
    {
      op: z.enum(POLYGON_AGGREGATES, m(T, `aggregates op must be one of ${POLYGON_AGGREGATES.join(', ')}`)),
      column: nonEmptyString(T, 'aggregates column').optional(),
      as: nonEmptyString(T, 'aggregates as'),
    },
    m(T, 'aggregates entries must be {op, column, as}'),
  )
  .refine((a) => a.op === 'count' || a.column !== undefined, m(T, 'aggregates: sum, avg, min and max need a column'));

/**
 * aggregateInPolygons ("count points in polygons"): every row of the first input (the polygons) with aggregates
 * of the second input's rows (the features) whose geometry the polygon contains (or intersects, or covers).
 * A polygon with no feature keeps its row: counts 0, the other aggregates NULL.
 */
export const aggregateInPolygonsNode = z
  .looseObject({
    ...base(T),
    polygonGeometry: geometryColumn(T, 'polygonGeometry'),
    featureGeometry: geometryColumn(T, 'featureGeometry'),
    predicate: z.enum(['contains', 'intersects', 'covers'], m(T, 'predicate must be contains, intersects or covers')).default('contains'),
    aggregates: z.array(aggregate, m(T, 'aggregates must be a list')).min(1, m(T, 'aggregates must not be empty')),
  })
  .refine((n) => new Set(n.aggregates.map((a) => a.as)).size === n.aggregates.length, m(T, 'aggregates: each as must be a different name'));
export type AggregateInPolygonsProps = z.infer<typeof aggregateInPolygonsNode>;
