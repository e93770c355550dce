import KDBush from 'kdbush';
import { around, distance as sphereKm } from 'geokdbush';
import { DOUBLE, LIST, BIGINT } from '@duckdb/node-api';
import { SpatialInputError } from './args';
import type { FunctionSpec, Row } from './define';
import { geodesicDistance } from './geodesic';
import { hashOf } from './join/registry';

/**
 * Nearest points by spheroid distance through an index, for a "nearest" that is not a scan of every pair:
 * `studio_nearest_index(list(geom))` builds a kd-tree over a list of points (kept by number, found again by content),
 * `studio_nearest(index, x, y, k[, max metres])` answers the k nearest as [position in the list (from 1), metres, …],
 * nearest first. The tree's search (geokdbush) ranks by great-circle distance; WGS 84 geodesics are within 1% of it
 * (the spheroid's flattening is 0.34%), so the spheroid's k nearest all lie within the great-circle radius of the
 * k-th nearest on the sphere, measured on the spheroid, over 0.99: those few are measured with GeographicLib and
 * ranked. Ties are broken by position.
 */

const SPHERE_MARGIN = 0.99;
/** Indexes kept at once (a Map keeps insertion order: the oldest is dropped first). */
const KEPT = 16;
/**
 * Neighbours searched beyond k, and points a leaf of the tree: the search's cost grows with both (airports, k = 1:
 * 64-point leaves 22.5 µs a search, 8-point 12.9; 9 results 23.6 µs, 3 results 18.6), and two more than k nearly
 * always reach past the 1% band.
 */
const EXTRA = 2;
const LEAF = 8;

interface PointIndex { id: number; tree: KDBush; xs: Float64Array; ys: Float64Array; positions: Int32Array; hash: number }
const indexes = new Map<number, PointIndex>();
let nextId = 1;

function buildIndex(r: Row): bigint {
  const xs: number[] = [], ys: number[] = [], positions: number[] = [];
  r.list(0).forEach((item, i) => {
    if (item === null || item === undefined) return;
    const s = r.reader.shape(1, typeof item === 'string' ? { text: item } : { bytes: (item as { bytes: Uint8Array }).bytes });
    if (s.type !== 'Point') throw new SpatialInputError(`nearest: the geometry at position ${i + 1} is a ${s.type}, not a point`);
    if (!s.coordinates) return;
    xs.push(s.coordinates[0]); ys.push(s.coordinates[1]); positions.push(i + 1);
  });
  const coords = new Float64Array([...xs, ...ys]);
  const hash = hashOf(new Uint8Array(coords.buffer));
  for (const ix of indexes.values()) {
    if (ix.hash === hash && ix.xs.length === xs.length && ix.xs.every((x, i) => x === xs[i] && ix.ys[i] === ys[i] && ix.positions[i] === positions[i])) return BigInt(ix.id);
  }
  const tree = new KDBush(Math.max(1, xs.length), LEAF);
  xs.forEach((x, i) => tree.add(x, ys[i]!));
  if (!xs.length) tree.add(NaN, NaN);
  tree.finish();
  const ix: PointIndex = { id: nextId++, tree, xs: Float64Array.from(xs), ys: Float64Array.from(ys), positions: Int32Array.from(positions), hash };
  indexes.set(ix.id, ix);
  if (indexes.size > KEPT) indexes.delete(indexes.keys().next().value!);
  return BigInt(ix.id);
}

function nearest(r: Row): number[] {
  const ix = indexes.get(r.num(0));
  if (!ix) throw new SpatialInputError('nearest: the index is no longer kept (run the query again)');
  const [x, y, k] = [r.num(1), r.num(2), r.num(3)];
  const max = r.count > 4 ? r.num(4) : Infinity;
  if (!(Number.isInteger(k) && k >= 1)) throw new SpatialInputError('nearest: k must be a whole number from 1');
  if (!ix.xs.length || Number.isNaN(x + y)) return [];
  const metres = (id: number) => geodesicDistance([x, y], [ix.xs[id]!, ix.ys[id]!]);
  // Candidates come nearest first on the sphere; each is measured on the spheroid until one lies past the great-circle
  // radius of the k-th best so far (over 0.99): none after it can be nearer. Usually one or two measures a point.
  const take = (ids: number[], complete: boolean): { id: number; m: number }[] | null => {
    const best: { id: number; m: number }[] = [];
    for (const id of ids) {
      if (best.length >= k && sphereKm(x, y, ix.xs[id]!, ix.ys[id]!) > best[k - 1]!.m / SPHERE_MARGIN / 1000) return best;
      best.push({ id, m: metres(id) });
      best.sort((a, b) => a.m - b.m || ix.positions[a.id]! - ix.positions[b.id]!);
    }
    return complete || ids.length === ix.xs.length ? best : null;
  };
  // The k + EXTRA nearest on the sphere usually reach past the band; else the search goes on by that radius.
  let found = take(around(ix.tree, x, y, k + EXTRA) as number[], false);
  if (!found) {
    const some = take(around(ix.tree, x, y, k) as number[], true)!;
    const radius = some.length ? some[Math.min(k, some.length) - 1]!.m / SPHERE_MARGIN / 1000 : Infinity;
    found = take(around(ix.tree, x, y, Infinity, Math.min(radius, max / SPHERE_MARGIN / 1000)) as number[], true)!;
  }
  const out: number[] = [];
  for (const c of found) if (c.m <= max && out.length < 2 * k) out.push(ix.positions[c.id]!, c.m);
  return out;
}

export const NEAREST_FUNCTIONS: FunctionSpec[] = [
  { label: 'nearest', name: 'studio_nearest_index', args: ['list'], returns: BIGINT, row: buildIndex },
  { label: 'nearest', name: 'studio_nearest', args: ['num', 'num', 'num', 'num'], optional: ['num'], returns: LIST(DOUBLE), row: nearest },
];
