import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIS_POINTS, gdalFeatures, hasGdal, ogrFeaturesText, ogrSummary, placesGeoPackage, threeLayerGeoPackage } from '../../engine/test/gdal-files';
import { STORES, useStudio } from './harness';

/**
 * GIS files as GIS tools write them (#48), with GDAL as the oracle: GeoPackages written by ogr2ogr — one layer in
 * WGS 84, UTM or Web Mercator, and three layers of points, polygons with holes and lines — upload with their
 * attributes' types and their places where GDAL says they are; a file of several layers asks which; hostile files
 * are refused with a 422 saying why.
 */
const GPKG = 'application/geopackage+sqlite3';
const KML = 'application/vnd.google-earth.kml+xml';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gis-files-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Column = { name: string; type: string };
type Item = { id: string; name: string; status: string; metadata: { rowCount: number; columns: Column[]; errorMessage: string | null } };

/** A GeoPackage made by node:sqlite, to break it in ways GDAL never writes. */
function handMade(file: string, setup: string, blob?: Uint8Array) {
  // Made anew: the catalogs' runs share the folder, and the second must not find the first's tables.
  rmSync(file, { force: true });
  const db = new DatabaseSync(file);
  db.exec(setup);
  if (blob) db.prepare('INSERT INTO pts (geom, name) VALUES (?, ?)').run(blob, 'x');
  db.close();
}
const GPKG_TABLES = `CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT, srs_id INTEGER PRIMARY KEY, organization TEXT, organization_coordsys_id INTEGER, definition TEXT, description TEXT);
  INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL);
  CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT, identifier TEXT, description TEXT, last_change TEXT, min_x REAL, min_y REAL, max_x REAL, max_y REAL, srs_id INTEGER);
  CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, geometry_type_name TEXT, srs_id INTEGER, z INTEGER, m INTEGER);
  INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('pts', 'features', 4326);
  INSERT INTO gpkg_geometry_columns VALUES ('pts', 'geom', 'LINESTRING', 4326, 0, 0);
  CREATE TABLE pts (fid INTEGER PRIMARY KEY, geom BLOB, name TEXT);`;
/** The GP header (version 0, no envelope, little-endian, srs 4326) before `wkb`. */
const gp = (wkb: number[]) => new Uint8Array([0x47, 0x50, 0, 1, 0xe6, 0x10, 0, 0, ...wkb]);
/** A LineString that says it has 2^30 points and holds one. */
const LYING_LINE = gp([1, 2, 0, 0, 0, 0, 0, 0, 0x40, ...new Array(16).fill(0)]);

const HOSTILE: [label: string, make: (file: string) => Promise<void>, message: RegExp][] = [
  ['an empty file', (f) => writeFile(f, ''), /The file is empty/],
  ['a file that is not SQLite', (f) => writeFile(f, 'name,lat\nx,1\n'.repeat(200)), /not an SQLite database or it is damaged/],
  ['a truncated GeoPackage', async (f) => writeFile(f, (await readFile(placesGeoPackage(dir, 'EPSG:4326', 'cut.gpkg'))).subarray(0, 6000)), /Could not read the GeoPackage/],
  ['an SQLite file that is not a GeoPackage', async (f) => handMade(f, 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);'), /not a GeoPackage/],
  ['a geometry blob that lies about its size', async (f) => handMade(f, GPKG_TABLES, LYING_LINE), /layer 'pts', feature 1: the geometry blob ends before its coordinates do/],
  ['a geometry blob without the GP header', async (f) => handMade(f, GPKG_TABLES, new Uint8Array([1, 1, 0, 0, 0, ...new Array(16).fill(0)])), /feature 1: the geometry blob does not start with GeoPackage's 'GP' header/],
  ['a layer in a CRS the file does not define', async (f) => handMade(f, `${GPKG_TABLES} UPDATE gpkg_geometry_columns SET srs_id = 9999;`, gp([1, 1, 0, 0, 0, ...new Array(16).fill(0)])), /names CRS 9999, which its gpkg_spatial_ref_sys does not define/],
];

describe.skipIf(!hasGdal).each(STORES)('GIS files on %s', (kind) => {
  const { ctx } = useStudio(kind);
  const upload = (body: Buffer, query = '', url = '/v1/datasets/data', contentType = GPKG) =>
    ctx.s.app.inject({ method: 'POST', url: `${url}?name=gis${query}`, payload: body, headers: { authorization: ctx.cast.tokens.owner, 'content-type': contentType } });
  const rows = async (id: string) =>
    (await ctx.s.app.inject({ method: 'GET', url: `/v1/datasets/${id}/preview?limit=100`, headers: { authorization: ctx.cast.tokens.owner } })).json().items as Record<string, unknown>[];

  it.each([['EPSG:4326'], ['EPSG:32610'], ['EPSG:3857']])('a one-layer GeoPackage in %s: typed attributes, places within 1e-6° of where GDAL puts them', async (srs) => {
    const file = placesGeoPackage(dir, srs);
    const res = await upload(await readFile(file));
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json().item as Item;
    expect(item.metadata.rowCount).toBe(3);
    const types = Object.fromEntries(item.metadata.columns.map((c) => [c.name, c.type]));
    expect(types).toMatchObject({ name: 'STRING', visits: 'BIGINT', score: 'DOUBLE', opened: 'DATE', seen: 'TIMESTAMP' });
    const oracle = gdalFeatures(file);
    const got = await rows(item.id);
    for (const p of GIS_POINTS) {
      const row = got.find((r) => r.name === p.name)!;
      const gdal = oracle.find((f) => f.properties.name === p.name)!.geometry!.coordinates as number[];
      expect(Math.abs(Number(row.longitude) - gdal[0]!)).toBeLessThan(1e-6);
      expect(Math.abs(Number(row.latitude) - gdal[1]!)).toBeLessThan(1e-6);
      expect(Math.abs(Number(row.longitude) - p.lng)).toBeLessThan(1e-6);
      expect(Number(row.visits)).toBe(p.visits);
      expect(Number(row.score)).toBe(p.score);
      expect(String(row.opened)).toContain(p.opened);
    }
  });

  it('a GeoPackage of three layers: 422 listing them without ?layer=, each layer with it, as GDAL reads it', async () => {
    const body = await readFile(threeLayerGeoPackage(dir));
    const refused = await upload(body);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/holds 3 layers: choose one with \?layer= \('areas', 'places', 'roads'\)/);
    for (const [layer, types] of [['areas', ['Polygon', 'MultiPolygon']], ['roads', ['LineString', 'MultiLineString']]] as const) {
      const res = await upload(body, `&layer=${layer}`);
      expect(res.statusCode, res.body).toBe(201);
      const got = await rows((res.json().item as Item).id);
      const oracle = gdalFeatures(path.join(dir, 'three-layers.gpkg'), layer);
      expect(got).toHaveLength(oracle.length);
      for (const f of oracle) {
        const row = got.find((r) => r.name === f.properties.name)!;
        const g = JSON.parse(String(row._geojson)) as { type: string; coordinates: unknown };
        expect(types).toContain(g.type);
        expect(g.type).toBe(f.geometry!.type);
        // GDAL's GeoJSON keeps 7 decimals by default; ours keeps 9. Rings are compared as rings (where they start
        // and which way they run aside): the studio stores exteriors counter-clockwise (RFC 7946), GDAL as written.
        const [a, b] = [flat(canonical(g.coordinates)), flat(canonical(f.geometry!.coordinates))];
        expect(a).toHaveLength(b.length);
        a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThan(1e-6));
        if (g.type === 'Polygon') expect(signedArea((g.coordinates as number[][][])[0]!)).toBeGreaterThan(0);
      }
    }
    const missing = await upload(body, '&layer=rivers');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().message).toMatch(/no feature layer 'rivers'; its layers are 'areas', 'places', 'roads'/);
  });

  it('one dataset a layer from one call, answering their ids; a refused file leaves none', async () => {
    const res = await upload(await readFile(path.join(dir, 'three-layers.gpkg')), '', '/v1/datasets/data/layers');
    expect(res.statusCode, res.body).toBe(201);
    const items = res.json().items as { layer: string; item: Item }[];
    expect(items.map((i) => [i.layer, i.item.name, i.item.metadata.rowCount, i.item.status])).toEqual([
      ['areas', 'gis: areas', 2, 'ready'],
      ['places', 'gis: places', 3, 'ready'],
      ['roads', 'gis: roads', 2, 'ready'],
    ]);
    expect(new Set(items.map((i) => i.item.id)).size).toBe(3);
    const before = (await ctx.s.app.inject({ method: 'GET', url: '/v1/datasets', headers: { authorization: ctx.cast.tokens.owner } })).json().items.length;
    const bad = path.join(dir, 'bad-layers.gpkg');
    handMade(bad, GPKG_TABLES, LYING_LINE);
    const refused = await upload(await readFile(bad), '', '/v1/datasets/data/layers');
    expect(refused.statusCode).toBe(422);
    const after = (await ctx.s.app.inject({ method: 'GET', url: '/v1/datasets', headers: { authorization: ctx.cast.tokens.owner } })).json().items.length;
    expect(after).toBe(before);
  });

  it('a KML with folders, as GDAL writes one a layer: one dataset a folder from the layers call, one folder with ?layer=', async () => {
    const kml = path.join(dir, `${kind}-folders.kml`);
    await rm(kml, { force: true });
    execFileSync('ogr2ogr', ['-f', 'KML', kml, threeLayerGeoPackage(dir)]);
    const body = await readFile(kml);
    const send = (query: string, url?: string) => upload(body, query, url, KML);
    const res = await send('', '/v1/datasets/data/layers');
    expect(res.statusCode, res.body).toBe(201);
    const items = res.json().items as { layer: string; item: Item }[];
    expect(items.map((i) => [i.layer, i.item.name, i.item.metadata.rowCount])).toEqual([
      ['places', 'gis: places', 3],
      ['areas', 'gis: areas', 2],
      ['roads', 'gis: roads', 2],
    ]);
    const roads = await send('&layer=roads');
    expect(roads.statusCode, roads.body).toBe(201);
    expect((await rows((roads.json().item as Item).id)).map((r) => r.Name ?? r.name).sort()).toEqual(['Embarcadero', 'Market St']);
    const whole = await send('');
    expect([whole.statusCode, (whole.json().item as Item).metadata.rowCount], 'without ?layer= every feature, with its folder').toEqual([201, 7]);
    const missing = await send('&layer=rivers');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().message).toMatch(/no folder 'rivers'; its folders are 'places', 'areas', 'roads'/);
  });

  it('a KMZ as GDAL (LIBKML) writes it, a linked document a layer: one dataset a layer, places within 1e-6°', async () => {
    const kmz = path.join(dir, `${kind}-layers.kmz`);
    await rm(kmz, { force: true });
    execFileSync('ogr2ogr', ['-f', 'LIBKML', kmz, threeLayerGeoPackage(dir)]);
    const body = await readFile(kmz);
    const send = (query: string, url?: string) => upload(body, query, url, 'application/vnd.google-earth.kmz');
    const res = await send('', '/v1/datasets/data/layers');
    expect(res.statusCode, res.body).toBe(201);
    const items = res.json().items as { layer: string; item: Item }[];
    expect(items.map((i) => [i.layer, i.item.metadata.rowCount]).sort()).toEqual([['areas', 2], ['places', 3], ['roads', 2]]);
    const places = await rows(items.find((i) => i.layer === 'places')!.item.id);
    for (const f of gdalFeatures(kmz, 'places')) {
      const row = places.find((r) => (r.Name ?? r.name) === (f.properties.Name ?? f.properties.name))!;
      const [lng, lat] = f.geometry!.coordinates as number[];
      expect([Math.abs(Number(row.longitude) - lng!), Math.abs(Number(row.latitude) - lat!)].every((d) => d < 1e-6), JSON.stringify(row)).toBe(true);
      expect(Number(row.visits)).toBe(f.properties.visits);
    }
    const whole = await send('');
    expect([whole.statusCode, (whole.json().item as Item).metadata.rowCount], 'without ?layer= every feature, with its folder').toEqual([201, 7]);
  });

  it('a FlatGeobuf written by GDAL: the types its header declares, its places within 1e-6°', async () => {
    const fgb = path.join(dir, `${kind}-places.fgb`);
    await rm(fgb, { force: true });
    execFileSync('ogr2ogr', ['-f', 'FlatGeobuf', fgb, placesGeoPackage(dir)]);
    const res = await upload(await readFile(fgb), '', undefined, 'application/flatgeobuf');
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json().item as Item;
    expect(Object.fromEntries(item.metadata.columns.map((c) => [c.name, c.type]))).toMatchObject({ name: 'STRING', visits: 'BIGINT', score: 'DOUBLE', seen: 'TIMESTAMP' });
    const got = await rows(item.id);
    for (const p of GIS_POINTS) {
      const row = got.find((r) => r.name === p.name)!;
      expect([Math.abs(Number(row.longitude) - p.lng) < 1e-6, Math.abs(Number(row.latitude) - p.lat) < 1e-6, Number(row.visits)]).toEqual([true, true, p.visits]);
      expect(row.seen === null ? null : new Date(String(row.seen)).toISOString()).toBe(p.seen && new Date(p.seen).toISOString());
    }
  });

  it("GeoPackage -> studio -> GeoPackage: each layer's features, attributes and coordinates as GDAL reads them", async () => {
    const source = threeLayerGeoPackage(dir);
    for (const layer of ['places', 'areas', 'roads']) {
      const item = (await upload(await readFile(source), `&layer=${layer}`)).json().item as Item;
      const res = await ctx.s.app.inject({ method: 'GET', url: `/v1/datasets/${item.id}/data?format=gpkg`, headers: { authorization: ctx.cast.tokens.owner } });
      expect(res.statusCode).toBe(200);
      const out = path.join(dir, `again-${layer}-${item.id}.gpkg`);
      await writeFile(out, res.rawPayload);
      const [before, after] = [gdalFeatures(source, layer), gdalFeatures(out)];
      expect(after).toHaveLength(before.length);
      for (const f of before) {
        const g = after.find((a) => a.properties.name === f.properties.name)!;
        // Every upload derives latitude/longitude columns (a point's, else empty), so the download carries them too.
        const { latitude, longitude, ...attributes } = g.properties;
        expect(attributes).toEqual(f.properties);
        expect([longitude, latitude]).toEqual(layer === 'places' ? f.geometry!.coordinates : [null, null]);
        expect(g.geometry!.type).toBe(f.geometry!.type);
        const [a, b] = [flat(canonical(g.geometry!.coordinates)), flat(canonical(f.geometry!.coordinates))];
        expect(a).toHaveLength(b.length);
        a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThan(1e-6));
      }
    }
  });

  /** Downloads read back by GDAL: the layer's count, geometry type, CRS, fields and values. */
  const DOWNLOADS: [format: string, extension: string, geometry: Record<string, string>, fields: Record<string, string>][] = [
    ['gpkg', 'gpkg', { places: 'Point', areas: 'Unknown (any)' }, { name: 'String', visits: 'Integer64', score: 'Real', opened: 'Date', seen: 'DateTime' }],
    // KML declares no geometry type for a folder: GDAL says Unknown, and each feature's geometry is checked instead;
    // GDAL reads a Placemark's <name> as its Name field, the `name` column folded into it.
    ['kml', 'kml', { places: 'Unknown (any)', areas: 'Unknown (any)' }, { Name: 'String', visits: 'Integer', score: 'Real' }],
  ];
  it.each(DOWNLOADS)('downloads as %s read back by ogrinfo: count, geometry type, EPSG:4326, fields and values', async (format, extension, geometry, fields) => {
    const body = await readFile(threeLayerGeoPackage(dir));
    for (const layer of ['places', 'areas'] as const) {
      const item = (await upload(body, `&layer=${layer}`)).json().item as Item;
      const res = await ctx.s.app.inject({ method: 'GET', url: `/v1/datasets/${item.id}/data?format=${format}`, headers: { authorization: ctx.cast.tokens.owner } });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-disposition']).toMatch(new RegExp(`\\.${extension}"$`));
      const out = path.join(dir, `${layer}-${item.id}.${extension}`);
      await writeFile(out, res.rawPayload);
      const [summary, ...others] = ogrSummary(out);
      expect(others).toHaveLength(0);
      expect(summary!.count).toBe(layer === 'places' ? 3 : 2);
      expect(summary!.epsg).toBe('EPSG:4326');
      if (layer === 'places') {
        expect(summary!.geometry).toBe(geometry.places);
        expect(summary!.fields).toMatchObject(fields);
        const text = ogrFeaturesText(out);
        expect(text).toMatch(/[Nn]ame \(String\) = Ferry Building/);
        expect(text).toMatch(/visits \(Integer6?4?\) = 120/);
        expect(text).toMatch(/score \(Real\) = 4\.75/);
        expect(text).toMatch(/POINT \(-122\.3937 37\.7955/);
        if (format === 'gpkg') expect(text).toMatch(/opened \(Date\) = 1898\/07\/13/);
        expect(gdalFeatures(out).map((f) => f.geometry!.type)).toEqual(['Point', 'Point', 'Point']);
      } else {
        const types = gdalFeatures(out).map((f) => f.geometry!.type).sort();
        expect(types).toEqual(['MultiPolygon', 'Polygon']);
        const park = gdalFeatures(out).find((f) => (f.properties.name ?? f.properties.Name) === 'Park')!.geometry!.coordinates as number[][][];
        expect(park, 'the hole kept').toHaveLength(2);
      }
    }
  });

  it.each(HOSTILE)('%s: 422 with a message, no server path', async (label, make, message) => {
    const file = path.join(dir, `hostile-${label.replaceAll(' ', '-')}.gpkg`);
    await rm(file, { force: true });
    await make(file);
    const res = await upload(await readFile(file));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().message).toMatch(message);
    expect(res.body).not.toMatch(/\/tmp\/|\/work\//);
  });
});

/** Every number of a coordinate array, in order. */
const flat = (c: unknown): number[] => (Array.isArray(c) ? c.flatMap(flat) : [c as number]);
/** Coordinates with each ring in one form (where it starts and which way it runs aside). */
const canonical = (c: unknown): unknown => (isRing(c) ? canonicalRing(c) : Array.isArray(c) ? c.map(canonical) : c);

/** A closed ring of positions (a polygon's), as opposed to a line's positions or a polygon's list of rings. */
function isRing(c: unknown): c is number[][] {
  return Array.isArray(c) && c.length >= 4 && c.every((p) => Array.isArray(p) && typeof p[0] === 'number');
}

/** Twice the ring's signed area in lon/lat: positive when it runs counter-clockwise. */
function signedArea(ring: number[][]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) sum += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return sum;
}

/** A ring counter-clockwise, starting at its least position (by x, then y), closed again: one form per ring. */
function canonicalRing(ring: number[][]): number[][] {
  const open = ring.slice(0, -1);
  const ccw = signedArea(ring) < 0 ? [...open].reverse() : open;
  let start = 0;
  ccw.forEach((p, i) => {
    const q = ccw[start]!;
    if (p[0]! < q[0]! - 1e-9 || (Math.abs(p[0]! - q[0]!) <= 1e-9 && p[1]! < q[1]!)) start = i;
  });
  const turned = [...ccw.slice(start), ...ccw.slice(0, start)];
  return [...turned, turned[0]!];
}
