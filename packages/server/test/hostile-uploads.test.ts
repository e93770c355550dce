import fs from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { GPX, KML, arrowIpc, flatgeobuf, kmz, shapefileZip, xlsx } from '../../engine/test/format-files';
import { deflatedZeros, gzipBomb, rawZip } from '../../engine/test/hostile-files';
import { receiveUpload } from '../src/services/datasets';
import { STORES, useStudio } from './harness';

/**
 * Hostile uploads and request bodies (#45): each is refused with its status and message, quickly, the server
 * answers /v1/health after it, and nothing half-written stays (no dataset of the refused one-step upload, no
 * temp file of its ingestion).
 */

/** A FeatureCollection whose one geometry's coordinates nest `levels` deep (the crash: 50,000, ~100 KB). */
const deepFeatureCollection = (levels: number) =>
  `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":${'['.repeat(levels)}${']'.repeat(levels)}}}]}`;

const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

const TOO_DEEP = 'The JSON is nested deeper than 64 levels';

interface Upload {
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

const JSON_UPLOADS: [string, Upload][] = [
  ['GeoJSON FeatureCollection 50,000 deep', { contentType: 'application/geo+json', body: deepFeatureCollection(50_000) }],
  ['the same labelled application/json', { contentType: 'application/json', body: deepFeatureCollection(50_000) }],
  ['newline-delimited JSON, one line 1,000 deep', { contentType: 'application/x-ndjson', body: `{"a":1}\n${nested(1000)}\n` }],
  ['a GeoJSON text sequence, 70 deep', { contentType: 'application/geo+json-seq', body: `\x1e${deepFeatureCollection(70)}\n` }],
  ['a JSON text sequence, 65 deep', { contentType: 'application/json-seq', body: `\x1e${'['.repeat(65)}${']'.repeat(65)}\n` }],
];

/** Bytes that are no format at all (deterministic, not random: a failure must repeat). */
const GARBAGE = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) % 256));

/** The first `fraction` of a valid file: cut off in the middle, as an interrupted download leaves it. */
const cut = (b: Buffer | string, fraction = 0.5) => Buffer.from(b).subarray(0, Math.floor(Buffer.from(b).length * fraction));

/** Four directory entries over one 64 MB deflate stream: the 261 KB zip in small (each entry adds its output). */
const overlapping = (names: string[]) => rawZip(names.map((name) => ({ name, deflated: deflatedZeros(64 << 20), statedSize: 64 << 20 })), { sameData: true });

/** A FlatGeobuf whose first feature claims 2 GB: the reader would allocate that before reading a byte of it. */
const fgbWithHugeFeature = () => {
  const good = flatgeobuf();
  const first = 12 + good.readUInt32LE(8);
  const b = Buffer.from(good);
  b.writeUInt32LE(0x7fff_fff0, first);
  return b;
};

type Expected = [status: number, message: string | RegExp];
const BAD_ZIP = 'Could not read the zip: the file is not a zip archive or it is damaged';
const OVERLAP = /its entries overlap \(\S+ and \S+ share their data\), as zip bombs do$/;
const LYING = /holds more than its directory says, as zip bombs do$/;
const RATIO = /expands to more than 200 times its size: refused as a decompression bomb$/;

/** format × {empty, truncated, garbage, bomb}: what each answers. Built once (the bombs take ~50 ms each). */
const CORPUS = async (): Promise<[string, string, Buffer | string, Expected][]> => [
  ['CSV', 'empty', '', [422, 'The file is empty']],
  ['CSV', 'truncated', 'name,visits\n"Ferry,1\n', [422, /^Could not read CSV/]],
  ['CSV', 'garbage', GARBAGE, [422, /^Could not read CSV/]],
  ['JSON', 'truncated', '[{"a":1},{"a":', [422, /^Could not read JSON/]],
  ['JSON', 'garbage', GARBAGE, [422, /^Could not read JSON/]],
  ['GeoJSON', 'truncated', cut('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}]}'), [422, /^Could not read GeoJSON/]],
  ['Parquet', 'truncated', Buffer.concat([Buffer.from('PAR1'), GARBAGE]), [422, /^Could not read Parquet/]],
  ['Parquet', 'garbage', GARBAGE, [422, /^Could not read Parquet/]],
  ['Shapefile zip', 'empty', '', [422, 'The file is empty']],
  ['Shapefile zip', 'truncated', cut(shapefileZip()), [422, BAD_ZIP]],
  ['Shapefile zip', 'garbage', GARBAGE, [422, BAD_ZIP]],
  ['Shapefile zip', 'bomb: four entries over one stream', overlapping(['a.shp', 'a.dbf', 'b.shp', 'b.dbf']), [422, OVERLAP]],
  ['Shapefile zip', 'bomb: 1,001 entries', Buffer.from(zipSync(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.dbf`, new Uint8Array(1)])))), [422, 'Could not read the zip: it holds more than 1000 files']],
  ['Shapefile zip', 'bomb: past 200:1', rawZip([{ name: 'a.shp', deflated: deflatedZeros(64 << 20), statedSize: 64 << 20 }]), [422, RATIO]],
  ['Shapefile zip', 'bomb: a directory that understates', rawZip([{ name: 'a.shp', deflated: deflatedZeros(64 << 20), statedSize: 1000 }]), [422, LYING]],
  ['KMZ', 'truncated', cut(kmz()), [422, 'Could not read the KMZ: the file is not a zip archive or it is damaged']],
  ['KMZ', 'bomb: four entries over one stream', overlapping(['doc.kml', 'a.kml', 'b.kml', 'c.kml']), [422, OVERLAP]],
  ['KMZ', 'bomb: a directory that understates', rawZip([{ name: 'doc.kml', deflated: deflatedZeros(64 << 20), statedSize: 1000 }]), [422, LYING]],
  ['KML', 'empty', '', [422, 'The file is empty']],
  ['KML', 'truncated', cut(KML), [422, /^Could not read KML: /]],
  ['KML', 'garbage', GARBAGE, [422, /^Could not read KML: /]],
  ['GPX', 'truncated', cut(GPX), [422, /^Could not read GPX: /]],
  ['GPX', 'garbage', GARBAGE, [422, /^Could not read GPX: /]],
  ['FlatGeobuf', 'empty', '', [422, 'The file is empty']],
  ['FlatGeobuf', 'truncated', cut(flatgeobuf(), 0.8), [422, /^Could not read FlatGeobuf: the file is truncated/]],
  ['FlatGeobuf', 'garbage', GARBAGE, [422, 'Could not read FlatGeobuf: not a FlatGeobuf file (version 3) by its first bytes']],
  ['FlatGeobuf', 'the 12 bytes that hung the reader', Buffer.concat([Buffer.from('fgb\x03fgb\x00', 'latin1'), Buffer.alloc(4)]), [422, 'Could not read FlatGeobuf: the header length (0 bytes) is not one a file has']],
  ['FlatGeobuf', 'bomb: a feature claiming 2 GB', fgbWithHugeFeature(), [422, 'Could not read FlatGeobuf: the file is truncated (it ends inside a feature)']],
  ['Excel', 'empty', '', [422, 'The file is empty']],
  ['Excel', 'truncated', cut(await xlsx()), [422, 'Could not read the Excel workbook: the file is not a zip archive or it is damaged']],
  ['Excel', 'garbage', GARBAGE, [422, 'Could not read the Excel workbook: the file is not a zip archive or it is damaged']],
  ['Excel', 'bomb: a directory that understates', rawZip([{ name: 'xl/worksheets/sheet1.xml', deflated: deflatedZeros(64 << 20), statedSize: 1000 }]), [422, LYING]],
  ['Arrow', 'empty', '', [422, 'The file is empty']],
  ['Arrow', 'truncated', cut(arrowIpc('file')), [422, /^Could not read Arrow IPC: /]],
  ['Arrow', 'garbage', GARBAGE, [422, /^Could not read Arrow IPC: /]],
];

const CONTENT_TYPES: Record<string, string> = {
  CSV: 'text/csv',
  JSON: 'application/json',
  GeoJSON: 'application/geo+json',
  Parquet: 'application/vnd.apache.parquet',
  'Shapefile zip': 'application/zip',
  KMZ: 'application/vnd.google-earth.kmz',
  KML: 'application/vnd.google-earth.kml+xml',
  GPX: 'application/gpx+xml',
  FlatGeobuf: 'application/flatgeobuf',
  Excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  Arrow: 'application/vnd.apache.arrow.file',
};

const corpus = await CORPUS();

describe.each(STORES)('hostile uploads and request bodies, on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);

  const upload = (u: Upload, name: string) =>
    as('owner', 'POST', `/v1/datasets/data?name=${encodeURIComponent(name)}`, u.body, { 'content-type': u.contentType, ...u.headers });

  /** The server still answers, no dataset by `name` is left, and ingestion left no temp file. */
  const nothingLeft = async (name: string) => {
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
    const list = await as('owner', 'GET', '/v1/datasets');
    expect(list.json().items.map((d: { name: string }) => d.name)).not.toContain(name);
    const tmp = ctx.s.services.engine.tmpDir;
    const leftovers = [...(await fs.readdir(tmp)).filter((f) => f.startsWith('ingest-')), ...(await fs.readdir(path.join(tmp, 'uploads')).catch(() => []))];
    expect(leftovers).toEqual([]);
  };

  it.each(JSON_UPLOADS)('refuses %s with a 422 before any reader sees it', async (label, u) => {
    const res = await upload(u, label);
    expect([res.statusCode, res.json().message]).toEqual([422, TOO_DEEP]);
    await nothingLeft(label);
  });

  it('refuses the deep FeatureCollection as replacement data of a dataset, which keeps its data', async () => {
    const ds = (await upload({ contentType: 'text/csv', body: 'a,b\n1,2\n' }, 'Kept')).json().item;
    const res = await as('owner', 'PUT', `/v1/datasets/${ds.id}/data`, deepFeatureCollection(50_000), { 'content-type': 'application/geo+json' });
    expect([res.statusCode, res.json().message]).toEqual([422, TOO_DEEP]);
    expect((await as('owner', 'GET', `/v1/datasets/${ds.id}/data`)).body).toBe('a,b\n1,2\n');
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
  });

  it("refuses the deep FeatureCollection through the Data SDK's upload", async () => {
    const key = (await as('owner', 'POST', '/v1/api-key', { name: 'Notebook', kind: 'sdk' })).json().item.key as string;
    const token = await ctx.s.app.inject({ method: 'POST', url: '/sdk/oauth/token', payload: { grant_type: 'refresh_token', client_id: 'x', refresh_token: key } });
    const res = await ctx.s.app.inject({
      method: 'POST', url: '/sdk/v1/datasets/data?name=Deep%20via%20SDK', payload: deepFeatureCollection(50_000),
      headers: { authorization: `Bearer ${token.json().access_token}`, 'content-type': 'application/geo+json' },
    });
    expect([res.statusCode, res.json().message]).toEqual([422, TOO_DEEP]);
    await nothingLeft('Deep via SDK');
  });

  it('reads JSON nested 64 deep, the most it takes', async () => {
    const res = await upload({ contentType: 'application/json', body: `[{"a":${'['.repeat(62)}1${']'.repeat(62)}}]` }, 'Deep but allowed');
    expect(res.statusCode).toBe(201);
  });

  it.each([
    ['a map', '/v1/maps', 'latestState'],
    ['a dashboard', '/v1/dashboards', 'state'],
  ])('refuses a JSON body nested 5,000 deep creating %s with a 422, not a 500', async (_label, url, field) => {
    const res = await ctx.s.app.inject({
      method: 'POST', url, payload: `{"name":"Deep","${field}":${nested(5_000)}}`,
      headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'application/json' },
    });
    expect([res.statusCode, res.json().message]).toEqual([422, TOO_DEEP]);
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
    // A body of ordinary depth is still read as before.
    expect((await create(url, { name: 'Deep', [field]: { a: { b: [1, 2] } } })).name).toBe('Deep');
  });

  // First, so that the corpus's times do not count the conversion worker's start.
  it.each([
    ['a zipped Shapefile', 'Shapefile zip', shapefileZip()],
    ['a KMZ', 'KMZ', kmz()],
    ['an Excel workbook', 'Excel', null],
    ['a FlatGeobuf', 'FlatGeobuf', flatgeobuf()],
  ])('still reads %s', async (_label, format, body) => {
    const res = await upload({ contentType: CONTENT_TYPES[format as string]!, body: (body as Buffer | null) ?? (await xlsx()) }, `Honest ${format}`);
    expect(res.statusCode).toBe(201);
    expect(res.json().item.metadata.rowCount).toBe(3);
  });

  it.each(corpus)('%s, %s: refused with its message, quickly, memory and temp folder as they were', async (format, kind, body, [status, message]) => {
    const name = `${format} ${kind}`;
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const res = await upload({ contentType: CONTENT_TYPES[format]!, body }, name);
    expect(res.statusCode).toBe(status);
    expect(res.json().message).toMatch(message);
    expect(performance.now() - started).toBeLessThan(5_000);
    // A bomb inflated would add its 64-256 MB (the zip: 1.6 GB); refused from its directory it adds nothing.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    await nothingLeft(name);
  });

  it('refuses a gzip body of ~1 MB that would become 1 GB, within seconds, leaving nothing half-written', async () => {
    const bomb = gzipBomb(1024 ** 3);
    const started = performance.now();
    const res = await upload({ contentType: 'text/csv', body: bomb, headers: { 'content-encoding': 'gzip' } }, 'Gzip bomb');
    expect([res.statusCode, res.json().message]).toEqual([422, 'The gzip body expands to more than 200 times its size: refused as a decompression bomb']);
    expect(performance.now() - started).toBeLessThan(10_000);
    await nothingLeft('Gzip bomb');
    // The two-step upload keeps its dataset, in error with the reason.
    const ds = (await upload({ contentType: 'text/csv', body: 'a\n1\n' }, 'Replaced by a bomb')).json().item;
    const put = await as('owner', 'PUT', `/v1/datasets/${ds.id}/data`, bomb, { 'content-type': 'text/csv', 'content-encoding': 'gzip' });
    expect(put.statusCode).toBe(422);
    expect((await as('owner', 'GET', `/v1/datasets/${ds.id}`)).json().item).toMatchObject({ status: 'error', metadata: { errorMessage: put.json().message } });
  });
});

describe('receiving an upload', () => {
  it('stops a body past the upload limit as it arrives (413) and keeps no more of it', async () => {
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'receive-')), 'body');
    const body = Readable.from((function* () {
      for (let i = 0; i < 1000; i++) yield Buffer.alloc(64 * 1024, 0x61);
    })());
    await expect(receiveUpload(body, file, undefined, 1024 * 1024)).rejects.toMatchObject({ status: 413, message: 'Upload is larger than 1048576 bytes' });
    expect((await fs.stat(file)).size).toBeLessThanOrEqual(1024 * 1024);
    await fs.rm(path.dirname(file), { recursive: true });
  });
});
