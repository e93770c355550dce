import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGeometry } from '../src';
import { setup, type Ctx } from './helpers';

/**
 * Ingest normalises the detected geometry column for every format (one pass over the Parquet it wrote): the cut and
 * the other repairs counted on the result, invalid shapes kept and counted, text that needs nothing kept as it was.
 */
let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

const FIJI = { type: 'Polygon', coordinates: [[[179, -17], [-179, -17], [-179, -16], [179, -16], [179, -17]]] };
const BOWTIE = { type: 'Polygon', coordinates: [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]] };
const SQUARE = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
const CLOCKWISE = { type: 'Polygon', coordinates: [[[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]] };
const LINE = { type: 'LineString', coordinates: [[170, 10], [-170, 20]] };

const collection = (geoms: object[]) =>
  JSON.stringify({ type: 'FeatureCollection', features: geoms.map((geometry, i) => ({ type: 'Feature', properties: { n: i }, geometry })) });

async function rows(key: string, column: string): Promise<string[]> {
  const r = (await ctx.engine.preview(key, { limit: 100 })) as Record<string, unknown>[];
  return r.map((x) => String(x[column]));
}

describe('geometry normalised at ingest', () => {
  it('cuts, orients and counts a GeoJSON upload; keeps the bowtie and counts it invalid', async () => {
    const src = await ctx.file('g.geojson', collection([FIJI, BOWTIE, SQUARE, CLOCKWISE, LINE]));
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'application/geo+json', key: 'g.parquet' });
    expect(r.geometryRepairs).toEqual({ repaired: 3, repairs: { cut: 2, orientation: 1 }, invalid: { 'self-intersection': 1 } });
    const texts = await rows('g.parquet', '_geojson');
    expect(parseGeometry(texts[0]!)!.type).toBe('MultiPolygon');
    expect(JSON.parse(texts[1]!)).toEqual(BOWTIE);
    expect(texts[2]).toBe(JSON.stringify(SQUARE)); // untouched text
    expect(JSON.parse(texts[3]!).coordinates[0]).toEqual([...CLOCKWISE.coordinates[0]!].reverse());
    expect(parseGeometry(texts[4]!)!.type).toBe('MultiLineString');
  });

  it('wraps a CSV of WKT in 0..360 longitudes and cuts what crosses 180', async () => {
    const csv = 'id,wkt\n1,"POLYGON ((170 10, 190 10, 190 20, 170 20, 170 10))"\n2,"POLYGON ((200 10, 210 10, 210 20, 200 20, 200 10))"\n3,"POINT (350 5)"\n';
    const r = await ctx.engine.ingest({ sourceFile: await ctx.file('w.csv', csv), contentType: 'text/csv', key: 'w.parquet' });
    expect(r.detected.geometry).toBe('wkt');
    expect(r.geometryRepairs).toEqual({ repaired: 3, repairs: { wrapped: 3, cut: 1 }, invalid: {} });
    const texts = await rows('w.parquet', 'wkt');
    expect(texts[0]).toMatch(/^MULTIPOLYGON/);
    expect(texts[1]).toBe('POLYGON ((-160 10, -150 10, -150 20, -160 20, -160 10))');
    expect(texts[2]).toBe('POINT (-10 5)');
  });

  it('reports nothing for geometry that needs nothing', async () => {
    const src = await ctx.file('ok.geojson', collection([SQUARE, { type: 'Point', coordinates: [1, 2] }]));
    const r = await ctx.engine.ingest({ sourceFile: src, contentType: 'application/geo+json', key: 'ok.parquet' });
    expect(r.geometryRepairs).toBeUndefined();
  });
});
