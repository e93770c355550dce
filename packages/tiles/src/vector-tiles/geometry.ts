import type { Geometry } from 'geojson';

export { parseGeometry } from '@studio/engine';

/** Web Mercator as geojson-vt uses it: x, y in 0..1 from the antimeridian and the north edge. */
export const MERCATOR_MAX_LAT = 85.0511287798066;
export const mercX = (lng: number) => lng / 360 + 0.5;
export function mercY(lat: number): number {
  const sin = Math.sin((Math.max(-MERCATOR_MAX_LAT, Math.min(MERCATOR_MAX_LAT, lat)) * Math.PI) / 180);
  return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
}
export const lngOf = (x: number) => (x - 0.5) * 360;
export const latOf = (y: number) => (360 / Math.PI) * Math.atan(Math.exp((1 - 2 * y) * Math.PI)) - 90;

/** The geometry's kind for TileJSON: Point, LineString or Polygon (multi-parts count as their part). */
export function kindOf(g: Geometry): 'Point' | 'LineString' | 'Polygon' | 'Mixed' {
  if (g.type === 'GeometryCollection') {
    const kinds = new Set(g.geometries.map(kindOf));
    return kinds.size === 1 ? [...kinds][0]! : 'Mixed';
  }
  return g.type.replace(/^Multi/, '') as 'Point' | 'LineString' | 'Polygon';
}

/** [minX, minY, maxX, maxY] in Mercator units, or null for a geometry without a finite position. */
export function mercatorBox(g: Geometry): [number, number, number, number] | null {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number') {
      const [lng, lat] = c as number[];
      if (!Number.isFinite(lng) || !Number.isFinite(lat)) return;
      const x = mercX(lng!);
      const y = mercY(lat!);
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
      return;
    }
    for (const part of c) visit(part);
  };
  const walk = (geom: Geometry) => (geom.type === 'GeometryCollection' ? geom.geometries.forEach(walk) : visit(geom.coordinates));
  walk(g);
  return box[0] <= box[2] ? box : null;
}
