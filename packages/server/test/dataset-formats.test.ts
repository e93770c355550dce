import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { deserialize } from 'flatgeobuf/lib/mjs/geojson.js';
import type { Feature, FeatureCollection, Point } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGeometry } from '@studio/engine';
import { GEOJSON_SEQ, GPX, KML, PLACES, arrowIpc, flatgeobuf, geoparquet, shapefileZip, xlsx } from '../../engine/test/format-files';
import { STORES, useStudio } from './harness';

/**
 * Every format in, every format out (#16): each upload of the same three places becomes a ready dataset
 * of the right size whose Ferry Building is where it is (within 1e-6°), and each download of it — CSV,
 * GeoJSON, GeoParquet, Arrow, FlatGeobuf — says the same; the geographic downloads are uploaded again and
 * still do.
 */
type Row = Record<string, unknown>;
const FERRY = PLACES[0]!;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'dataset-formats-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const CSV = `name,visits,lat,lng\n${PLACES.map((p) => `${p.name},${p.visits},${p.lat},${p.lng}`).join('\n')}\n`;
const GEOJSON = JSON.stringify({ type: 'FeatureCollection', features: GEOJSON_SEQ.trim().split('\n').map((l) => JSON.parse(l)) });

const UPLOADS: [label: string, contentType: string, body: () => Promise<Buffer>, rows: number, ferryName?: string][] = [
  ['CSV with latitude/longitude', 'text/csv', async () => Buffer.from(CSV), 3],
  ['GeoJSON', 'application/geo+json', async () => Buffer.from(GEOJSON), 3],
  ['newline-delimited GeoJSON', 'application/x-ndjson', async () => Buffer.from(GEOJSON_SEQ), 3],
  // RFC 8142: each Feature after a record separator (ogr2ogr -lco RS=YES).
  ['a GeoJSON text sequence', 'application/geo+json-seq', async () => Buffer.from(GEOJSON_SEQ.trim().split('\n').map((l) => `\x1e${l}\n`).join('')), 3],
  ['GeoParquet (points and a polygon)', 'application/vnd.apache.parquet', async () => {
    const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}.parquet`);
    await geoparquet(file);
    return (await import('node:fs/promises')).readFile(file);
  }, 4],
  ['Arrow IPC (Feather v2, LZ4)', 'application/vnd.apache.arrow.file', async () => arrowIpc('file', 'lz4'), 3],
  ['a zipped Shapefile in UTM 10N', 'application/zip', async () => shapefileZip(), 3],
  ['KML with folders', 'application/vnd.google-earth.kml+xml', async () => Buffer.from(KML), 3],
  // Its waypoint at the Ferry Building is named Start.
  ['GPX (a track and a waypoint)', 'application/gpx+xml', async () => Buffer.from(GPX), 2, 'Start'],
  ['FlatGeobuf', 'application/flatgeobuf', async () => flatgeobuf(), 3],
  ['Excel .xlsx (its first sheet)', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx, 3],
];

/** The first Point's [lng, lat] among the features named `name`. */
function pointOf(features: { properties: Row | null; geometry: unknown }[], name: string): number[] | undefined {
  const f = features.find((x) => x.properties?.name === name && (x.geometry as Point | null)?.type === 'Point');
  return (f?.geometry as Point | undefined)?.coordinates;
}

/** The row's [lng, lat] from whichever columns hold them. */
const rowPoint = (r: Row | undefined) => (r ? [Number(r.longitude ?? r.lng), Number(r.latitude ?? r.lat)] : undefined);

const expectFerry = (lngLat: number[] | undefined) => {
  expect(lngLat, 'the Ferry Building').toBeDefined();
  expect(Math.abs(lngLat![0]! - FERRY.lng)).toBeLessThan(1e-6);
  expect(Math.abs(lngLat![1]! - FERRY.lat)).toBeLessThan(1e-6);
};

describe.each(STORES)('dataset formats on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const upload = (name: string, contentType: string, body: Buffer) =>
    ctx.s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${encodeURIComponent(name)}`, payload: body, headers: { authorization: ctx.cast.tokens.owner, 'content-type': contentType } });
  /** Reads a downloaded Parquet file with the studio's own DuckDB: its rows and its `geo` metadata. */
  const readParquet = async (bytes: Buffer) => {
    const file = path.join(dir, `out-${Math.random().toString(36).slice(2)}.parquet`);
    await writeFile(file, bytes);
    const geo = await ctx.s.services.engine.query(`SELECT decode(value) AS v FROM parquet_kv_metadata('${file}') WHERE CAST(key AS VARCHAR) = 'geo'`);
    const meta = geo[0] ? (JSON.parse(String(geo[0].v)) as { version: string; primary_column: string; columns: Record<string, { encoding: string; covering?: { bbox: { xmin: string[] } } }> }) : null;
    const rows = await ctx.s.services.engine.query(
      meta ? `SELECT * REPLACE (ST_AsText("${meta.primary_column}") AS "${meta.primary_column}") FROM read_parquet('${file}')` : `SELECT * FROM read_parquet('${file}')`,
    );
    return { rows, meta };
  };

  it.each(UPLOADS)('%s: in, and out in every format', async (label, contentType, body, rowCount, ferryName = FERRY.name) => {
    const res = await upload(label, contentType, await body());
    expect(res.statusCode, res.body).toBe(201);
    const ds = res.json().item;
    expect([ds.status, ds.metadata.rowCount]).toEqual(['ready', rowCount]);
    const get = (query: string, headers: Record<string, string> = {}) => as('owner', 'GET', `/v1/datasets/${ds.id}/data${query}`, undefined, headers);

    // CSV, the default.
    const csv = await get('');
    expect(csv.headers['content-type']).toContain('text/csv');
    const csvFile = path.join(dir, `out-${ds.id}.csv`);
    await writeFile(csvFile, csv.rawPayload);
    const csvRows = await ctx.s.services.engine.query(`SELECT * FROM read_csv('${csvFile}')`);
    expect(csvRows).toHaveLength(rowCount);
    expectFerry(rowPoint(csvRows.find((r) => r.name === ferryName)));

    // GeoJSON, by ?format= and by Accept alike.
    for (const geojson of [await get('?format=geojson'), await get('', { accept: 'application/geo+json' })]) {
      expect(geojson.statusCode).toBe(200);
      expect(geojson.headers['content-type']).toBe('application/geo+json');
      expect(geojson.headers['content-disposition']).toContain('.geojson"');
      const fc = geojson.json() as FeatureCollection;
      expect(fc.features).toHaveLength(rowCount);
      expectFerry(pointOf(fc.features, ferryName));
    }

    // GeoParquet: a WKB geometry column named in its `geo` metadata.
    const parquet = await get('', { accept: 'application/vnd.apache.parquet' });
    expect([parquet.statusCode, parquet.headers['content-type']]).toEqual([200, 'application/vnd.apache.parquet']);
    const { rows: pqRows, meta } = await readParquet(parquet.rawPayload);
    expect(pqRows).toHaveLength(rowCount);
    expect(meta?.columns[meta.primary_column]?.encoding).toBe('WKB');
    // GeoParquet 1.1: a bbox covering column beside the geometry, which an upload of the file does not keep as data.
    expect(meta?.version).toBe('1.1.0');
    const bboxColumn = `${meta!.primary_column}_bbox`;
    expect(meta?.columns[meta.primary_column]?.covering?.bbox.xmin).toEqual([bboxColumn, 'xmin']);
    expect(Object.keys(pqRows[0]!)).toContain(bboxColumn);
    const pqFerry = pqRows.find((r) => r.name === ferryName)!;
    expectFerry((parseGeometry(String(pqFerry[meta!.primary_column])) as Point).coordinates);

    // Arrow IPC stream.
    const arrow = await get('?format=arrow');
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.numRows).toBe(rowCount);
    expectFerry(rowPoint(table.toArray().map((r) => r.toJSON() as Row).find((r) => r.name === ferryName)));

    // FlatGeobuf.
    const fgb = await get('?format=flatgeobuf');
    expect([fgb.statusCode, fgb.headers['content-type']]).toEqual([200, 'application/flatgeobuf']);
    const fgbFeatures: Feature[] = [];
    for await (const f of deserialize(new Uint8Array(fgb.rawPayload))) fgbFeatures.push(f as Feature);
    expect(fgbFeatures).toHaveLength(rowCount);
    expectFerry(pointOf(fgbFeatures, ferryName));

    // Each geographic download, uploaded again, is the same data.
    for (const [again, type, bytes] of [
      ['GeoJSON', 'application/geo+json', (await get('?format=geojson')).rawPayload],
      ['GeoParquet', 'application/vnd.apache.parquet', parquet.rawPayload],
      ['FlatGeobuf', 'application/flatgeobuf', fgb.rawPayload],
      ['Arrow', 'application/vnd.apache.arrow.stream', arrow.rawPayload],
    ] as const) {
      const back = await upload(`${label} via ${again}`, type, bytes);
      expect(back.statusCode, `${again}: ${back.body}`).toBe(201);
      expect(back.json().item.metadata.rowCount, again).toBe(rowCount);
      expect((back.json().item.metadata.columns as { name: string }[]).map((c) => c.name), again).not.toContain(bboxColumn);
      const rows = (await as('owner', 'GET', `/v1/datasets/${back.json().item.id}/preview`)).json().items as Row[];
      expectFerry(rowPoint(rows.find((r) => r.name === ferryName)));
    }
  });

  it('reads a CSV as the user says: delimiter, header, encoding and column types override what is detected', async () => {
    const body = Buffer.from('7|René|Zürich\n12|Aoife|Dún Laoghaire\n', 'latin1');
    const types = encodeURIComponent(JSON.stringify({ column0: 'STRING' }));
    const res = await ctx.s.app.inject({
      method: 'POST',
      url: `/v1/datasets/data?name=Overrides&delimiter=${encodeURIComponent('|')}&header=false&encoding=latin-1&columnTypes=${types}`,
      payload: body,
      headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const ds = res.json().item;
    expect(ds.metadata.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([['column0', 'STRING'], ['column1', 'STRING'], ['column2', 'STRING']]);
    const rows = (await as('owner', 'GET', `/v1/datasets/${ds.id}/preview`)).json().items;
    expect(rows).toEqual([{ column0: '7', column1: 'René', column2: 'Zürich' }, { column0: '12', column1: 'Aoife', column2: 'Dún Laoghaire' }]);
  });

  it.each([
    ['delimiter=x', 'delimiter must be one of , ; | or a tab'],
    ['encoding=ebcdic', 'encoding must be utf-8, utf-16 or latin-1'],
    [`columnTypes=${encodeURIComponent('{zip')}`, 'columnTypes must be a JSON object such as {"zip": "STRING"}'],
    [`columnTypes=${encodeURIComponent('{"zip":"TEXT"}')}`, 'column types are STRING, INTEGER, BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP'],
    [`columnTypes=${encodeURIComponent('{"zap":"STRING"}')}`, 'Column types name a column the file does not have: zap'],
  ])('refuses ?%s with its reason and keeps no dataset', async (query, message) => {
    const before = (await as('owner', 'GET', '/v1/datasets')).json().items.length;
    const res = await ctx.s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=Refused&${query}`, payload: 'zip,n\n02134,1\n', headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(JSON.stringify(message).slice(1, -1));
    expect((await as('owner', 'GET', '/v1/datasets')).json().items.length).toBe(before);
  });

  it('keeps the lines a "skip bad rows" upload left out, for download, and says so when there are none', async () => {
    const res = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Skipped&skipBadRows=true', payload: 'name,visits\nA,1\nB,2,oops\nC,3\n"D,4\n', headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } });
    expect(res.statusCode, res.body).toBe(201);
    const ds = res.json().item;
    expect(ds.metadata.rejectedRows).toBe(2);
    const lines = await as('owner', 'GET', `/v1/datasets/${ds.id}/rejected-lines`);
    expect(lines.statusCode).toBe(200);
    expect(lines.headers['content-disposition']).toBe('attachment; filename="Skipped-rejected-lines.csv"');
    const file = path.join(dir, `rejected-${ds.id}.csv`);
    await writeFile(file, lines.rawPayload);
    const rows = await ctx.s.services.engine.query(`SELECT line, error, text FROM read_csv('${file}', all_varchar = true) ORDER BY CAST(line AS INTEGER)`);
    expect(rows.map((r) => [Number(r.line), r.error])).toEqual([[3, 'TOO MANY COLUMNS'], [5, 'UNQUOTED VALUE']]);
    expect(rows[0]!.text).toBe('B,2,oops');
    // Someone who cannot read the dataset cannot read its rejected lines either.
    expect((await as('outsider', 'GET', `/v1/datasets/${ds.id}/rejected-lines`)).statusCode).toBe(404);
    const clean = (await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Clean', payload: 'name\nA\n', headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } })).json().item;
    const none = await as('owner', 'GET', `/v1/datasets/${clean.id}/rejected-lines`);
    expect([none.statusCode, none.json().message]).toEqual([404, 'This dataset has no rejected lines']);
  });

  it('answers 422 for a format it does not write, and CSV for an Accept it does not know', async () => {
    const ds = (await upload('plain', 'text/csv', Buffer.from(CSV))).json().item;
    const bad = await as('owner', 'GET', `/v1/datasets/${ds.id}/data?format=shp`);
    expect(bad.statusCode).toBe(422);
    const other = await as('owner', 'GET', `/v1/datasets/${ds.id}/data`, undefined, { accept: 'text/html, */*' });
    expect([other.statusCode, other.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
  });

  it('refuses FlatGeobuf for data without a location, with the reason', async () => {
    const ds = (await upload('no place', 'text/csv', Buffer.from('name,visits\nA,1\n'))).json().item;
    const res = await as('owner', 'GET', `/v1/datasets/${ds.id}/data?format=flatgeobuf`);
    expect([res.statusCode, res.json().message]).toEqual([422, 'FlatGeobuf needs a location: this dataset has no geometry or latitude/longitude columns']);
  });
});
