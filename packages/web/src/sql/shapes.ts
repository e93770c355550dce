import { findPoints } from '../connectors/points';

export interface Feature {
  type: 'Feature';
  properties: Record<string, unknown>;
  geometry: { type: string; coordinates?: unknown; geometries?: unknown };
}

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']);

/** A GeoJSON geometry from a cell (GeoJSON text, as ST_AsGeoJSON and GeoJSON uploads give it), or null. */
function geometryOf(v: unknown): Feature['geometry'] | null {
  if (typeof v !== 'string' || !v.trimStart().startsWith('{')) return null;
  try {
    const g = JSON.parse(v) as { type?: unknown; geometry?: unknown };
    const geom = (g.type === 'Feature' ? g.geometry : g) as Feature['geometry'] | null;
    return geom && typeof geom.type === 'string' && GEOMETRY_TYPES.has(geom.type) ? geom : null;
  } catch {
    return null;
  }
}

/**
 * The rows as map features and the column they come from: the first column whose values are mostly GeoJSON
 * geometries (points, lines, polygons), else latitude/longitude, WKT or GeoJSON points (findPoints). The other
 * columns' values ride along as properties. Null when no column places the rows.
 */
export function findShapes(rows: Record<string, unknown>[]): { features: Feature[]; from: string } | null {
  const columns = rows[0] ? Object.keys(rows[0]) : [];
  for (const c of columns) {
    const features: Feature[] = [];
    for (const r of rows) {
      const geometry = geometryOf(r[c]);
      if (geometry) features.push({ type: 'Feature', properties: Object.fromEntries(columns.filter((k) => k !== c).map((k) => [k, r[k]])), geometry });
    }
    if (features.length > 0 && features.length >= rows.length / 2) return { features, from: c };
  }
  const points = findPoints(rows);
  return points && { from: points.from, features: points.points.map((coordinates) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates } })) };
}

/** [west, south, east, north] of the features' positions, or null when they have none. */
export function boundsOfFeatures(features: Feature[]): [number, number, number, number] | null {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  const walk = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      w = Math.min(w, c[0]); e = Math.max(e, c[0]); s = Math.min(s, c[1]); n = Math.max(n, c[1]);
      return;
    }
    c.forEach(walk);
  };
  const geometry = (g: Feature['geometry']): void => (g.type === 'GeometryCollection' ? (g.geometries as Feature['geometry'][] ?? []).forEach(geometry) : walk(g.coordinates));
  features.forEach((f) => geometry(f.geometry));
  return Number.isFinite(w) ? [w, s, e, n] : null;
}
