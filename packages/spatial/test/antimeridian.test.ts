import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseGeometry, wrapLongitude, type Repair } from '../src/antimeridian';
import { area, length } from '../src/geodesic';
import { Geos } from '../src/geos';
import { writeWkb, type Position, type Shape } from '../src/wkb';
import { Oracle, relDiff } from './oracle';

/**
 * The cut against PostGIS's geography on the UNCUT input: geography reads every edge the short way, so its area,
 * length and ST_Covers are what the cut geometry, drawn and measured in plain lon/lat, must still answer.
 */
const o = new Oracle();
let geos: Geos;
beforeAll(async () => {
  await o.start();
  geos = await Geos.load();
});
afterAll(() => o.stop());

const poly = (...rings: Position[][]): Shape => ({ type: 'Polygon', coordinates: rings });
const line = (...ps: Position[]): Shape => ({ type: 'LineString', coordinates: ps });

/** Every ring or line of a geometry, for the edge checks. */
function paths(g: Shape): Position[][] {
  switch (g.type) {
    case 'LineString':
      return [g.coordinates];
    case 'MultiLineString':
    case 'Polygon':
      return g.coordinates;
    case 'MultiPolygon':
      return g.coordinates.flat();
    case 'GeometryCollection':
      return g.geometries.flatMap(paths);
    default:
      return [];
  }
}

/** The widest edge in longitude, and whether every position lies within [-180, 180]. */
function edges(g: Shape): { widest: number; inRange: boolean } {
  let widest = 0;
  let inRange = true;
  for (const p of paths(g)) {
    for (let i = 0; i < p.length; i++) {
      if (p[i]![0] < -180 || p[i]![0] > 180) inRange = false;
      if (i) widest = Math.max(widest, Math.abs(p[i]![0] - p[i - 1]![0]));
    }
  }
  return { widest, inRange };
}

async function postgisArea(g: Shape): Promise<number> {
  return Number(await o.postgis('SELECT ST_Area(ST_GeomFromGeoJSON($1)::geography)', [JSON.stringify(g)]));
}

function geosCovers(g: Shape, p: Position): boolean {
  const a = geos.fromWKB(writeWkb(g));
  const b = geos.point(p[0], p[1]);
  try {
    return geos.predicate('covers', a, b);
  } finally {
    geos.destroy(a);
    geos.destroy(b);
  }
}

const ring = (x0: number, y0: number, x1: number, y1: number): Position[] => [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];

interface Case {
  name: string;
  input: Shape;
  type: Shape['type'];
  repairs: Repair[];
  /** Points whose ST_Covers answer must match PostGIS's on the uncut input. */
  probes?: Position[];
}

const CASES: Case[] = [
  { name: 'a polygon across +-180', input: poly([[179, -17], [-179, -17], [-179, -16], [179, -16], [179, -17]]), type: 'MultiPolygon', repairs: ['cut'], probes: [[179.5, -16.5], [-179.5, -16.5], [0, -16.5], [178.5, -16.5], [-178.5, -16.5]] },
  { name: 'a holed polygon across +-180', input: poly([[170, -20], [-170, -20], [-170, 0], [170, 0], [170, -20]], [[178, -12], [178, -8], [-178, -8], [-178, -12], [178, -12]]), type: 'MultiPolygon', repairs: ['cut'], probes: [[179, -10], [-179, -10], [175, -10], [-175, -10], [0, -10]] },
  { name: 'a ring round the south pole', input: poly([[0, -80], [90, -80], [180, -80], [-90, -80], [0, -80]]), type: 'Polygon', repairs: ['cut', 'pole'], probes: [[0, -85], [45, -89], [-135, -84], [0, -70]] },
  { name: 'a ring round the north pole (clockwise)', input: poly([[0, 70], [-90, 70], [180, 70], [90, 70], [0, 70]]), type: 'Polygon', repairs: ['cut', 'pole'], probes: [[10, 80], [-170, 85], [0, 60]] },
  { name: '0..360 data across 180', input: poly(ring(170, 10, 190, 20)), type: 'MultiPolygon', repairs: ['wrapped', 'cut'], probes: [[175, 15], [-175, 15], [0, 15]] },
  { name: '0..360 data east of 180', input: poly(ring(200, 10, 210, 20)), type: 'Polygon', repairs: ['wrapped'], probes: [[-155, 15], [155, 15]] },
  { name: '0..360 data across 0, not a crossing', input: poly([[350, 0], [10, 0], [10, 5], [350, 5], [350, 0]]), type: 'Polygon', repairs: ['wrapped'], probes: [[0, 2], [180, 2]] },
  { name: 'a clockwise exterior', input: poly([[0, 0], [0, 4], [4, 4], [4, 0], [0, 0]]), type: 'Polygon', repairs: ['orientation'], probes: [[1, 1], [5, 5]] },
  { name: 'an unclosed ring', input: poly([[0, 0], [4, 0], [4, 4], [0, 4]]), type: 'Polygon', repairs: ['closed'], probes: [[1, 1]] },
  { name: 'repeated points', input: poly([[0, 0], [4, 0], [4, 0], [4, 4], [0, 4], [0, 4], [0, 0]]), type: 'Polygon', repairs: ['duplicates'], probes: [[1, 1]] },
  { name: 'a valid polygon', input: poly(ring(0, 0, 4, 4)), type: 'Polygon', repairs: [], probes: [[1, 1], [-1, 1]] },
  { name: 'a line across +-180', input: line([170, 10], [-170, 20]), type: 'MultiLineString', repairs: ['cut'] },
  { name: 'a line across +-180 and back', input: line([170, 10], [-170, 10], [-170, 20], [170, 20]), type: 'MultiLineString', repairs: ['cut'] },
  { name: 'a point in 0..360', input: { type: 'Point', coordinates: [200, 10] }, type: 'Point', repairs: ['wrapped'] },
];

/** PostGIS refuses an unclosed ring: the uncut input it measures is the same ring closed. */
const forPostgis = (g: Shape): Shape => (g.type === 'Polygon' ? poly(...g.coordinates.map((r) => (r[0]![0] === r[r.length - 1]![0] && r[0]![1] === r[r.length - 1]![1] ? r : [...r, r[0]!]))) : g);

describe('normaliseGeometry', () => {
  it.each(CASES)('$name', async ({ input, type, repairs, probes }) => {
    const before = JSON.stringify(input);
    const n = normaliseGeometry(geos, input);
    expect(JSON.stringify(input)).toBe(before); // the input is not changed
    expect(n.geometry.type).toBe(type);
    expect(n.repairs.sort()).toEqual([...repairs].sort());
    expect(n.invalid).toBeNull();
    const e = edges(n.geometry);
    expect(e.inRange).toBe(true);
    expect(e.widest).toBeLessThanOrEqual(180);
    if (type.endsWith('Polygon')) {
      expect(relDiff(area(n.geometry), await postgisArea(forPostgis(input)))).toBeLessThan(1e-9);
      for (const r of paths(n.geometry).map((p, i) => ({ p, i }))) expect(r.p[0]).toEqual(r.p[r.p.length - 1]);
    }
    if (type.endsWith('LineString')) {
      const pg = Number(await o.postgis('SELECT ST_Length(ST_GeomFromGeoJSON($1)::geography)', [JSON.stringify(input)]));
      expect(relDiff(length(n.geometry), pg)).toBeLessThan(1e-9);
    }
    for (const p of probes ?? []) {
      const pg = await o.postgis('SELECT ST_Covers(ST_GeomFromGeoJSON($1)::geography, ST_Point($2, $3, 4326)::geography)', [JSON.stringify(forPostgis(input)), p[0], p[1]]);
      expect([p, geosCovers(n.geometry, [wrapLongitude(p[0]), p[1]])]).toEqual([p, pg]);
    }
  });

  it('keeps a self-intersecting polygon as it is and names why', () => {
    const bowtie = poly([[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]);
    const n = normaliseGeometry(geos, bowtie);
    expect(n).toEqual({ geometry: bowtie, repairs: [], invalid: 'self-intersection' });
  });

  it('returns a geometry that needs nothing as the same object', () => {
    const g = poly(ring(0, 0, 1, 1));
    expect(normaliseGeometry(geos, g).geometry).toBe(g);
  });

  it('is idempotent: a normalised geometry needs nothing more', () => {
    for (const c of CASES) {
      const once = normaliseGeometry(geos, c.input).geometry;
      expect([c.name, normaliseGeometry(geos, once).repairs]).toEqual([c.name, []]);
    }
  });
});

describe('degenerate rings', () => {
  it.each([
    ['an island collapsed to one point beside a square', { type: 'MultiPolygon', coordinates: [[ring(0, 0, 4, 4)], [[[9, 9], [9, 9], [9, 9], [9, 9]]]] }, { type: 'MultiPolygon', parts: 1 }],
    ['a hole collapsed to a back-and-forth', { type: 'Polygon', coordinates: [ring(0, 0, 4, 4), [[1, 1], [2, 2], [2, 2], [1, 1]]] }, { type: 'Polygon', parts: 1 }],
    ['a polygon that is one repeated point', { type: 'Polygon', coordinates: [[[3, 3], [3, 3], [3, 3], [3, 3]]] }, { type: 'MultiPolygon', parts: 0 }],
  ] as [string, Shape, { type: string; parts: number }][])('%s: dropped, counted as repeated points', async (_name, input, expected) => {
    const n = normaliseGeometry(await Geos.load(), input);
    expect(n.geometry.type).toBe(expected.type);
    expect(n.repairs).toContain('duplicates');
    const polys = n.geometry.type === 'Polygon' ? [n.geometry.coordinates] : n.geometry.type === 'MultiPolygon' ? n.geometry.coordinates : [];
    expect(polys).toHaveLength(expected.parts);
    for (const p of polys) for (const r of p) expect(r.length).toBeGreaterThanOrEqual(4);
    if (polys.length) expect(polys[0]!).toHaveLength(1);
  });
});

describe('the World countries sample (world-atlas 110m)', () => {
  const require = createRequire(import.meta.url);
  const topo = JSON.parse(readFileSync(require.resolve('world-atlas/countries-110m.json'), 'utf8'));
  const fc = feature(topo, topo.objects.countries) as unknown as { features: { properties: { name: string }; geometry: Shape }[] };
  it.each(['Fiji', 'Russia', 'Antarctica'])('%s is cut, with the area PostGIS measures on the uncut outline', async (name) => {
    const g = fc.features.find((f) => f.properties.name === name)!.geometry;
    expect(edges(g).widest).toBeGreaterThan(180); // drawn as a band before
    const n = normaliseGeometry(geos, g);
    expect(n.repairs).toContain('cut');
    expect(n.invalid).toBeNull();
    expect(edges(n.geometry).widest).toBeLessThanOrEqual(180);
    expect(relDiff(area(n.geometry), await postgisArea(g))).toBeLessThan(1e-6);
  });
});
