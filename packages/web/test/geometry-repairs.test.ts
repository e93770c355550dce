import { describe, expect, it } from 'vitest';
import { geometryRepairLines } from '../src/datasets/geometryRepairs';

describe("the dataset page's geometry lines", () => {
  it.each([
    [null, []],
    [{ repaired: 0, repairs: {}, invalid: {} }, []],
    [{ repaired: 3, repairs: { cut: 3 }, invalid: {} }, ['3 geometries were cut at the antimeridian']],
    [{ repaired: 0, repairs: {}, invalid: { 'self-intersection': 12 } }, ['12 geometries are invalid: self-intersections']],
    [
      { repaired: 2, repairs: { pole: 1, cut: 1, orientation: 1 }, invalid: { 'self-intersection': 1 } },
      ['1 geometry is invalid: self-intersection', '1 geometry was cut at the antimeridian', '1 geometry was closed along a pole', '1 geometry was turned to run counter-clockwise'],
    ],
  ])('%j', (repairs, lines) => expect(geometryRepairLines(repairs)).toEqual(lines));
});
