import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIS_POINTS, gdalFeatures, hasGdal, ogrFeaturesText, ogrSummary, threeLayerGeoPackage } from '../../engine/test/gdal-files';
import { STORES, useStudio } from './harness';

/**
 * The Shapefile and streamed FlatGeobuf downloads (#48), read back by GDAL: a zip of one .shp/.shx/.dbf/.prj/.cpg
 * set per geometry type in WGS 84, Shapefile's limits said in columns.csv and notes.txt; a Shapefile written by
 * ogr2ogr, uploaded and downloaded again, is the same features; FlatGeobuf declares EPSG:4326 and its field types.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gis-downloads-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Item = { id: string; metadata: { rowCount: number } };
const LONG_NAME = 'a_column_named_at_length';
/** Points, a line and a polygon with a hole, with a name past 10 bytes and text past 254 bytes. */
const MIXED = JSON.stringify({
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { name: 'p', [LONG_NAME]: 'x'.repeat(300), a_column_named_at_other: 1 }, geometry: { type: 'Point', coordinates: [10, 20] } },
    { type: 'Feature', properties: { name: 'l', [LONG_NAME]: 'ok', a_column_named_at_other: 2 }, geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } },
    // Exterior counter-clockwise as RFC 7946 stores it, the hole clockwise: the Shapefile turns both.
    { type: 'Feature', properties: { name: 'a', [LONG_NAME]: 'ü'.repeat(200), a_column_named_at_other: 3 }, geometry: { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], [[1, 1], [1, 2], [2, 2], [2, 1], [1, 1]]] } },
  ],
});

/** Signed area of a ring (shoelace): negative for clockwise. */
const area = (ring: number[][]) => ring.reduce((a, p, i) => (i ? a + (ring[i - 1]![0]! * p[1]! - p[0]! * ring[i - 1]![1]!) : a), 0) / 2;
/** The rings of the first polygon record of a .shp, in the order and direction they are stored. */
function shpRings(shp: Uint8Array): number[][][] {
  const b = Buffer.from(shp);
  const at = 100 + 8;
  const parts = b.readInt32LE(at + 36);
  const points = b.readInt32LE(at + 40);
  const starts = Array.from({ length: parts }, (_, i) => b.readInt32LE(at + 44 + 4 * i));
  const xy = Array.from({ length: points }, (_, i) => [b.readDoubleLE(at + 44 + 4 * parts + 16 * i), b.readDoubleLE(at + 52 + 4 * parts + 16 * i)]);
  return starts.map((s, i) => xy.slice(s, starts[i + 1] ?? points));
}

describe.skipIf(!hasGdal).each(STORES)('GIS downloads on %s', (kind) => {
  const { ctx } = useStudio(kind);
  const upload = async (body: Buffer | string, contentType: string, query = '') => {
    const res = await ctx.s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=gis${query}`, payload: body, headers: { authorization: ctx.cast.tokens.owner, 'content-type': contentType } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item as Item;
  };
  const download = async (id: string, format: string, name: string) => {
    const res = await ctx.s.app.inject({ method: 'GET', url: `/v1/datasets/${id}/data?format=${format}`, headers: { authorization: ctx.cast.tokens.owner } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const out = path.join(dir, `${kind}-${name}`);
    await writeFile(out, res.rawPayload);
    return { out, res };
  };

  it('a Shapefile zip of points and of polygons, read back by ogrinfo: count, type, EPSG:4326, fields, values, the hole', async () => {
    const body = await readFile(threeLayerGeoPackage(dir));
    const places = await upload(body, 'application/geopackage+sqlite3', '&layer=places');
    const { out, res } = await download(places.id, 'shapefile', 'places.zip');
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toMatch(/\.zip"$/);
    expect(Object.keys(unzipSync(new Uint8Array(res.rawPayload))).sort()).toEqual(['shp', 'shx', 'dbf', 'prj', 'cpg'].map((e) => `features_points.${e}`).sort());
    const [summary, ...others] = ogrSummary(`/vsizip/${out}`);
    expect(others).toHaveLength(0);
    expect(summary).toMatchObject({ name: 'features_points', geometry: 'Point', count: 3, epsg: 'EPSG:4326' });
    expect(summary!.fields).toMatchObject({ name: 'String', visits: 'Integer', score: 'Real', opened: 'Date', seen: 'String' });
    const text = ogrFeaturesText(`/vsizip/${out}`);
    expect(text).toMatch(/name \(String\) = Ferry Building/);
    expect(text).toMatch(/visits \(Integer\) = 120/);
    expect(text).toMatch(/opened \(Date\) = 1898\/07\/13/);
    expect(text).toMatch(/seen \(String\) = 2024-03-01T10:15:00\.000Z/);
    expect(text).toMatch(/POINT \(-122\.3937 37\.7955\)/);

    const areas = await upload(body, 'application/geopackage+sqlite3', '&layer=areas');
    const polygons = await download(areas.id, 'shapefile', 'areas.zip');
    const [shape] = ogrSummary(`/vsizip/${polygons.out}`);
    expect(shape).toMatchObject({ name: 'features_polygons', geometry: 'Polygon', count: 2, epsg: 'EPSG:4326' });
    const park = gdalFeatures(`/vsizip/${polygons.out}`).find((f) => f.properties.name === 'Park')!.geometry!.coordinates as number[][][];
    expect(park, 'the hole kept as a hole').toHaveLength(2);
  });

  it('mixed geometry types: one set each, rings turned as Shapefile wants, columns.csv and notes.txt say the limits', async () => {
    const item = await upload(MIXED, 'application/geo+json');
    const { out, res } = await download(item.id, 'shapefile', 'mixed.zip');
    const files = unzipSync(new Uint8Array(res.rawPayload));
    expect(ogrSummary(`/vsizip/${out}`).map((l) => [l.name, l.geometry, l.count])).toEqual([
      ['features_points', 'Point', 1],
      ['features_lines', 'Line String', 1],
      ['features_polygons', 'Polygon', 1],
    ]);
    const rings = shpRings(files['features_polygons.shp']!);
    expect(rings.map((r) => Math.sign(area(r)))).toEqual([-1, 1]);
    expect(Buffer.from(files['columns.csv']!).toString()).toBe(`column,shapefile_field\n"name","name"\n"${LONG_NAME}","a_column_n"\n"a_column_named_at_other","a_column_1"\n"latitude","latitude"\n"longitude","longitude"\n`);
    const notes = Buffer.from(files['notes.txt']!).toString();
    expect(notes).toContain(`2 value(s) of column "${LONG_NAME}" cut to 254 bytes`);
    const text = ogrFeaturesText(`/vsizip/${out}/features_polygons.shp`);
    // 200 two-byte characters cut at 254 bytes: 127 characters, never half of one.
    expect(text).toContain(`a_column_n (String) = ${'ü'.repeat(127)}\n`);
    expect(text).toMatch(/a_column_1 \(Integer\) = 3/);
  });

  it('Shapefile -> studio -> Shapefile: the same features, attributes and coordinates', async () => {
    const src = path.join(dir, `${kind}-src`);
    execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', src, threeLayerGeoPackage(dir), 'places', '-t_srs', 'EPSG:4326', '-nln', 'places']);
    // GDAL 3.6 writes no .cpg by default (its .dbf says the encoding).
    const zip = zipSync(Object.fromEntries(await Promise.all(['shp', 'shx', 'dbf', 'prj'].map(async (e) => [`places.${e}`, new Uint8Array(await readFile(path.join(src, `places.${e}`)))]))));
    const item = await upload(Buffer.from(zip), 'application/zip');
    expect(item.metadata.rowCount).toBe(3);
    const { out } = await download(item.id, 'shapefile', 'again.zip');
    const before = gdalFeatures(path.join(src, 'places.shp'));
    const after = gdalFeatures(`/vsizip/${out}`);
    expect(after).toHaveLength(before.length);
    for (const f of before) {
      const g = after.find((a) => a.properties.name === f.properties.name)!;
      expect(g.properties).toMatchObject({ name: f.properties.name, visits: f.properties.visits, score: f.properties.score, opened: f.properties.opened });
      expect(g.geometry!.type).toBe(f.geometry!.type);
      (g.geometry!.coordinates as number[]).forEach((v, i) => expect(Math.abs(v - (f.geometry!.coordinates as number[])[i]!)).toBeLessThan(1e-9));
    }
    expect(after.map((f) => f.properties.name).sort()).toEqual(GIS_POINTS.map((p) => p.name).sort());
  });

  it('FlatGeobuf, streamed without an index: read back by ogrinfo with EPSG:4326, typed fields and every feature', async () => {
    const body = await readFile(threeLayerGeoPackage(dir));
    const places = await upload(body, 'application/geopackage+sqlite3', '&layer=places');
    const { out } = await download(places.id, 'flatgeobuf', 'places.fgb');
    const [summary] = ogrSummary(out);
    expect(summary).toMatchObject({ geometry: 'Unknown (any)', count: 3, epsg: 'EPSG:4326' });
    expect(summary!.fields).toMatchObject({ name: 'String', visits: 'Integer64', score: 'Real', seen: 'DateTime' });
    expect(gdalFeatures(out).map((f) => f.geometry!.type)).toEqual(['Point', 'Point', 'Point']);
    expect(ogrFeaturesText(out)).toMatch(/visits \(Integer64\) = 120/);
  });
});
