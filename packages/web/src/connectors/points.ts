/**
 * Where a query result's rows are on a map, found from the columns themselves: latitude/longitude pairs
 * (lat/latitude/y with lng/lon/long/longitude/x), WKT POINTs, or GeoJSON Point geometries.
 */
export type LngLat = [number, number];

const LAT = /^(lat|latitude|y)$/i;
const LNG = /^(lng|lon|long|longitude|x)$/i;
const WKT_POINT = /^\s*POINT\s*\(\s*(-?[\d.]+(?:e-?\d+)?)\s+(-?[\d.]+(?:e-?\d+)?)\s*\)\s*$/i;

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const valid = ([lng, lat]: LngLat) => Number.isFinite(lng) && Number.isFinite(lat) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180;

function geojsonPoint(v: unknown): LngLat | null {
  let g: unknown = v;
  if (typeof v === 'string' && v.trimStart().startsWith('{')) {
    try {
      g = JSON.parse(v);
    } catch {
      return null;
    }
  }
  const c = (g as { type?: unknown; coordinates?: unknown })?.type === 'Point' ? (g as { coordinates: unknown }).coordinates : null;
  return Array.isArray(c) && c.length >= 2 ? [num(c[0]), num(c[1])] : null;
}

/** The rows' positions and how they were found (the columns), or null when no column places them. */
export function findPoints(rows: Record<string, unknown>[]): { points: LngLat[]; from: string } | null {
  const columns = rows[0] ? Object.keys(rows[0]) : [];
  const lat = columns.find((c) => LAT.test(c));
  const lng = columns.find((c) => LNG.test(c));
  const candidates: { from: string; at: (r: Record<string, unknown>) => LngLat | null }[] = [];
  if (lat && lng) candidates.push({ from: `${lat}, ${lng}`, at: (r) => [num(r[lng]), num(r[lat])] });
  for (const c of columns) {
    candidates.push({ from: c, at: (r) => {
      const m = typeof r[c] === 'string' ? WKT_POINT.exec(r[c] as string) : null;
      return m ? [Number(m[1]), Number(m[2])] : geojsonPoint(r[c]);
    } });
  }
  for (const { from, at } of candidates) {
    const points = rows.map(at).filter((p): p is LngLat => p !== null && valid(p));
    // A column places the rows when most of them have a position through it.
    if (points.length > 0 && points.length >= rows.length / 2) return { points, from };
  }
  return null;
}
