import { simpleParts, type Position, type Shape } from '../wkb';
import type { CoverGeos } from './grid';

/** A run of level-0 cells ix0..ix1 of row iy with one flag (grid.ts's FLAG): 0 boundary (test exactly), 1 interior (no test). */
type Emit = (ix0: number, ix1: number, iy: number, flag: 0 | 1) => void;

/** A segment whose box spans more cells than this is marked row by row (a long diagonal edge would mark its whole box). */
const BOX_CELLS = 16;

/**
 * The level-0 cells a geometry meets, at `scale` cells a degree (a power of two, so x·scale is exact and a cell's
 * closed box is [ix/scale, (ix+1)/scale]). Every closed cell some part of the boundary touches is marked (a boundary
 * cell: test exactly); a run of unmarked cells along a row between two marks has no boundary in its closed cells, so
 * it lies wholly inside or wholly outside, and one GEOS test of its first centre says which (only polygons have an
 * inside). Cells before a row's first mark or after its last are outside: nothing separates them from infinity.
 *
 * Marks are kept by row (sparse): the work is the boundary's cells and the interior's, never the box's area, so a
 * multipolygon whose box spans the globe (the Aleutians across the antimeridian) costs what its islands cost.
 */
export function rasterCover(g: CoverGeos, shape: Shape, scale: number, emit: Emit): void {
  const rows = new Map<number, number[]>();
  const mark = (ix: number, iy: number) => {
    const r = rows.get(iy);
    if (r) r.push(ix);
    else rows.set(iy, [ix]);
  };
  // The first and last closed cell holding v: a value on a grid line is in the cell below it too (exact arithmetic).
  const lo = (v: number) => { const t = v * scale, f = Math.floor(t); return f === t ? f - 1 : f; };
  const hi = (v: number) => Math.floor(v * scale);
  const segment = (a: Position, b: Position) => {
    const cx0 = lo(Math.min(a[0], b[0])), cx1 = hi(Math.max(a[0], b[0]));
    const cy0 = lo(Math.min(a[1], b[1])), cy1 = hi(Math.max(a[1], b[1]));
    if ((cx1 - cx0 + 1) * (cy1 - cy0 + 1) <= BOX_CELLS || a[1] === b[1]) {
      for (let y = cy0; y <= cy1; y++) for (let x = cx0; x <= cx1; x++) mark(x, y);
      return;
    }
    // Row by row: the x-range of the segment within the row's closed band, one cell more each side for rounding.
    const dy = b[1] - a[1], dx = b[0] - a[0];
    for (let y = cy0; y <= cy1; y++) {
      const t0 = Math.min(1, Math.max(0, (y / scale - a[1]) / dy)), t1 = Math.min(1, Math.max(0, ((y + 1) / scale - a[1]) / dy));
      const xa = a[0] + t0 * dx, xb = a[0] + t1 * dx;
      const x0 = Math.max(cx0, lo(Math.min(xa, xb)) - 1), x1 = Math.min(cx1, hi(Math.max(xa, xb)) + 1);
      for (let x = x0; x <= x1; x++) mark(x, y);
    }
  };
  let areal = false;
  for (const part of simpleParts(shape)) {
    if (part.kind === 'point') segment(part.p, part.p);
    else {
      if (part.kind === 'polygon') areal = true;
      for (const line of part.kind === 'line' ? [part.line] : part.rings) {
        if (line.length === 1) segment(line[0]!, line[0]!);
        for (let k = 1; k < line.length; k++) segment(line[k - 1]!, line[k]!);
      }
    }
  }
  for (const [y, xs] of rows) {
    xs.sort((a, b) => a - b);
    // Consecutive marks make one boundary run; a gap between two marks is one interior run or nothing.
    let start = xs[0]!, prev = start;
    for (let k = 1; k <= xs.length; k++) {
      const x = k < xs.length ? xs[k]! : Infinity;
      if (x <= prev + 1) { prev = x; continue; }
      emit(start, prev, y, 0);
      if (areal && x !== Infinity && g.geos.preparedXY('contains', g.prepared, (prev + 1.5) / scale, (y + 0.5) / scale)) emit(prev + 1, x - 1, y, 1);
      start = prev = x;
    }
  }
}
