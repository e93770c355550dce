import { badInput } from '@studio/schema';
import { getHexagonAreaAvg, polygonToCells } from 'h3-js';
import { polygonsOf, type PolygonCoords } from '../nodes/geojson';

/** Above this many cells a polyfill is refused instead of exhausting memory. */
export const MAX_HEXIFY_CELLS = 5_000_000;

const R = 6371.0088; // mean Earth radius, km

/** Spherical area of a ring in km² (planimetric approximation on the sphere; good enough for a cap). */
function ringArea(ring: number[][]): number {
  let sum = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    const [lng1, lat1] = ring[i]! as [number, number];
    const [lng2, lat2] = ring[i + 1]! as [number, number];
    sum += ((lng2 - lng1) * Math.PI) / 180 * (2 + Math.sin((lat1 * Math.PI) / 180) + Math.sin((lat2 * Math.PI) / 180));
  }
  return Math.abs((sum * R * R) / 2);
}

const polygonArea = (p: PolygonCoords) => Math.max(0, ringArea(p[0]!) - p.slice(1).reduce((s, h) => s + ringArea(h), 0));

/** Polyfills the GeoJSON (cell centers inside the polygon, h3-js semantics); cells are deduplicated. */
export function hexifyCells(geojson: unknown, res: number): string[] {
  const r = polygonsOf(geojson, 'hexify node');
  if (!r.ok) throw badInput(r.message);
  const estimate = r.polygons.reduce((s, p) => s + polygonArea(p), 0) / getHexagonAreaAvg(res, 'km2');
  if (estimate > MAX_HEXIFY_CELLS) {
    throw badInput(`hexify node: the polygon covers about ${Math.round(estimate)} cells at res ${res}, more than ${MAX_HEXIFY_CELLS}`);
  }
  if (r.polygons.length === 1) return polygonToCells(r.polygons[0]!, res, true);
  const cells = new Set<string>();
  for (const p of r.polygons) for (const c of polygonToCells(p, res, true)) cells.add(c);
  return [...cells];
}
