import * as geodesicModule from 'geographiclib-geodesic';
import { describe, expect, it } from 'vitest';
import { geodesicCircle, midLatitudeDirect } from '../src/geodesic';
import { readWkb, type Position } from '../src/wkb';

/**
 * A point's buffer ring (ST_Buffer of a point; functions.test.ts compares its area with PostGIS's): every vertex within
 * 1e-6 of the radius of where GeographicLib's Direct puts it, whichever way it was found, and the mid-latitude
 * formulas' error as geodesic.ts bounds it.
 */
const lib = ((geodesicModule as unknown as { default?: typeof geodesicModule }).default ?? geodesicModule) as typeof geodesicModule;
const WGS84 = lib.Geodesic.WGS84;
const CAPS = lib.Geodesic.LATITUDE | lib.Geodesic.LONGITUDE | lib.Geodesic.LONG_UNROLL;

let seed = 46;
const rnd = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };

describe('geodesic circles', () => {
  it.each([100, 1000, 10_000, 25_000, 100_000])('a %s m ring lies within 1e-6 of the radius of the geodesics from its centre', (radius) => {
    for (let k = 0; k < 200; k++) {
      const centre: [number, number] = [rnd() * 360 - 180, (rnd() * 2 - 1) * 89];
      const ring = (readWkb(geodesicCircle(centre, radius, 8)) as { coordinates: Position[][] }).coordinates[0]!;
      expect(ring[32]).toEqual(ring[0]);
      expect(ring).toHaveLength(33);
      ring.slice(0, 32).forEach(([x, y], i) => {
        const d = WGS84.Direct(centre[1], centre[0], 90 + i * 11.25, radius, CAPS);
        expect(WGS84.Inverse(d.lat2!, d.lon2!, y, x).s12!).toBeLessThan(1e-6 * radius);
        expect(Math.abs(x - d.lon2!)).toBeLessThan(1e-6); // unrolled as Direct's LONG_UNROLL
      });
    }
  });

  it('the mid-latitude formulas are off by at most 0.06 s³ / (a² cos² φ)', () => {
    for (let k = 0; k < 2000; k++) {
      const lat = (rnd() * 2 - 1) * 80, s = 100 + rnd() * 50_000, az = rnd() * 360, from: [number, number] = [rnd() * 360 - 180, lat];
      const d = WGS84.Direct(lat, from[0], az, s, CAPS);
      const [x, y] = midLatitudeDirect(from, az, s);
      const cos = Math.cos((lat * Math.PI) / 180);
      expect(WGS84.Inverse(d.lat2!, d.lon2!, y, x).s12!).toBeLessThan((0.06 * s ** 3) / (WGS84.a ** 2 * cos * cos) + 1e-9);
    }
  });
});
