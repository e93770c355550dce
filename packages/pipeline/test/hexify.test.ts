import { describe, expect, it } from 'vitest';
import { getHexagonAreaAvg } from 'h3-js';
import { MAX_HEXIFY_CELLS, hexifyCells } from '../src/compile/hexify';

const R = 6371.0088;
/** A lng/lat box as a GeoJSON ring. */
const box = (w: number, s: number, e: number, n: number) => [[w, s], [e, s], [e, n], [w, n], [w, s]];
/** The exact spherical area of a lng/lat box, km²: R² Δλ (sin φ2 − sin φ1). */
const boxArea = (w: number, s: number, e: number, n: number) => R * R * ((e - w) * Math.PI / 180) * (Math.sin(n * Math.PI / 180) - Math.sin(s * Math.PI / 180));

/** The cell count a refusal names. */
function refusedCount(geojson: unknown, res: number): number {
  try {
    hexifyCells(geojson, res);
  } catch (e) {
    const m = /covers about (\d+) cells at res (\d+), more than (\d+)$/.exec((e as Error).message);
    expect(m, (e as Error).message).not.toBeNull();
    expect([Number(m![2]), Number(m![3])]).toEqual([res, MAX_HEXIFY_CELLS]);
    return Number(m![1]);
  }
  throw new Error('not refused');
}

describe('hexify refuses a polygon that would make too many cells, from its area', () => {
  it.each([
    ['at the equator', [10, 0, 12, 2]],
    ['at 60°N, where a degree of longitude is half as long', [10, 59, 14, 61]],
  ] as const)('estimates the cells of a box %s within 1% of its true area', (_label, [w, s, e, n]) => {
    const estimated = refusedCount({ type: 'Polygon', coordinates: [box(w, s, e, n)] }, 11);
    const exact = boxArea(w, s, e, n) / getHexagonAreaAvg(11, 'km2');
    expect(Math.abs(estimated - exact) / exact).toBeLessThan(0.01);
  });

  it('takes a hole out of the area', () => {
    const outer = box(10, 0, 14, 4);
    const hole = box(11, 1, 13, 3);
    const whole = refusedCount({ type: 'Polygon', coordinates: [outer] }, 11);
    const holed = refusedCount({ type: 'Polygon', coordinates: [outer, hole] }, 11);
    expect(Math.abs(whole - holed - boxArea(11, 1, 13, 3) / getHexagonAreaAvg(11, 'km2')) / whole).toBeLessThan(0.01);
  });

  it('adds the parts of a MultiPolygon', () => {
    const one = refusedCount({ type: 'Polygon', coordinates: [box(10, 0, 12, 2)] }, 11);
    const two = refusedCount({ type: 'MultiPolygon', coordinates: [[box(10, 0, 12, 2)], [box(20, 0, 22, 2)]] }, 11);
    expect(two / one).toBeCloseTo(2, 2);
  });

  it('fills a polygon under the limit, and the cells of overlapping parts once', () => {
    const a = box(0, 0, 0.02, 0.02);
    const single = hexifyCells({ type: 'Polygon', coordinates: [a] }, 9);
    expect(single.length).toBeGreaterThan(3);
    const twice = hexifyCells({ type: 'MultiPolygon', coordinates: [[a], [a]] }, 9);
    expect(twice.sort()).toEqual([...single].sort());
  });

  it('names what is wrong with a geometry that is not a polygon (422)', () => {
    expect(() => hexifyCells({ type: 'Point', coordinates: [0, 0] }, 9)).toThrow(expect.objectContaining({ status: 422, message: 'Unsupported geometry type' }));
  });
});
