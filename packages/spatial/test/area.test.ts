import * as geodesicModule from 'geographiclib-geodesic';
import { describe, expect, it } from 'vitest';
import { authalicRingArea, geodesicRingArea } from '../src/geodesic';
import type { Position } from '../src/wkb';

/**
 * ST_Area's fast path (the authalic sphere, great-circle edges) against GeographicLib's geodesic polygon, which is what
 * PostGIS's geography calls (functions.test.ts holds the PostGIS cases): within 1e-7 wherever it answers, and it
 * declines where its error could be larger (long edges, latitudes past 85°, rings around a pole).
 */
const lib = ((geodesicModule as unknown as { default?: typeof geodesicModule }).default ?? geodesicModule) as typeof geodesicModule;
const WGS84 = lib.Geodesic.WGS84;

/** A seeded generator (mulberry32): the same rings every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A star-shaped ring of `n` vertices about `edge` metres apart around (lon, lat), squashed by `thin` (slivers). */
function ring(rnd: () => number, edge: number): Position[] {
  const lat = (rnd() * 2 - 1) * 84, lon = rnd() * 360 - 180, n = 3 + Math.floor(rnd() * 40);
  const radius = (edge * n) / (2 * Math.PI), thin = rnd() < 0.3 ? 0.02 + rnd() * 0.05 : 1, turn = rnd() * 180;
  const out: Position[] = [];
  for (let j = 0; j < n; j++) {
    const th = (j * 2 * Math.PI) / n, x = Math.cos(th), y = Math.sin(th) * thin;
    const d = WGS84.Direct(lat, lon, (Math.atan2(x, y) * 180) / Math.PI + turn, radius * Math.hypot(x, y) * (0.7 + 0.3 * rnd()));
    out.push([d.lon2!, d.lat2!]);
  }
  return out;
}

describe('ST_Area on the authalic sphere', () => {
  it.each([100, 1000, 2000, 10_000, 50_000])('rings with edges of about %s m: within 1e-7 of GeographicLib where it answers', (edge) => {
    const rnd = random(edge);
    let answered = 0;
    for (let k = 0; k < 300; k++) {
      const r = ring(rnd, edge);
      const fast = authalicRingArea(r, r.length);
      if (fast === null) continue;
      answered++;
      const want = geodesicRingArea(r);
      expect(Math.abs(Math.abs(fast) - want) / want).toBeLessThan(1e-7);
    }
    if (edge <= 2000) expect(answered).toBeGreaterThan(100);
  });

  it('answers for a 10 km buffer ring and declines a 4° square, a ring past 85° and one around the pole', () => {
    const circle = Array.from({ length: 32 }, (_, k): Position => { const d = WGS84.Direct(40, -100, 90 + k * 11.25, 10_000); return [d.lon2!, d.lat2!]; });
    expect(authalicRingArea(circle, circle.length)).not.toBeNull();
    expect(authalicRingArea([[0, 0], [4, 0], [4, 4], [0, 4]], 4)).toBeNull();
    expect(authalicRingArea([[0, 86], [0.01, 86], [0.01, 86.01]], 3)).toBeNull();
    const polar = Array.from({ length: 3600 }, (_, k): Position => [-180 + k / 10, 80]);
    expect(authalicRingArea(polar, polar.length)).toBeNull();
  });
});
