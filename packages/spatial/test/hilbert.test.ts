import { describe, expect, it } from 'vitest';
import { hilbert, hilbertOfLngLat } from '../src/hilbert';

/** The classic xy → d walk, one quadrant a level (what `hilbert` replaced): the reference its indices must equal. */
function walk(x: number, y: number): number {
  let d = 0;
  for (let s = 1 << 15; s > 0; s >>>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) [x, y] = [s - 1 - x, s - 1 - y];
      [x, y] = [y, x];
    }
  }
  return d;
}

describe('Hilbert curve', () => {
  it('answers the level-by-level walk: the grid edges and 10,000 cells spread over it', () => {
    const edges = [0, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff];
    for (const x of edges) for (const y of edges) expect(hilbert(x, y)).toBe(walk(x, y));
    for (let i = 0; i < 10_000; i++) {
      const [x, y] = [(i * 40503) & 0xffff, (i * 65497 + 12345) & 0xffff];
      expect(hilbert(x, y)).toBe(walk(x, y));
    }
  });

  it('visits every cell of a small grid once, each step to a neighbour', () => {
    // The top 2 bits of each axis: on a 4 × 4 grid of 2^14-cell blocks the curve's order is the classic one.
    const side = 1 << 14;
    const cells = [];
    for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) cells.push({ x, y, d: Math.floor(hilbert(x * side, y * side) / side ** 2) });
    const order = cells.sort((a, b) => a.d - b.d);
    expect(order.map((c) => c.d)).toEqual([...Array(16).keys()]);
    for (let i = 1; i < 16; i++) expect(Math.abs(order[i]!.x - order[i - 1]!.x) + Math.abs(order[i]!.y - order[i - 1]!.y)).toBe(1);
  });

  it('over the world: the corners, clamping, and near places near on the curve', () => {
    expect(hilbertOfLngLat(-180, -90)).toBe(0);
    expect(hilbertOfLngLat(180, -90)).toBe(2 ** 32 - 1);
    expect(hilbertOfLngLat(200, -100)).toBe(hilbertOfLngLat(180, -90));
    const paris = hilbertOfLngLat(2.35, 48.85);
    expect(Math.abs(paris - hilbertOfLngLat(2.351, 48.851))).toBeLessThan(Math.abs(paris - hilbertOfLngLat(151.2, -33.8)));
  });
});
