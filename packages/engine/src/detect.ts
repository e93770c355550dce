/**
 * Which columns carry location and time: names first, then the values must agree (ranges for lat/lng,
 * h3-js isValidCell for H3, GeoJSON/WKT parse for geometry).
 */
import { isValidCell } from 'h3-js';
import type { ColumnRole, IngestColumn } from './types';
import { isNumeric } from './types';

const LAT_NAME = /^(lat|latitude|y)$|(^|[_\s.-])(lat|latitude)$|^(lat|latitude)[_\s.-]/i;
const LNG_NAME = /^(lng|lon|long|longitude|x)$|(^|[_\s.-])(lng|lon|long|longitude)$|^(lng|lon|long|longitude)[_\s.-]/i;
const TIME_NAME = /time|date|^ts$|_ts$|^ts_|timestamp|_at$/i;
const WKT = /^\s*(SRID=\d+;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\s*(Z|M|ZM)?\s*(\(|EMPTY)/i;
const GEOJSON_TYPES = new Set([
  'Point',
  'LineString',
  'Polygon',
  'MultiPoint',
  'MultiLineString',
  'MultiPolygon',
  'GeometryCollection',
  'Feature',
]);

export function looksLikeGeometry(v: string): boolean {
  if (WKT.test(v)) return true;
  const s = v.trimStart();
  if (!s.startsWith('{')) return false;
  try {
    const o = JSON.parse(s) as { type?: unknown };
    return typeof o.type === 'string' && GEOJSON_TYPES.has(o.type);
  } catch {
    return false;
  }
}

export function looksLikeH3(v: unknown): boolean {
  if (typeof v === 'string') return isValidCell(v);
  if (typeof v === 'bigint') return v > 0n && isValidCell(v.toString(16));
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 && isValidCell(v.toString(16));
  return false;
}

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);

/**
 * Sets `role` on the columns it recognises and returns the detected map. `sample` holds up to a few hundred
 * rows of the dataset; stats (min/max) cover the whole file.
 */
export function detectRoles(
  columns: IngestColumn[],
  sample: Record<string, unknown>[],
): Partial<Record<ColumnRole, string>> {
  const detected: Partial<Record<ColumnRole, string>> = {};
  const values = (name: string) => sample.map((r) => r[name]).filter((v) => v !== null && v !== undefined);
  const inRange = (c: IngestColumn, limit: number) =>
    isNumeric(c.type) &&
    c.stats.nullCount < Infinity &&
    c.stats.min !== undefined &&
    num(c.stats.min) >= -limit &&
    num(c.stats.max) <= limit;
  const pick = (role: ColumnRole, c: IngestColumn | undefined) => {
    if (!c || detected[role]) return;
    c.role = role;
    detected[role] = c.name;
  };

  // Exact names ("latitude") beat partial ones ("pickup_lat") and the x/y fallbacks.
  const rank = (name: string, exact: RegExp) => (exact.test(name) ? 0 : /^[xy]$/i.test(name) ? 2 : 1);
  const lat = columns
    .filter((c) => !c.role && LAT_NAME.test(c.name) && inRange(c, 90))
    .sort((a, b) => rank(a.name, /^(lat|latitude)$/i) - rank(b.name, /^(lat|latitude)$/i))[0];
  const lng = columns
    .filter((c) => !c.role && c !== lat && LNG_NAME.test(c.name) && inRange(c, 180))
    .sort((a, b) => rank(a.name, /^(lng|lon|long|longitude)$/i) - rank(b.name, /^(lng|lon|long|longitude)$/i))[0];
  // A pair or nothing: one lone "y" column is not a location.
  if (lat && lng) {
    pick('latitude', lat);
    pick('longitude', lng);
  }

  for (const c of columns) {
    if (c.role) continue;
    const vs = values(c.name);
    if (vs.length === 0) continue;
    if (c.type === 'STRING' && !detected.geometry && vs.every((v) => typeof v === 'string' && looksLikeGeometry(v))) {
      c.type = 'GEOMETRY';
      pick('geometry', c);
    } else if ((c.type === 'STRING' || c.type === 'BIGINT') && !detected.h3 && vs.every(looksLikeH3)) {
      pick('h3', c);
    }
  }

  const times = columns.filter((c) => !c.role && (c.type === 'TIMESTAMP' || c.type === 'DATE'));
  const time = times.find((c) => c.type === 'TIMESTAMP' && TIME_NAME.test(c.name)) ?? times.find((c) => c.type === 'TIMESTAMP') ?? times[0];
  pick('timestamp', time);
  return detected;
}
