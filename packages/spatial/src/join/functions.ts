import { BIGINT, BOOLEAN, DOUBLE, LIST } from '@duckdb/node-api';
import { BuildRegistry } from './registry';
import { SpatialInputError } from '../args';
import type { FunctionSpec, Row } from '../define';
import { boxOf, coverRuns, extentOf, scaleFor, sizeOf } from './grid';

/**
 * The scalar functions a planned spatial join calls (plan.ts writes them; users never need to): the grid's scale from
 * the build side's median extent, a probe row's key, a build row's entries (the probe's key is key.ts). Geometry arguments are read as every
 * spatial function reads them (text, WKB, GEOMETRY), so NULL answers NULL and an empty geometry has no box.
 */
function buildEntries(r: Row): bigint[] | null {
  const scale = r.num(1);
  const metres = r.count > 2 ? r.num(2) : 0;
  if (!(metres >= 0)) throw new SpatialInputError('ST_DWithin: argument 3 (the distance in metres) must be 0 or more');
  const s = r.shape(0);
  const b = boxOf(s);
  // The first element is the geometry's number in the registry (0: not kept), the others its runs of entries (grid.ts).
  if (!b) return [0n];
  const v = r.value(0);
  const kept = BuildRegistry.of(r.geos).add(v.bytes ?? r.geos.toWKB(r.geom(0)));
  const runs = coverRuns(s, b, scale, metres === 0 ? { geos: r.geos, prepared: kept.prepared } : null, metres);
  runs.unshift(BigInt(kept.id));
  return runs;
}

/** The exact predicate of a pair whose probe is a line or a polygon (points: exact.ts), on the build geometry by its number. */
const OPS = new Set<string>(['contains', 'covers', 'intersects']);

function exact(r: Row): boolean {
  const op = r.text(0) as 'contains' | 'covers' | 'intersects';
  if (!OPS.has(op)) throw new SpatialInputError(`spatial join: unknown test ${op}`);
  // The build side is always the container (plan.ts): op(build, probe).
  return r.geos.preparedPredicate(op, BuildRegistry.of(r.geos).prepared(r.num(1)), r.geom(2));
}

/** Their errors say "spatial join: argument k ...": the user wrote ST_Contains & co., not these names. */
export const JOIN_FUNCTIONS: FunctionSpec[] = [
  { label: 'spatial join', name: 'studio_sj_extent', args: ['geom'], optional: ['num'], returns: DOUBLE, row: (r) => extentOf(r.shape(0), r.count > 1 ? r.num(1) : 0) },
  { label: 'spatial join', name: 'studio_sj_size', args: ['geom'], optional: ['num'], returns: DOUBLE, row: (r) => sizeOf(r.shape(0), r.count > 1 ? r.num(1) : 0) },
  {
    label: 'spatial join', name: 'studio_sj_scale', args: ['num', 'num'], optional: ['num', 'num'], returns: DOUBLE,
    row: (r) => scaleFor(r.num(0), r.num(1), r.count > 3 ? r.num(2) : null, r.count > 3 ? r.num(3) : null),
  },
  { label: 'spatial join', name: 'studio_sj_test', args: ['text', 'num', 'geom'], returns: BOOLEAN, row: exact },
  { label: 'spatial join', name: 'studio_sj_cover', args: ['geom', 'num'], optional: ['num'], returns: LIST(BIGINT), row: buildEntries },
];
