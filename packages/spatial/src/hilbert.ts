/**
 * Positions along a Hilbert curve: near places get near indices, so sorting rows or boxes by it groups them by place
 * (GeoParquet's row order, spatial index packing). The classic xy → d walk, one quadrant a level.
 */

/** The index (0 .. 2^32 - 1) of the cell (x, y) of a 2^16 × 2^16 grid. */
export function hilbert(x: number, y: number): number {
  let d = 0;
  for (let s = 1 << 15; s > 0; s >>>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      [x, y] = [y, x];
    }
  }
  return d;
}

/** The index of a longitude/latitude on the grid laid over the whole world (outside it: clamped to its edge). */
export function hilbertOfLngLat(lng: number, lat: number): number {
  const n = 1 << 16;
  const cell = (v: number, lo: number, span: number) => Math.min(n - 1, Math.max(0, Math.floor(((v - lo) / span) * n)));
  return hilbert(cell(lng, -180, 360), cell(lat, -90, 180));
}
