import { meridianCrossing } from './geodesic';
import type { Geos } from './geos';
import { readWkb, writeWkb, type Position, type Shape } from './wkb';

/**
 * Geometry drawn where it is (RFC 7946 §3.1.9, §3.1.6): every map draws an edge between longitudes as a straight line
 * in its projection, so a polygon whose edge goes from 179° to -179° is drawn as a band across the world. PostGIS's
 * geography reads such an edge the short way, across the antimeridian; so does this module. Each geometry is:
 * - wrapped: longitudes outside [-180, 180] (data in 0..360°) brought into it position by position — an edge is then
 *   the short way round, as geography reads it, so 0..360° data is never mistaken for crossings (10° to 350° is 20°
 *   wide across 0°, not 340° across 180°);
 * - cut: polygons and lines crossing ±180° split there into multi-geometries, no edge longer than 180° of longitude,
 *   the cut on the geodesic (geodesic.ts `meridianCrossing`) so areas stay what geography measures;
 * - closed along the pole: a ring going once round the Earth (Antarctica) closed along the pole it circles, that
 *   edge densified every POLE_STEP degrees;
 * - tidied: rings closed, repeated points dropped, exteriors counter-clockwise and holes clockwise (RFC 7946);
 * - checked: what is still invalid (self-intersections) kept as it is and named by GEOS's reason.
 */

export type Repair = 'wrapped' | 'closed' | 'duplicates' | 'orientation' | 'cut' | 'pole';

export interface Normalised {
  geometry: Shape;
  /** What was changed; empty when the geometry is returned as given. */
  repairs: Repair[];
  /** The kind of invalidity GEOS finds in the result ('self-intersection', 'too few points', …), or null. */
  invalid: string | null;
}

/** The polar edge's vertex spacing, in degrees of longitude. */
export const POLE_STEP = 10;

/** Longitude into [-180, 180]; 180 and -180 both kept as they are. */
export const wrapLongitude = (lon: number): number => (lon >= -180 && lon <= 180 ? lon : ((((lon + 180) % 360) + 360) % 360) - 180);

/** A longitude step the short way round: -180 < d <= 180 (a step of ±360°, 180° to -180°, is no step). */
const shortStep = (d: number): number => d - 360 * Math.round(d / 360);

const same = (a: Position, b: Position) => a[0] === b[0] && a[1] === b[1];

/** Rotating `ring` by the signed planar area of its lon/lat polygon: > 0 counter-clockwise. */
function signedArea(ring: Position[]): number {
  let s = 0;
  for (let i = 1; i < ring.length; i++) s += (ring[i - 1]![0] * ring[i]![1]) - (ring[i]![0] * ring[i - 1]![1]);
  return s / 2;
}

/** Positions as given: wrapped into [-180, 180], consecutive repeats dropped, noting what changed. */
function tidy(ps: Position[], repairs: Set<Repair>): Position[] {
  const out: Position[] = [];
  for (const p of ps) {
    const lon = wrapLongitude(p[0]);
    if (lon !== p[0]) repairs.add('wrapped');
    const q: Position = [lon, p[1]];
    if (out.length && same(out[out.length - 1]!, q)) {
      repairs.add('duplicates');
      continue;
    }
    out.push(q);
  }
  return out;
}

/** Longitudes made continuous (each step the short way), so a path across ±180° runs past it instead of jumping. */
function unroll(ps: Position[]): Position[] {
  const out: Position[] = [];
  for (const p of ps) {
    const prev = out[out.length - 1];
    out.push(prev ? [prev[0] + shortStep(p[0] - prev[0]), p[1]] : [p[0], p[1]]);
  }
  return out;
}

/** The strip of an unrolled longitude: 0 for [-180, 180], 1 for [180, 540], -1 for [-540, -180]. */
const stripOf = (lon: number) => Math.floor((lon + 180) / 360);

/** The unrolled path with a vertex added on the geodesic wherever it crosses a strip border (±180° + 360°k). */
function withCrossings(ps: Position[]): Position[] {
  const out: Position[] = [];
  for (const p of ps) {
    const prev = out[out.length - 1];
    if (prev) {
      const [lo, hi] = prev[0] < p[0] ? [prev[0], p[0]] : [p[0], prev[0]];
      const borders: number[] = [];
      for (let b = 360 * Math.ceil((lo - 180) / 360) + 180; b < hi; b += 360) if (b > lo) borders.push(b);
      if (prev[0] > p[0]) borders.reverse();
      for (const b of borders) out.push([b, meridianCrossing(prev, p, b)]);
    }
    out.push(p);
  }
  return out;
}

const outside = (ps: Position[]) => ps.some((p) => p[0] < -180 || p[0] > 180);
const shifted = (ps: Position[], by: number): Position[] => (by === 0 ? ps : ps.map((p) => [p[0] + by, p[1]]));

/** A line cut where it crosses ±180°: its unrolled path split by strip, each part moved back into [-180, 180]. */
function cutLine(line: Position[], repairs: Set<Repair>): Position[][] {
  const path = unroll(line);
  if (!outside(path)) return [line];
  repairs.add('cut');
  const full = withCrossings(path);
  const parts: Position[][] = [];
  let strip = NaN;
  for (let i = 1; i < full.length; i++) {
    const a = full[i - 1]!;
    const b = full[i]!;
    const s = stripOf((a[0] + b[0]) / 2);
    if (s !== strip) {
      parts.push([[a[0] - 360 * s, a[1]]]);
      strip = s;
    }
    parts[parts.length - 1]!.push([b[0] - 360 * s, b[1]]);
  }
  return parts;
}

/** A ring closed (its first position repeated last) and tidied. */
function closedRing(ring: Position[], repairs: Set<Repair>): Position[] {
  const r = tidy(ring, repairs);
  if (r.length && !same(r[0]!, r[r.length - 1]!)) {
    repairs.add('closed');
    r.push([r[0]![0], r[0]![1]]);
  }
  return r;
}

/**
 * The unrolled exterior of a polygon, closed along the pole when it goes once round the Earth. The ring is started
 * where it crosses ±180° (a vertex added there on the geodesic) and moved to run from -180° to 180° (or back), then
 * closed from its end down to the pole, along it every POLE_STEP degrees and up to its start: one polygon spanning
 * exactly [-180, 180], whose seam is the antimeridian. The pole is the one on the side of the ring's mean latitude
 * (Antarctica's is the south pole).
 */
function unrolledExterior(ring: Position[], repairs: Set<Repair>): Position[] {
  const u = unroll(ring);
  const turn = u[u.length - 1]![0] - u[0]![0];
  if (Math.abs(turn) < 180) return u;
  repairs.add('pole');
  const full = withCrossings(u);
  const at = full.findIndex((p) => Number.isInteger((p[0] - 180) / 360));
  const rotated = [...full.slice(at), ...full.slice(1, at + 1).map((p): Position => [p[0] + turn, p[1]])];
  const out = shifted(rotated, (turn > 0 ? -180 : 180) - rotated[0]![0]);
  const pole = ring.reduce((sum, p) => sum + p[1], 0) >= 0 ? 90 : -90;
  const [start, end] = [out[0]![0], out[out.length - 1]![0]];
  const step = turn > 0 ? -POLE_STEP : POLE_STEP;
  out.push([end, pole]);
  for (let lon = end + step; step < 0 ? lon > start : lon < start; lon += step) out.push([lon, pole]);
  out.push([start, pole], [start, out[0]![1]]);
  return out;
}

/** A hole unrolled into the exterior's frame: moved by whole turns so its first position lies in the exterior's span. */
function unrolledHole(hole: Position[], span: [number, number]): Position[] {
  const u = unroll(hole);
  const mid = (span[0] + span[1]) / 2;
  return shifted(u, -360 * Math.round((u[0]![0] - mid) / 360));
}

function span(ps: Position[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const p of ps) {
    lo = Math.min(lo, p[0]);
    hi = Math.max(hi, p[0]);
  }
  return [lo, hi];
}

/**
 * A polygon's rings, cut at ±180° into one or more polygons: unrolled into one continuous frame (the crossings on the
 * geodesic added as vertices), clipped by GEOS to each 360° strip it covers, each piece moved back. An invalid
 * polygon is not cut (a clip of it means nothing): it is kept, wrapped, and reported invalid.
 */
function cutPolygon(geos: Geos, rings: Position[][], repairs: Set<Repair>): Position[][][] {
  const [exterior, ...holes] = rings;
  if (!exterior || exterior.length < 4) return [rings];
  const pending = new Set<Repair>();
  const outer = unrolledExterior(exterior, pending);
  const s = span(outer);
  const unrolled = [outer, ...holes.filter((h) => h.length >= 4).map((h) => unrolledHole(h, s))];
  if (!unrolled.some(outside) && !pending.has('pole')) return [rings];
  const shape: Shape = { type: 'Polygon', coordinates: unrolled.map(withCrossings) };
  if (!unrolled.some(outside)) {
    // Closed along its pole and already within [-180, 180]: nothing to clip.
    for (const r of pending) repairs.add(r);
    repairs.add('cut');
    return [shape.coordinates];
  }
  const g = geos.fromWKB(writeWkb(shape));
  try {
    if (!geos.isValid(g)) return [rings];
    const pieces: Position[][][] = [];
    for (let k = stripOf(s[0] + 1e-9); k <= stripOf(s[1] - 1e-9); k++) {
      // Past the poles: a ring's edge along a pole on the rectangle's side would be rebuilt without its vertices.
      const clip = geos.clipByRect(g, 360 * k - 180, -91, 360 * k + 180, 91);
      try {
        const part = readWkb(geos.toWKB(clip));
        const polys = part.type === 'Polygon' ? [part.coordinates] : part.type === 'MultiPolygon' ? part.coordinates : [];
        for (const p of polys) if (p.length) pieces.push(p.map((r) => shifted(r, -360 * k)));
      } finally {
        geos.destroy(clip);
      }
    }
    for (const r of pending) repairs.add(r);
    repairs.add('cut');
    return pieces;
  } finally {
    geos.destroy(g);
  }
}

/** Exterior counter-clockwise, holes clockwise (planar in lon/lat, as RFC 7946 §3.1.6 means). */
function oriented(rings: Position[][], repairs: Set<Repair>): Position[][] {
  return rings.map((r, i) => {
    const a = signedArea(r);
    if ((i === 0 && a < 0) || (i > 0 && a > 0)) {
      repairs.add('orientation');
      return r.slice().reverse();
    }
    return r;
  });
}

function polygons(geos: Geos, rings: Position[][], repairs: Set<Repair>): Position[][][] {
  // A ring left with fewer than three distinct positions once repeated points are gone (a small island that
  // quantising collapsed: world-atlas has one) covers nothing; it is dropped, and with its exterior the whole polygon.
  // Kept, it made a one-position ring that GEOS refuses and that vector tiles encode as a broken command.
  const all = rings.map((r) => closedRing(r, repairs));
  if (!all.length || all[0]!.length < 4) {
    if (all.length) repairs.add('duplicates');
    return [];
  }
  const closed = all.filter((r) => r.length >= 4);
  if (closed.length < all.length) repairs.add('duplicates');
  const cut = new Set<Repair>();
  const parts = cutPolygon(geos, closed, cut);
  for (const r of cut) repairs.add(r);
  // A cut's pieces come out of GEOS clockwise: orienting them is part of the cut, not a repair of its own.
  return parts.map((p) => oriented(p, cut.has('cut') ? new Set() : repairs));
}

function normaliseShape(geos: Geos, g: Shape, repairs: Set<Repair>): Shape {
  switch (g.type) {
    case 'Point':
      return { type: 'Point', coordinates: g.coordinates && tidy([g.coordinates], repairs)[0]! };
    case 'MultiPoint':
      return { type: 'MultiPoint', coordinates: g.coordinates.flatMap((p) => tidy([p], repairs)) };
    case 'LineString': {
      const parts = cutLine(tidy(g.coordinates, repairs), repairs);
      return parts.length === 1 ? { type: 'LineString', coordinates: parts[0]! } : { type: 'MultiLineString', coordinates: parts };
    }
    case 'MultiLineString':
      return { type: 'MultiLineString', coordinates: g.coordinates.flatMap((l) => cutLine(tidy(l, repairs), repairs)) };
    case 'Polygon': {
      const parts = polygons(geos, g.coordinates, repairs);
      return parts.length === 1 ? { type: 'Polygon', coordinates: parts[0]! } : { type: 'MultiPolygon', coordinates: parts };
    }
    case 'MultiPolygon':
      return { type: 'MultiPolygon', coordinates: g.coordinates.flatMap((p) => polygons(geos, p, repairs)) };
    case 'GeometryCollection':
      return { type: 'GeometryCollection', geometries: g.geometries.map((x) => normaliseShape(geos, x, repairs)) };
  }
}

/** GEOS's reason as a kind to count by: "Ring Self-intersection[3 4]" -> 'self-intersection'. */
export function invalidKind(reason: string): string {
  const what = reason.replace(/\[.*$/, '').trim().toLowerCase();
  return /self-intersection/.test(what) ? 'self-intersection' : what;
}

/** One geometry wrapped, cut, closed along its pole, tidied and checked; the input is not changed. */
export function normaliseGeometry(geos: Geos, g: Shape): Normalised {
  const repairs = new Set<Repair>();
  const geometry = normaliseShape(geos, g, repairs);
  let invalid: string | null = null;
  if (geometry.type !== 'Point' && geometry.type !== 'MultiPoint') {
    try {
      const ptr = geos.fromWKB(writeWkb(geometry));
      try {
        const reason = geos.invalidReason(ptr);
        invalid = reason && invalidKind(reason);
      } finally {
        geos.destroy(ptr);
      }
    } catch (e) {
      // GEOS refuses to build it at all (a ring of two points): that is what is wrong with it.
      invalid = invalidKind((e as Error).message);
    }
  }
  return { geometry: repairs.size ? geometry : g, repairs: [...repairs], invalid };
}
