import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSupportedContentType, detectEncoding, type CsvOverrides } from '../src';
import { setup, type Ctx } from './helpers';
import { GEOJSON_SEQ, GPX, KML, PLACES, arrowIpc, flatgeobuf, geoparquet, kmz, shapefileZip, xlsx, UTM_10N_PROJJSON, LAMBERT_93_PROJJSON } from './format-files';
import proj4 from 'proj4';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.cleanup());

type Row = Record<string, unknown>;
const geometryType = (r: Row) => (JSON.parse(String(r._geojson)) as { type: string }).type;

/** The first place's row: its latitude and longitude within 1e-6° of where it is. */
function expectFerryBuilding(rows: Row[]) {
  const row = rows.find((r) => r.name === 'Ferry Building')!;
  expect(row, JSON.stringify(rows)).toBeDefined();
  expect(Math.abs(Number(row.latitude ?? row.lat) - PLACES[0]!.lat)).toBeLessThan(1e-6);
  expect(Math.abs(Number(row.longitude ?? row.lng) - PLACES[0]!.lng)).toBeLessThan(1e-6);
}

describe('formats read through a reader made for each', () => {
  it.each([
    ['a zipped Shapefile in UTM 10N (reprojected from its .prj)', 'places.zip', 'application/zip', async () => shapefileZip(), 3, ['Point'], { visits: 120 }],
    ['KML with nested folders (kept as a folder column)', 'places.kml', 'application/vnd.google-earth.kml+xml', async () => Buffer.from(KML), 3, ['Point'], { folder: 'Landmarks / Waterfront' }],
    ['KMZ (its doc.kml)', 'places.kmz', 'application/vnd.google-earth.kmz', async () => kmz(), 3, ['Point'], { folder: 'Landmarks / Waterfront' }],
    ['FlatGeobuf', 'places.fgb', 'application/flatgeobuf', async () => flatgeobuf(), 3, ['Point'], { visits: 120 }],
    ['an .xlsx with two sheets (the first one)', 'places.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx, 3, null, { visits: 120, opened: '2000-01-02T09:30:00.000Z' }],
  ] as const)('%s', async (_label, name, contentType, make, rowCount, geometryTypes, ferry) => {
    const key = `formats/${name}.parquet`;
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file(name, await make()), contentType, key });
    expect(result.rowCount).toBe(rowCount);
    const rows = (await ctx.engine.preview(key)) as Row[];
    expectFerryBuilding(rows);
    expect(rows.find((r) => r.name === 'Ferry Building')).toMatchObject(ferry);
    if (geometryTypes) {
      expect(result.detected).toMatchObject({ geometry: '_geojson', latitude: 'latitude', longitude: 'longitude' });
      expect([...new Set(rows.map(geometryType))]).toEqual(geometryTypes);
    } else {
      expect(result.detected).toMatchObject({ latitude: 'lat', longitude: 'lng' });
      expect(result.columns.find((c) => c.name === 'opened')?.type).toBe('TIMESTAMP');
    }
  });

  it.each([
    ['an Arrow IPC file (Feather v2)', 'file', 'none', 'application/vnd.apache.arrow.file'],
    ['an Arrow IPC stream', 'stream', 'none', 'application/vnd.apache.arrow.stream'],
    ['a Feather file with LZ4-compressed buffers (pyarrow\'s default)', 'file', 'lz4', 'application/x-feather'],
    ['an Arrow IPC stream with ZSTD-compressed buffers', 'stream', 'zstd', 'application/vnd.apache.arrow.stream'],
  ] as const)('reads %s with its column types', async (_label, kind, compression, contentType) => {
    const key = `formats/arrow-${kind}-${compression}.parquet`;
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file(`places-${kind}-${compression}.arrow`, arrowIpc(kind, compression)), contentType, key });
    expect(result.rowCount).toBe(3);
    expect(Object.fromEntries(result.columns.map((c) => [c.name, c.type]))).toEqual({ name: 'STRING', visits: 'INTEGER', lat: 'DOUBLE', lng: 'DOUBLE' });
    expect(result.detected).toMatchObject({ latitude: 'lat', longitude: 'lng' });
    const rows = (await ctx.engine.preview(key)) as Row[];
    expectFerryBuilding(rows);
    expect(rows.map((r) => r.visits)).toEqual(PLACES.map((p) => p.visits));
  });

  it('refuses a damaged Arrow file and a Feather v1 file, and leaves no part behind', async () => {
    const cut = arrowIpc('stream').subarray(0, 200);
    for (const [name, body, message] of [
      ['cut.arrows', cut, 'Could not read Arrow IPC'],
      ['old.feather', Buffer.concat([Buffer.from('FEA1'), Buffer.alloc(64)]), 'Could not read Arrow IPC: this is a Feather version 1 file; save it as Feather version 2 (Arrow IPC)'],
    ] as const) {
      const err = (await ctx.engine.ingest({ sourceFile: await ctx.file(name, body), contentType: 'application/vnd.apache.arrow.stream', key: `formats/bad-${name}.parquet` }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(422);
      expect(err.message).toContain(message);
      expect(err.message).not.toContain(ctx.dir);
    }
    expect((await readdir(ctx.dir)).filter((f) => f.includes('-part-'))).toEqual([]);
  });

  it('reads newline-delimited GeoJSON: one Feature a line, with its geometry', async () => {
    const key = 'formats/places-seq.parquet';
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file('places.geojsonl', GEOJSON_SEQ), contentType: 'application/x-ndjson', key });
    expect(result.rowCount).toBe(3);
    expect(result.detected).toMatchObject({ geometry: '_geojson', latitude: 'latitude', longitude: 'longitude' });
    const rows = (await ctx.engine.preview(key)) as Row[];
    expectFerryBuilding(rows);
    expect(rows.map(geometryType)).toEqual(['Point', 'Point', 'Point']);
    expect(rows.map((r) => r.visits)).toEqual(PLACES.map((p) => p.visits));
  });

  it('names the line of newline-delimited GeoJSON whose geometry cannot be read', async () => {
    const lines = GEOJSON_SEQ.trim().split('\n');
    lines[1] = JSON.stringify({ type: 'Feature', properties: { name: 'x', visits: 1 }, geometry: { type: 'LineString', coordinates: [[1, 2]] } });
    const err = (await ctx.engine.ingest({ sourceFile: await ctx.file('bad.geojsonl', lines.join('\n')), contentType: 'application/x-ndjson', key: 'formats/bad-seq.parquet' }).catch((e: unknown) => e)) as Error & { status: number };
    expect([err.status, err.message]).toEqual([422, 'Could not read GeoJSON: feature 2 has an invalid geometry: a LineString needs at least 2 positions']);
  });

  it('reads GeoParquet: its geo-metadata column as geometry, points with their coordinates', async () => {
    const file = `${ctx.dir}/places-geo.parquet`;
    await geoparquet(file);
    const key = 'formats/places-geo.parquet';
    const result = await ctx.engine.ingest({ sourceFile: file, contentType: 'application/vnd.apache.parquet', key });
    expect(result.rowCount).toBe(4);
    expect(result.detected).toMatchObject({ geometry: 'geometry', latitude: 'latitude', longitude: 'longitude' });
    expect(result.columns.find((c) => c.name === 'geometry')?.type).toBe('GEOMETRY');
    const rows = (await ctx.engine.preview(key)) as Row[];
    expectFerryBuilding(rows);
    expect(String(rows.find((r) => r.name === 'Ferry Building block')!.geometry)).toMatch(/^POLYGON \(\(/);
    expect(rows.find((r) => r.name === 'Ferry Building block')!.latitude).toBeNull();
  });

  // A file in metres, as geopandas writes one left in its local CRS: proj4 (as the test's own reference) writes the
  // coordinates; the first point must land in UTM zone 10N's range for San Francisco, so the file really is in metres.
  const UTM_10N = '+proj=utm +zone=10 +datum=WGS84 +units=m +no_defs';
  const MERCATOR = 'EPSG:3857';
  it.each([
    ['a PROJJSON naming WGS 84 / UTM zone 10N (EPSG:32610)', UTM_10N_PROJJSON, UTM_10N, [552_000, 554_000]],
    ['a PROJJSON naming Web Mercator (EPSG:3857)', { type: 'ProjectedCRS', name: 'WGS 84 / Pseudo-Mercator', id: { authority: 'EPSG', code: 3857 } }, MERCATOR, [-13_626_000, -13_624_000]],
  ] as const)('reads GeoParquet in a projected CRS, %s, as longitude/latitude', async (_label, crs, definition, xRange) => {
    const file = `${ctx.dir}/places-projected-${xRange[0]}.parquet`;
    const project = (lng: number, lat: number) => proj4('EPSG:4326', definition, [lng, lat]);
    const ferry = project(PLACES[0]!.lng, PLACES[0]!.lat);
    expect(ferry[0]).toBeGreaterThan(xRange[0]);
    expect(ferry[0]).toBeLessThan(xRange[1]);
    await geoparquet(file, crs, project);
    const key = `formats/projected-${xRange[0]}.parquet`;
    const result = await ctx.engine.ingest({ sourceFile: file, contentType: 'application/vnd.apache.parquet', key });
    expect(result.rowCount).toBe(4);
    const rows = (await ctx.engine.preview(key)) as Row[];
    expectFerryBuilding(rows);
    const block = String(rows.find((r) => r.name === 'Ferry Building block')!.geometry);
    const corner = /^POLYGON \(\((\S+) (\S+),/.exec(block)!;
    expect(Math.abs(Number(corner[1]) - (PLACES[0]!.lng - 0.001))).toBeLessThan(1e-6);
    expect(Math.abs(Number(corner[2]) - (PLACES[0]!.lat - 0.001))).toBeLessThan(1e-6);
  });

  it('refuses GeoParquet in a projected CRS it has no transform for, by its column and CRS', async () => {
    const file = `${ctx.dir}/places-lambert.parquet`;
    await geoparquet(file, LAMBERT_93_PROJJSON);
    const err = (await ctx.engine.ingest({ sourceFile: file, contentType: 'application/vnd.apache.parquet', key: 'formats/lambert.parquet' }).catch((e: unknown) => e)) as Error & { status: number };
    expect([err.status, err.message]).toEqual([422, "Could not read GeoParquet: column 'geometry' is in RGF93 v1 / Lambert-93 (EPSG:2154), not longitude/latitude (EPSG:4326), and the studio has no transform from it; reproject it before uploading"]);
  });

  it('reads a GPX track as one line with its points, and its waypoint', async () => {
    const key = 'formats/walk.parquet';
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file('walk.gpx', GPX), contentType: 'application/gpx+xml', key });
    expect(result.rowCount).toBe(2);
    const rows = (await ctx.engine.preview(key)) as Row[];
    const track = rows.find((r) => r.name === 'Morning walk')!;
    const line = JSON.parse(String(track._geojson)) as { type: string; coordinates: number[][] };
    expect(line.type).toBe('LineString');
    expect(line.coordinates.map(([lng, lat]) => [lng, lat])).toEqual(PLACES.map((p) => [p.lng, p.lat]));
    const start = rows.find((r) => r.name === 'Start')!;
    expect([start.latitude, start.longitude]).toEqual([PLACES[0]!.lat, PLACES[0]!.lng]);
  });

  it.each([
    ['a zip with no Shapefile in it', 'no-shp.zip', 'application/zip', () => shapefileZip({ withShp: false }), 'The zip holds no Shapefile (.shp)'],
    ['a "zip" that is not one', 'fake.zip', 'application/zip', () => Buffer.from('just text'), 'Could not read the zip: the file is not a zip archive or it is damaged'],
    ['KML cut short', 'cut.kml', 'application/vnd.google-earth.kml+xml', () => Buffer.from(KML.slice(0, 200)), 'Could not read KML'],
    ['XML that is not KML', 'other.kml', 'application/vnd.google-earth.kml+xml', () => Buffer.from('<?xml version="1.0"?><svg></svg>'), 'Could not read KML: the document is not KML (no <kml> root)'],
    ['a KMZ with no KML inside', 'empty.kmz', 'application/vnd.google-earth.kmz', () => shapefileZip(), 'The KMZ holds no KML document'],
    ['a damaged workbook', 'bad.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', () => Buffer.from('PK not really'), 'Could not read the Excel workbook'],
    ['text sent as FlatGeobuf', 'bad.fgb', 'application/flatgeobuf', () => Buffer.from('not a flatgeobuf file at all'), 'Could not read FlatGeobuf'],
  ])('refuses %s with a 422 that says why, and no server path', async (_label, name, contentType, make, message) => {
    const file = await ctx.file(name, make());
    const err = await ctx.engine.ingest({ sourceFile: file, contentType, key: `formats/bad-${name}.parquet` }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 422 });
    expect((err as Error).message).toContain(message);
    expect((err as Error).message).not.toContain(ctx.dir);
  });

  it.each(['application/zip', 'application/gpx+xml', 'application/flatgeobuf', 'application/vnd.google-earth.kmz'])('accepts %s before reading the body', (type) => {
    expect(() => assertSupportedContentType(type)).not.toThrow();
  });
});

describe('strict CSV: a malformed file names its line and reason, a well-formed one of any common dialect reads', () => {
  it.each([
    ['an unterminated quote', 'a,b\n1,2\n3,"unterminated\n4,5\n', 'Could not read CSV at line 3: a quoted value is never closed (unterminated quote)'],
    ['an unterminated quote on the last line', 'a,b\n1,2\n3,"unterminated\n', 'Could not read CSV at line 3: a quoted value is never closed (unterminated quote)'],
    ['a row with a column too many', 'a,b\n1,2\n3,4,5\n6,7\n', 'Could not read CSV at line 3: expected 2 columns but found 3'],
    ['a row with a column too few', 'a,b,c\n1,2,3\n4,5\n6,7,8\n', 'Could not read CSV at line 3: expected 3 columns but found 2'],
    ['binary bytes named .csv', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3, 0xff, 0xfe, 0, 0, 10]), 'Could not read CSV: the file is binary, not text'],
  ])('refuses %s', async (_label, body, message) => {
    const file = await ctx.file(`broken-${Math.random().toString(36).slice(2)}.csv`, body);
    const err = (await ctx.engine.ingest({ sourceFile: file, contentType: 'text/csv', key: 'strict/broken.parquet' }).catch((e: unknown) => e)) as Error & { status: number; details?: string };
    expect([err.status, err.message]).toEqual([422, message]);
    expect(`${err.message} ${err.details ?? ''}`).not.toContain(ctx.dir);
  });

  it.each([
    ['commas with quoted commas and quotes', 'name,note\n"Doe, Jane","said ""hi"""\nBo,plain\n', [{ name: 'Doe, Jane', note: 'said "hi"' }, { name: 'Bo', note: 'plain' }]],
    ['semicolons (European exports)', 'name;price\nA;1.5\nB;2\n', [{ name: 'A', price: 1.5 }, { name: 'B', price: 2 }]],
    ['Windows line endings', 'name,n\r\nA,1\r\nB,2\r\n', [{ name: 'A', n: 1 }, { name: 'B', n: 2 }]],
    ['a quoted value over two lines', 'name,address\nA,"1 Main St\nSpringfield"\n', [{ name: 'A', address: '1 Main St\nSpringfield' }]],
    ['one column', 'name\nA\nB\n', [{ name: 'A' }, { name: 'B' }]],
  ])('reads %s', async (_label, body, rows) => {
    const key = `strict/${Math.random().toString(36).slice(2)}.parquet`;
    await ctx.engine.ingest({ sourceFile: await ctx.file(`ok-${Math.random().toString(36).slice(2)}.csv`, body), contentType: 'text/csv', key });
    expect(await ctx.engine.preview(key)).toEqual(rows);
  });
});

describe('what the user sets on upload wins over what is detected (CSV and TSV)', () => {
  const read = async (body: string | Buffer, csv: CsvOverrides, contentType = 'text/csv') => {
    const key = `overrides/${Math.random().toString(36).slice(2)}.parquet`;
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file(`o-${Math.random().toString(36).slice(2)}.csv`, body), contentType, key, csv });
    return { result, rows: await ctx.engine.preview(key) };
  };
  const LATIN1 = Buffer.from('name;city\nRené;Zürich\nAoife;Dún Laoghaire\n', 'latin1');

  it('detects a Latin-1 export (accented letters that are not UTF-8) and stores it as UTF-8', async () => {
    expect(detectEncoding(LATIN1)).toBe('latin-1');
    expect((await read(LATIN1, {})).rows).toEqual([{ name: 'René', city: 'Zürich' }, { name: 'Aoife', city: 'Dún Laoghaire' }]);
  });

  it('reads UTF-16 (by its byte-order mark) and UTF-8 with one', async () => {
    const text = 'name,city\nRené,Zürich\n';
    expect((await read(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), {})).rows).toEqual([{ name: 'René', city: 'Zürich' }]);
    expect((await read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), {})).rows).toEqual([{ name: 'René', city: 'Zürich' }]);
  });

  it.each([
    ['the encoding, chosen', LATIN1, { encoding: 'latin-1' }, [{ name: 'René', city: 'Zürich' }, { name: 'Aoife', city: 'Dún Laoghaire' }]],
    ['the delimiter: a pipe file whose header has a comma in a name', 'id|"a, b"\n1|x,y\n', { delimiter: '|' }, [{ id: 1, 'a, b': 'x,y' }]],
    ['no header line: every line is data', '1,2\n3,4\n', { header: false }, [{ column0: 1, column1: 2 }, { column0: 3, column1: 4 }]],
    ['a column type: store codes that look like numbers kept as text', 'code,n\n7,1\n12,2\n', { columnTypes: { code: 'STRING' } }, [{ code: '7', n: 1 }, { code: '12', n: 2 }]],
    ['a column type: a count read as DOUBLE', 'zip,n\n02134,1\n', { columnTypes: { n: 'DOUBLE' } }, [{ zip: '02134', n: 1 }]],
  ] as const)('%s', async (_label, body, csv, rows) => {
    const { result, rows: got } = await read(body, csv as CsvOverrides);
    expect(got).toEqual(rows);
    if ((csv as CsvOverrides).columnTypes?.n === 'DOUBLE') expect(result.columns.find((c) => c.name === 'n')?.type).toBe('DOUBLE');
  });

  it.each([
    ['a column the file does not have', 'a,b\n1,2\n', { columnTypes: { c: 'DOUBLE' } }, 'Column types name a column the file does not have: c'],
    ['a type its values do not fit', 'a,b\n1,2\nx,3\n', { columnTypes: { a: 'INTEGER' } }, "Could not read CSV at line 3, column 'a': expected INTEGER but found 'x'"],
  ] as const)('refuses %s', async (_label, body, csv, message) => {
    const err = (await read(body, csv as CsvOverrides).catch((e: unknown) => e)) as Error & { status: number };
    expect([err.status, err.message]).toEqual([422, message]);
  });
});

describe('GeoJSON geometries are checked: the first unreadable one is named by its feature number', () => {
  const collection = (...geometries: unknown[]) =>
    JSON.stringify({ type: 'FeatureCollection', features: geometries.map((geometry, i) => ({ type: 'Feature', properties: { n: i + 1 }, geometry })) });
  const point = { type: 'Point', coordinates: [1, 2] };
  it.each([
    ['a Polygon ring of 2 positions', [point, { type: 'Polygon', coordinates: [[[1, 2], [3, 4]]] }], 'feature 2 has an invalid geometry: each ring of a Polygon needs at least 4 positions'],
    ['a LineString of one position', [point, point, { type: 'LineString', coordinates: [[1, 2]] }], 'feature 3 has an invalid geometry: a LineString needs at least 2 positions'],
    ['a Point of text', [{ type: 'Point', coordinates: ['a', 'b'] }], 'feature 1 has an invalid geometry: a Point needs two numeric coordinates'],
    ['an unknown type', [point, { type: 'Circle', coordinates: [1, 2] }], 'feature 2 has an invalid geometry: unknown geometry type Circle'],
    ['a MultiPolygon with a short ring', [{ type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[0, 0], [1, 1]]]] }], 'feature 1 has an invalid geometry: each ring of a MultiPolygon needs at least 4 positions'],
  ])('refuses %s', async (_label, geometries, reason) => {
    const file = await ctx.file(`g-${Math.random().toString(36).slice(2)}.geojson`, collection(...geometries));
    const err = (await ctx.engine.ingest({ sourceFile: file, contentType: 'application/geo+json', key: 'geo/bad.parquet' }).catch((e: unknown) => e)) as Error & { status: number };
    expect([err.status, err.message]).toEqual([422, `Could not read GeoJSON: ${reason}`]);
  });

  it('reads valid geometries of every type, and features without one', async () => {
    const file = await ctx.file('all-types.geojson', collection(
      point,
      { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] },
      { type: 'LineString', coordinates: [[1, 2], [3, 4]] },
      { type: 'MultiLineString', coordinates: [[[1, 2], [3, 4]]] },
      { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] },
      { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]]] },
      { type: 'GeometryCollection', geometries: [point] },
      null,
    ));
    const result = await ctx.engine.ingest({ sourceFile: file, contentType: 'application/geo+json', key: 'geo/all.parquet' });
    expect(result.rowCount).toBe(8);
  });
});

describe('"skip bad rows": malformed lines left out and counted, when the user asks', () => {
  it.each([
    ['a row too wide', 'a,b\n1,2\n3,4,5\n6,7\n', [{ a: 1, b: 2 }, { a: 6, b: 7 }], 1],
    // DuckDB's sniffer cannot read a sample with an open quote: the columns stay text.
    ['a row too wide and a quote never closed', 'a,b\n1,2\n3,4,5\n6,7\nx,"open\n', [{ a: '1', b: '2' }, { a: '6', b: '7' }], 2],
    ['a well-formed file', 'a,b\n1,2\n', [{ a: 1, b: 2 }], 0],
  ])('%s', async (_label, body, rows, rejected) => {
    const key = `skip/${Math.random().toString(36).slice(2)}.parquet`;
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file(`skip-${Math.random().toString(36).slice(2)}.csv`, body), contentType: 'text/csv', key, skipBadRows: true });
    expect([result.rowCount, result.rejectedRows]).toEqual([rows.length, rejected]);
    expect(await ctx.engine.preview(key)).toEqual(rows);
  });

  it('counts each ingestion on its own (the reject tables do not outlive it on a pooled connection)', async () => {
    const body = 'a,b\n1,2\n3,4,5\n';
    for (let i = 0; i < 3; i++) {
      const result = await ctx.engine.ingest({ sourceFile: await ctx.file(`again-${i}.csv`, body), contentType: 'text/csv', key: `skip/again-${i}.parquet`, skipBadRows: true });
      expect(result.rejectedRows).toBe(1);
    }
  });

  it('says nothing of rejected rows when not asked', async () => {
    const result = await ctx.engine.ingest({ sourceFile: await ctx.file('plain.csv', 'a\n1\n'), contentType: 'text/csv', key: 'skip/plain.parquet' });
    expect(result.rejectedRows).toBeUndefined();
  });
});
