import { z } from 'zod';

/**
 * Just enough GeoJSON to polyfill: Polygon / MultiPolygon geometries, a Feature holding one, or a
 * FeatureCollection of them. Anything else that is still GeoJSON-shaped fails with the catalog's
 * 'Unsupported geometry type'.
 */
const position = z.array(z.number().finite()).min(2).max(3);
const ring = z.array(position).min(4);
export const polygonCoords = z.array(ring).min(1);
export const multiPolygonCoords = z.array(polygonCoords).min(1);

export type PolygonCoords = number[][][];

export const UNSUPPORTED_GEOMETRY = 'Unsupported geometry type';

type Result = { ok: true; polygons: PolygonCoords[] } | { ok: false; message: string };

const GEOMETRY_TYPES = new Set([
  'Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection',
]);

function geometry(g: unknown, what: string): Result {
  if (typeof g !== 'object' || g === null || typeof (g as { type?: unknown }).type !== 'string') {
    return { ok: false, message: `${what}: geojson must be a GeoJSON object` };
  }
  const { type, coordinates } = g as { type: string; coordinates?: unknown };
  if (type === 'Polygon') {
    const r = polygonCoords.safeParse(coordinates);
    return r.success ? { ok: true, polygons: [r.data] } : { ok: false, message: `${what}: invalid Polygon coordinates` };
  }
  if (type === 'MultiPolygon') {
    const r = multiPolygonCoords.safeParse(coordinates);
    return r.success ? { ok: true, polygons: r.data } : { ok: false, message: `${what}: invalid MultiPolygon coordinates` };
  }
  if (GEOMETRY_TYPES.has(type)) return { ok: false, message: UNSUPPORTED_GEOMETRY };
  return { ok: false, message: `${what}: geojson must be a GeoJSON object` };
}

/** hexify: a geometry, a Feature or a FeatureCollection whose geometries are all polygonal. */
export function polygonsOf(g: unknown, what: string, { featureOnly = false } = {}): Result {
  if (typeof g !== 'object' || g === null) return { ok: false, message: `${what}: geojson must be a GeoJSON object` };
  const t = (g as { type?: unknown }).type;
  if (t === 'Feature') return geometry((g as { geometry?: unknown }).geometry, what);
  if (featureOnly) {
    return GEOMETRY_TYPES.has(String(t)) || t === 'FeatureCollection'
      ? { ok: false, message: UNSUPPORTED_GEOMETRY }
      : { ok: false, message: `${what}: geojson must be a GeoJSON object` };
  }
  if (t === 'FeatureCollection') {
    const features = (g as { features?: unknown }).features;
    if (!Array.isArray(features) || features.length === 0) {
      return { ok: false, message: `${what}: FeatureCollection must hold at least one feature` };
    }
    const polygons: PolygonCoords[] = [];
    for (const f of features) {
      const r = polygonsOf(f, what, { featureOnly: true });
      if (!r.ok) return r;
      polygons.push(...r.polygons);
    }
    return { ok: true, polygons };
  }
  return geometry(g, what);
}

/** zod refinement shared by hexify and tileExtract. */
export const geojsonProp = (what: string, featureOnly: boolean) =>
  z.unknown().superRefine((g, ctx) => {
    const r = polygonsOf(g, what, { featureOnly });
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.message });
  });
