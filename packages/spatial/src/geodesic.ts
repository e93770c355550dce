import * as geodesicModule from 'geographiclib-geodesic';
import { simpleParts, type Position, type Shape } from './wkb';

// The package is a UMD bundle: Node's ESM loader sees only its default export, bundlers its named ones.
const lib = ((geodesicModule as unknown as { default?: typeof geodesicModule }).default ?? geodesicModule) as typeof geodesicModule;
const WGS84 = lib.Geodesic.WGS84;
const RAD = Math.PI / 180;

/**
 * The latitude where the geodesic from `a` to `b` meets the meridian `lon` (longitudes unrolled: `lon` between a's and
 * b's as given, so an edge across ±180° is asked in one continuous frame). Bisection along the line: 60 steps reach
 * the last bit of a double, and a cut edge then lies on the geodesic PostGIS's geography measures, not on a chord.
 */
export function meridianCrossing(a: Position, b: Position, lon: number): number {
  const caps = lib.Geodesic.LATITUDE | lib.Geodesic.LONGITUDE | lib.Geodesic.DISTANCE_IN | lib.Geodesic.LONG_UNROLL;
  // The line from a to b's position in a's frame (GeographicLib wraps b itself; LONG_UNROLL keeps positions unrolled).
  const line = WGS84.InverseLine(a[1], a[0], b[1], b[0], caps);
  const east = b[0] > a[0];
  let lo = 0;
  let hi = line.s13;
  let lat = a[1];
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    const p = line.Position(mid, caps);
    lat = p.lat2!;
    if ((p.lon2! < lon) === east) lo = mid;
    else hi = mid;
  }
  return lat;
}

/**
 * Measures in metres and square metres on the WGS 84 spheroid with Karney's geodesics (GeographicLib): what PostGIS
 * answers on `geography` (it calls the same library). Positions are [longitude, latitude] in degrees.
 */

/** Geodesic distance in metres between two positions. */
export const geodesicDistance = (a: Position, b: Position): number => WGS84.Inverse(a[1], a[0], b[1], b[0], lib.Geodesic.DISTANCE).s12!;

function lineLength(line: Position[]): number {
  let s = 0;
  for (let i = 1; i < line.length; i++) s += geodesicDistance(line[i - 1]!, line[i]!);
  return s;
}

// ---- Areas: GeographicLib's polygon, or the authalic sphere when every edge is short. ----

const A = WGS84.a;
const E2 = WGS84.f * (2 - WGS84.f);
const E = Math.sqrt(E2);
/** Snyder's q(φ) of sin φ: the authalic latitude β is asin(q / q(90°)). */
const authalicQ = (s: number) => (1 - E2) * (s / (1 - E2 * s * s) - (1 / (2 * E)) * Math.log((1 - E * s) / (1 + E * s)));
const QP = authalicQ(1);
/** The authalic sphere's radius squared: its area is the ellipsoid's. */
const RQ2 = (A * A * QP) / 2;
/**
 * Measured bound of the authalic sphere's error (area.test.ts): an edge of length L whose image is taken as a great
 * circle moves the area by at most 0.019 e² L³ / a on random polygons at latitudes to ±85°; 0.05 gives a margin.
 */
const EDGE_ERROR = 0.05 * E2 / A;
/** A generous bound of the rounding in each edge's excess (atan2, tan and the authalic latitude: a few ulps). */
const ROUNDING = 1e-14;
/** The relative error the fast path may carry (ST_Area's tolerance against PostGIS is 1e-6). */
const FAST_AREA_REL = 1e-7;

/**
 * A ring's signed area (clockwise > 0) on the authalic sphere with great-circle edges, each edge's excess to the
 * equator summed (tan(E/2) = tan(Δλ/2)(t₁ + t₂)/(1 + t₁t₂), t = tan(β/2)); null when that is not within FAST_AREA_REL
 * of the geodesic polygon's area: an edge long enough to bend away from the great circle, a latitude past ±85° or a
 * ring around a pole. 0.09 µs a vertex where GeographicLib's polygon takes 1.2 (an Inverse an edge).
 */
export function authalicRingArea(ring: Position[], n: number): number | null {
  let sum = 0, bound = 0, turn = 0, size = 0;
  let [x0, y0] = ring[n - 1]!;
  if (!(Math.abs(y0) <= 85)) return null;
  let t0 = Math.tan(Math.asin(Math.min(1, Math.max(-1, authalicQ(Math.sin(y0 * RAD)) / QP))) / 2);
  for (let i = 0; i < n; i++) {
    const [x1, y1] = ring[i]!;
    if (!(Math.abs(y1) <= 85)) return null;
    let dl = x1 - x0;
    if (dl > 180) dl -= 360; else if (dl < -180) dl += 360;
    if (!(Math.abs(dl) < 90)) return null;
    turn += dl;
    const t1 = Math.tan(Math.asin(Math.min(1, Math.max(-1, authalicQ(Math.sin(y1 * RAD)) / QP))) / 2);
    const excess = 2 * Math.atan2(Math.tan((dl * RAD) / 2) * (t0 + t1), 1 + t0 * t1);
    sum += excess;
    size += Math.abs(excess);
    // The edge's length, near enough for a bound (equirectangular at its mid-latitude).
    const l = Math.hypot(dl * Math.cos(((y0 + y1) / 2) * RAD), y1 - y0) * RAD * A;
    bound += l * l * l;
    x0 = x1; y0 = y1; t0 = t1;
  }
  if (Math.abs(turn) > 180) return null;
  const area = sum * RQ2;
  // The edges' bend, and the rounding of terms that cancel (a small ring far from the equator sums large excesses).
  return EDGE_ERROR * bound + ROUNDING * size * RQ2 <= FAST_AREA_REL * Math.abs(area) ? area : null;
}

/** Area of one ring in square metres (unsigned; the closing point is dropped, GeographicLib closes rings itself). */
export function ringArea(ring: Position[]): number {
  const n = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1] ? ring.length - 1 : ring.length;
  if (n < 3) return 0;
  const fast = authalicRingArea(ring, n);
  if (fast !== null) return Math.abs(fast);
  return geodesicRingArea(ring, n);
}

/** GeographicLib's geodesic polygon: what PostGIS's geography ST_Area calls. */
export function geodesicRingArea(ring: Position[], n = ring.length): number {
  const poly = WGS84.Polygon(false);
  for (let i = 0; i < n; i++) poly.AddPoint(ring[i]![1], ring[i]![0]);
  return Math.abs(poly.Compute(false, true).area ?? 0);
}

/** ST_Area: polygons' areas (outer ring less holes), 0 for points and lines. */
export function area(s: Shape): number {
  let a = 0;
  for (const part of simpleParts(s)) {
    if (part.kind !== 'polygon') continue;
    const [outer, ...holes] = part.rings;
    if (!outer) continue;
    a += ringArea(outer) - holes.reduce((h, r) => h + ringArea(r), 0);
  }
  return a;
}

/** ST_Length: lines' lengths, 0 for points and polygons (as PostGIS's geography ST_Length). */
export function length(s: Shape): number {
  let l = 0;
  for (const part of simpleParts(s)) if (part.kind === 'line') l += lineLength(part.line);
  return l;
}

/** ST_Perimeter: polygons' ring lengths, 0 for points and lines. */
export function perimeter(s: Shape): number {
  let l = 0;
  for (const part of simpleParts(s)) if (part.kind === 'polygon') for (const r of part.rings) l += lineLength(r);
  return l;
}

// ---- Distance: the nearest points found on the sphere, measured between on the spheroid (PostGIS's method). ----

type Vec = [number, number, number];
const vec = (p: Position): Vec => { const lo = p[0] * RAD, la = p[1] * RAD; return [Math.cos(la) * Math.cos(lo), Math.cos(la) * Math.sin(lo), Math.sin(la)]; };
const toPos = (v: Vec): Position => [Math.atan2(v[1], v[0]) / RAD, Math.atan2(v[2], Math.hypot(v[0], v[1])) / RAD];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec, b: Vec): Vec => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: Vec) => Math.hypot(a[0], a[1], a[2]);
const unit = (a: Vec): Vec => { const n = norm(a); return [a[0] / n, a[1] / n, a[2] / n]; };
const angle = (a: Vec, b: Vec) => Math.atan2(norm(cross(a, b)), dot(a, b));

interface Edge { a: Vec; b: Vec; n: Vec | null }
const edge = (a: Vec, b: Vec): Edge => { const c = cross(a, b); return { a, b, n: norm(c) < 1e-15 ? null : unit(c) }; };

/** Whether q (on the edge's great circle) lies between its ends. */
const onArc = (e: Edge, q: Vec) => e.n !== null && dot(cross(e.a, q), e.n) >= -1e-15 && dot(cross(q, e.b), e.n) >= -1e-15;

/** The point of edge e nearest p, on the sphere. */
function nearestOnEdge(e: Edge, p: Vec): Vec {
  if (e.n) {
    const k = dot(p, e.n);
    const q: Vec = [p[0] - k * e.n[0], p[1] - k * e.n[1], p[2] - k * e.n[2]];
    if (norm(q) > 1e-15) { const u = unit(q); if (onArc(e, u)) return u; }
  }
  return angle(p, e.a) <= angle(p, e.b) ? e.a : e.b;
}

/** The crossing of two edges on the sphere, if they cross. */
function crossing(e: Edge, f: Edge): Vec | null {
  if (!e.n || !f.n) return null;
  const l = cross(e.n, f.n);
  if (norm(l) < 1e-15) return null;
  const u = unit(l);
  for (const c of [u, [-u[0], -u[1], -u[2]] as Vec]) if (onArc(e, c) && onArc(f, c)) return c;
  return null;
}

/**
 * Whether p lies inside a ring on the sphere (edges great-circle arcs): the ring's winding around p, summed from the
 * angles it subtends there, is a full turn. Rings are taken as the smaller of the two regions they bound, as PostGIS's
 * geography takes them.
 */
function inRing(ring: Vec[], p: Vec): boolean {
  let turn = 0;
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1]!, b = ring[i]!;
    turn += Math.atan2(dot(p, cross(a, b)), dot(a, b) - dot(a, p) * dot(b, p));
  }
  return Math.abs(turn) > Math.PI;
}

const inPolygon = (rings: Vec[][], p: Vec) => rings.length > 0 && inRing(rings[0]!, p) && !rings.slice(1).some((h) => inRing(h, p));

function partsOf(s: Shape): { points: Vec[]; edges: Edge[]; polygons: Vec[][][]; anchors: Vec[] } {
  const points: Vec[] = [];
  const edges: Edge[] = [];
  const polygons: Vec[][][] = [];
  // One vertex of every part: a part with no edge crossing the other shape lies inside it or outside it whole.
  const anchors: Vec[] = [];
  const addLine = (line: Position[]) => {
    if (line.length === 1) points.push(vec(line[0]!));
    for (let i = 1; i < line.length; i++) edges.push(edge(vec(line[i - 1]!), vec(line[i]!)));
  };
  for (const part of simpleParts(s)) {
    if (part.kind === 'point') { points.push(vec(part.p)); anchors.push(vec(part.p)); } else if (part.kind === 'line') {
      addLine(part.line);
      if (part.line[0]) anchors.push(vec(part.line[0]));
    } else {
      part.rings.forEach(addLine);
      if (part.rings[0]?.[0]) { anchors.push(vec(part.rings[0][0])); polygons.push(part.rings.map((r) => r.map(vec))); }
    }
  }
  return { points, edges, polygons, anchors };
}

/**
 * ST_Distance in metres, as PostGIS's geography distance finds it: 0 when the shapes touch on the sphere (edges as
 * great-circle arcs cross, or a part lies inside a polygon of the other), else the nearest pair of points is found on
 * the sphere and measured on the spheroid. Its answers match PostGIS to ~1e-9 for points, well inside 1e-4 for edges.
 * NaN when either shape is empty.
 */
export function distance(s1: Shape, s2: Shape): number {
  const A = partsOf(s1);
  const B = partsOf(s2);
  if ((!A.points.length && !A.edges.length) || (!B.points.length && !B.edges.length)) return NaN;
  if (A.anchors.some((p) => B.polygons.some((rings) => inPolygon(rings, p))) || B.anchors.some((p) => A.polygons.some((rings) => inPolygon(rings, p)))) return 0;
  let best = Infinity;
  let pair: [Vec, Vec] | null = null;
  const consider = (x: Vec, y: Vec) => { const d = angle(x, y); if (d < best) { best = d; pair = [x, y]; } };
  for (const p of A.points) {
    for (const q of B.points) consider(p, q);
    for (const e of B.edges) consider(p, nearestOnEdge(e, p));
  }
  for (const e of A.edges) {
    for (const q of B.points) consider(nearestOnEdge(e, q), q);
    for (const f of B.edges) {
      const c = crossing(e, f);
      if (c) return 0;
      consider(e.a, nearestOnEdge(f, e.a));
      consider(e.b, nearestOnEdge(f, e.b));
      consider(nearestOnEdge(e, f.a), f.a);
      consider(nearestOnEdge(e, f.b), f.b);
    }
  }
  if (!pair) return NaN;
  const [x, y] = pair as [Vec, Vec];
  return best === 0 ? 0 : geodesicDistance(toPos(x), toPos(y));
}

// ---- Buffers in metres: an azimuthal equidistant plane centred on the shape, where GEOS buffers in metres. ----

/** Projects lon/lat to metres east/north of `centre` along geodesics (azimuthal equidistant). */
export function toPlane(centre: Position, p: Position): Position {
  const r = WGS84.Inverse(centre[1], centre[0], p[1], p[0]);
  const az = (r as { azi1?: number }).azi1! * RAD;
  return [r.s12! * Math.sin(az), r.s12! * Math.cos(az)];
}

// Only the position: STANDARD (azimuth, distances too) made each call 3.7 µs instead of 1.0, most of a point buffer's cost.
const BACK_CAPS = lib.Geodesic.LATITUDE | lib.Geodesic.LONGITUDE | lib.Geodesic.LONG_UNROLL;

/** Back from the plane to lon/lat; longitudes unrolled from the centre, so a buffer across 180° stays one ring. */
export function fromPlane(centre: Position, xy: Position): Position {
  const s = Math.hypot(xy[0], xy[1]);
  if (s === 0) return [centre[0], centre[1]];
  const r = WGS84.Direct(centre[1], centre[0], Math.atan2(xy[0], xy[1]) / RAD, s, BACK_CAPS);
  return [r.lon2!, r.lat2!];
}

/**
 * A point's buffer: the ring GEOS draws around a point in the azimuthal equidistant plane centred on it (from due east,
 * clockwise, `4 × quadSegments` vertices), each vertex found by one geodesic from the point instead of projecting,
 * buffering in GEOS and projecting back (a fifth of the time); a short radius by the mid-latitude formulas, within
 * 1e-6 of the radius of the geodesic's end. Closed; answered as its Polygon WKB.
 */
export function geodesicCircle(centre: Position, radius: number, quadSegments: number): Uint8Array {
  const n = 4 * quadSegments;
  // Written straight into its WKB (a one-ring 2D little-endian Polygon): the ring's position arrays were most of a
  // buffer's garbage.
  const b = new Uint8Array(13 + (n + 1) * 16);
  const v = new DataView(b.buffer);
  v.setUint8(0, 1);
  v.setUint32(1, 3, true);
  v.setUint32(5, 1, true);
  v.setUint32(9, n + 1, true);
  const cos = Math.cos(centre[1] * RAD);
  const short = Math.abs(centre[1]) <= 80 && (MID_LATITUDE_ERROR * radius * radius) / (A * A * cos * cos) <= CIRCLE_REL;
  for (let k = 0; k < n; k++) {
    const azimuth = 90 + (k * 360) / n;
    if (short) { midLatitudeInto(centre[0], centre[1], azimuth, radius, v, 13 + k * 16); continue; }
    const r = WGS84.Direct(centre[1], centre[0], azimuth, radius, BACK_CAPS);
    v.setFloat64(13 + k * 16, r.lon2!, true);
    v.setFloat64(21 + k * 16, r.lat2!, true);
  }
  b.copyWithin(13 + n * 16, 13, 29);
  return b;
}

/**
 * Measured (circle.test.ts): Gauss's mid-latitude direct solution is off the geodesic by about 0.05 s³ / (a² cos² φ)
 * (4.6e-7 of s at 10 km and latitude 60°); 0.06 gives a margin. A circle takes it when that is within CIRCLE_REL of
 * its radius, else GeographicLib's Direct.
 */
const MID_LATITUDE_ERROR = 0.06;
const CIRCLE_REL = 1e-6;

/**
 * The position `s` metres from `from` along `azimuth` by Gauss's mid-latitude formulas (the meridian and prime-vertical
 * radii and the azimuth at the middle of the line, iterated): 0.13 µs where Direct takes 0.63. Longitude unrolled.
 */
export function midLatitudeDirect(from: Position, azimuth: number, s: number): Position {
  const v = new DataView(new ArrayBuffer(16));
  midLatitudeInto(from[0], from[1], azimuth, s, v, 0);
  return [v.getFloat64(0, true), v.getFloat64(8, true)];
}

/** midLatitudeDirect written as two little-endian doubles (longitude, latitude) at `o`. */
function midLatitudeInto(lon: number, lat: number, azimuth: number, s: number, out: DataView, o: number): void {
  const phi = lat * RAD, alpha = azimuth * RAD;
  let dPhi = 0, dLambda = 0, dAlpha = 0;
  for (let k = 0; k < 4; k++) {
    const phiM = phi + dPhi / 2, alphaM = alpha + dAlpha / 2, sin = Math.sin(phiM), w2 = 1 - E2 * sin * sin, w = Math.sqrt(w2);
    dPhi = (s * Math.cos(alphaM) * w2 * w) / (A * (1 - E2));
    dLambda = (s * Math.sin(alphaM) * w) / (A * Math.cos(phiM));
    dAlpha = dLambda * sin;
  }
  out.setFloat64(o, lon + dLambda / RAD, true);
  out.setFloat64(o + 8, lat + dPhi / RAD, true);
}
