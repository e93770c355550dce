import type { Geos, PreparedPtr } from '../geos';
import { positions, simpleParts, type Shape } from '../wkb';
import { rasterCover } from './raster';

/**
 * The grid a spatial join is planned on: square cells in longitude/latitude whose size is a power of two in degrees
 * (1/scale), so `floor(x * scale)` is exact and a point lies in the closed box of the cell it is mapped to. The grid is
 * planar in lon/lat like the predicates (PostGIS geometry): a cell flagged inside a polygon is inside it exactly as
 * GEOS says, which an H3 (geodesic) cell would not be.
 *
 * A key names a level and a cell. Level 0 is the fine grid: points are keyed there, and a build geometry lists the
 * cells its box meets, each flagged interior (the closed cell lies in the geometry's interior: every point of it is
 * inside), boundary (test exactly) — cells it does not meet are not listed. Levels 1 and 2 are 8 and 64 times coarser,
 * for probe geometries with an extent (lines, polygons): such a probe is keyed by the cell of its box's centre at the
 * first level whose cell is at least its half-extent, and a build geometry lists there every cell its box meets once
 * grown by one cell, so a pair whose boxes meet always shares that key. Level 7 is one global cell: probes too large or
 * with coordinates off the grid, tested against every build row.
 *
 * A key is level·2^48 + (ix + 2^23)·2^24 + (iy + 2^23); a build entry is key·4 + flag. Both stay below 2^53, so they are
 * exact as JS numbers and as DuckDB BIGINTs.
 */
export const FLAG = { boundary: 0, interior: 1 } as const;
const OFFSET = 2 ** 23;
const LIMIT = OFFSET - 4;
const LEVEL_SHIFT = 2 ** 48;
const ROW = 2 ** 24;
const COARSE = [1, 8, 64];
export const GLOBAL_KEY = 7 * LEVEL_SHIFT;
/** The key's layout, for SQL that computes a point's key itself (plan.ts). */
export const GRID = { offset: OFFSET, limit: LIMIT, row: ROW, globalKey: GLOBAL_KEY } as const;

const keyOf = (level: number, ix: number, iy: number) => level * LEVEL_SHIFT + (ix + OFFSET) * ROW + (iy + OFFSET);
const onGrid = (i: number) => i > -LIMIT && i < LIMIT;

/**
 * Cells per degree for build geometries whose median box side is `median` degrees, and whose largest `size` (the
 * side of a square of the area listed at level 0: sizeOf). Finer cells leave fewer points on boundary cells (each
 * one an exact test) but list more interior cells per build row, so the cells across the median box grow with the
 * probe rows per build row (a cube root: tests fall as 1/n, entries grow as n²), 8 to 32 (at 64 the counties' 5M
 * entries cost more than the tests they save for 1M points); 8 when the probe side's
 * size is not known (a subquery) or the join is within a distance (every cell is tested there). The largest
 * geometry lists at most about 4M cells (2,048 across its size), so one row's cover stays a few MB.
 */
export function scaleFor(median: number | null, size: number | null, probeRows: number | null = null, buildRows: number | null = null): number {
  const across = probeRows && buildRows && probeRows > 0 && buildRows > 0 ? Math.min(32, Math.max(8, Math.cbrt((40 * probeRows) / buildRows))) : 8;
  const want = median && median > 0 && Number.isFinite(median) ? across / median : 2 ** 14;
  const cap = size && size > 0 && Number.isFinite(size) ? 2048 / size : 2 ** 14;
  return 2 ** Math.min(14, Math.max(-2, Math.floor(Math.log2(Math.min(want, cap)))));
}

export interface Box { x0: number; y0: number; x1: number; y1: number }

export function boxOf(s: Shape): Box | null {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of positions(s)) {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return x0 <= x1 && y0 <= y1 ? { x0, y0, x1, y1 } : null;
}

/** The largest side of a geometry's box in degrees, grown by a distance in metres (the scale's input); null when empty. */
export const extentOf = (s: Shape, metres = 0) => {
  const b = boxOf(s);
  if (!b) return null;
  const { dx, dy } = marginDegrees(b, metres);
  return Math.min(720, Math.max(b.x1 - b.x0 + 2 * dx, b.y1 - b.y0 + 2 * dy));
};

/** The boxes of a geometry's simple parts (a multipolygon's polygons, a collection's members). */
export function partBoxes(s: Shape): Box[] {
  const out: Box[] = [];
  for (const part of simpleParts(s)) {
    const b = boxOf(part.kind === 'point' ? { type: 'Point', coordinates: part.p } : part.kind === 'line' ? { type: 'LineString', coordinates: part.line } : { type: 'Polygon', coordinates: part.rings });
    if (b) out.push(b);
  }
  return out;
}

/** The grown box of a within-distance build geometry: every level-0 cell of it is listed (the whole band past ±180°). */
function grownBox(b: Box, metres: number): Box {
  const { dx, dy } = marginDegrees(b, metres);
  const grown = { x0: b.x0 - dx, y0: Math.max(-90, b.y0 - dy), x1: b.x1 + dx, y1: Math.min(90, b.y1 + dy) };
  // Past the antimeridian a nearby point has the other sign of longitude: take the whole band.
  return grown.x0 < -180 || grown.x1 > 180 ? { ...grown, x0: Math.min(-180, b.x0), x1: Math.max(180, b.x1) } : grown;
}

/**
 * The side in degrees of a square of the area a geometry lists at level 0 (scaleFor's cap): its parts' boxes (the
 * Aleutians' islands, not their 360° box across the antimeridian), or its grown box within a distance; null when empty.
 */
export function sizeOf(s: Shape, metres = 0): number | null {
  if (metres > 0) {
    const b = boxOf(s);
    if (!b) return null;
    const g = grownBox(b, metres);
    return Math.sqrt((g.x1 - g.x0) * (g.y1 - g.y0));
  }
  const boxes = partBoxes(s);
  return boxes.length ? Math.sqrt(boxes.reduce((a, b) => a + (b.x1 - b.x0) * (b.y1 - b.y0), 0)) : null;
}

/** The probe key of a point. */
export function pointKey(x: number, y: number, scale: number): number {
  const ix = Math.floor(x * scale), iy = Math.floor(y * scale);
  return onGrid(ix) && onGrid(iy) ? keyOf(0, ix, iy) : GLOBAL_KEY;
}

/** The probe key of a geometry's box: a point's cell at level 0, else the centre's cell at the first coarse level that fits. */
export function boxKey(b: Box, point: boolean, scale: number): number {
  if (point) return pointKey(b.x0, b.y0, scale);
  const half = Math.max(b.x1 - b.x0, b.y1 - b.y0) / 2;
  for (const level of [1, 2]) {
    const s = scale / COARSE[level]!;
    if (half > 1 / s) continue;
    const ix = Math.floor(((b.x0 + b.x1) / 2) * s), iy = Math.floor(((b.y0 + b.y1) / 2) * s);
    return onGrid(ix) && onGrid(iy) ? keyOf(level, ix, iy) : GLOBAL_KEY;
  }
  return GLOBAL_KEY;
}

/** Cell index range of [a, b] at `s` cells a degree, clipped to the grid. */
const range = (a: number, b: number, s: number): [number, number] => [Math.max(-LIMIT + 1, Math.floor(a * s)), Math.min(LIMIT - 1, Math.floor(b * s))];

/** Metres to degrees of latitude and longitude around a box, bounds no geodesic of that length can exceed. */
export function marginDegrees(b: Box, metres: number): { dx: number; dy: number } {
  if (!(metres > 0)) return { dx: 0, dy: 0 };
  // A degree of latitude is at least 110,574 m (at the equator); a degree of longitude at latitude φ at least
  // 111,319.49·cos φ m (the parallel's radius is at least a·cos φ). 1% spare for rounding.
  const dy = (metres / 110_574) * 1.01 + 1e-9;
  const phi = Math.max(Math.abs(b.y0 - dy), Math.abs(b.y1 + dy));
  const dx = phi >= 89 ? 720 : (metres / (111_319.49 * Math.cos((phi * Math.PI) / 180))) * 1.01 + 1e-9;
  return { dx, dy };
}

/** What the build side's cover needs of GEOS: the geometry prepared, to classify the cells no boundary reaches. */
export interface CoverGeos {
  geos: Geos;
  prepared: PreparedPtr;
}

/**
 * A build row's cover as runs of cells along a row (x), each one BIGINT: its first entry·RUN.max + (cells − 1), at
 * most RUN.max cells; the entries of a run step by RUN.step (plan.ts expands them with generate_series). A county
 * at 32 cells across lists ~4x fewer values than one a cell, and making the list is most of the cover's cost.
 */
export const RUN = { max: 1024, step: 4 * ROW } as const;

class Runs {
  readonly out: bigint[] = [];
  add(level: number, ix0: number, ix1: number, iy: number, flag: number): void {
    if (!onGrid(iy)) return;
    const [a, b] = [Math.max(ix0, -LIMIT + 1), Math.min(ix1, LIMIT - 1)];
    for (let x = a; x <= b; x += RUN.max) {
      this.out.push(BigInt(keyOf(level, x, iy) * 4 + flag) * BigInt(RUN.max) + BigInt(Math.min(RUN.max, b - x + 1) - 1));
    }
  }
}

/**
 * The cover of one build geometry: level 0 rasterised (raster.ts: cells the geometry misses are left out, cells in
 * its interior listed as interior), levels 1 and 2 over each part's box grown by one coarse cell (a set when there
 * are several parts: they may share a cell), and the global cell. With a distance (ST_DWithin, metres) every level-0
 * and coarse cell of the box grown by `marginDegrees` is listed, level 0 as boundary cells.
 */
export function coverRuns(shape: Shape, b: Box, scale: number, g: CoverGeos | null, metres: number): bigint[] {
  const runs = new Runs();
  const boxes = metres > 0 || !g ? [grownBox(b, metres)] : partBoxes(shape);
  const rect = (level: number, box: Box, s: number, pad: number) => {
    const [jx0, jx1] = range(box.x0 - pad, box.x1 + pad, s);
    const [jy0, jy1] = range(box.y0 - pad, box.y1 + pad, s);
    return { jx0, jx1, jy0, jy1, level };
  };
  if (metres > 0 || !g) {
    const r = rect(0, boxes[0]!, scale, 0);
    for (let iy = r.jy0; iy <= r.jy1; iy++) runs.add(0, r.jx0, r.jx1, iy, FLAG.boundary);
  } else {
    rasterCover(g, shape, scale, (ix0, ix1, iy, flag) => runs.add(0, ix0, ix1, iy, flag));
  }
  for (const level of [1, 2]) {
    const s = scale / COARSE[level]!;
    const rects = boxes.map((box) => rect(level, box, s, 1 / s));
    if (rects.length === 1) {
      const r = rects[0]!;
      for (let iy = r.jy0; iy <= r.jy1; iy++) runs.add(level, r.jx0, r.jx1, iy, FLAG.boundary);
      continue;
    }
    const cells = new Set<number>();
    for (const r of rects) for (let iy = r.jy0; iy <= r.jy1; iy++) for (let ix = r.jx0; ix <= r.jx1; ix++) cells.add((ix + OFFSET) * ROW + (iy + OFFSET));
    for (const c of cells) {
      const ix = Math.floor(c / ROW) - OFFSET, iy = (c % ROW) - OFFSET;
      runs.add(level, ix, ix, iy, FLAG.boundary);
    }
  }
  runs.out.push(BigInt(GLOBAL_KEY * 4 + FLAG.boundary) * BigInt(RUN.max));
  return runs.out;
}
