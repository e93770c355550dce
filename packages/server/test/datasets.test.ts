import http from 'node:http';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KML, shapefileZip, xlsx } from '../../engine/test/format-files';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const CSV = 'name,lat,lng,visits\nFerry Building,37.7955,-122.3937,10\nCoit Tower,37.8024,-122.4058,\nPainted Ladies,37.7763,-122.4328,7\n';
const ROWS = [
  { name: 'Ferry Building', lat: 37.7955, lng: -122.3937, visits: 10 },
  { name: 'Coit Tower', lat: 37.8024, lng: -122.4058, visits: null },
  { name: 'Painted Ladies', lat: 37.7763, lng: -122.4328, visits: 7 },
];
const GEOJSON = JSON.stringify({
  type: 'FeatureCollection',
  features: ROWS.map((r) => ({ type: 'Feature', properties: { name: r.name, visits: r.visits }, geometry: { type: 'Point', coordinates: [r.lng, r.lat] } })),
});

describe.each(STORES)('datasets on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const upload = (body: string | Buffer, contentType: string, headers: Record<string, string> = {}) =>
    s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Landmarks', payload: body, headers: { authorization: cast.tokens.owner, 'content-type': contentType, ...headers } });
  const get = (url: string, headers: Record<string, string> = {}) => s.app.inject({ method: 'GET', url, headers: { authorization: cast.tokens.owner, ...headers } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it.each([
    ['csv', CSV, 'text/csv'],
    ['tsv', CSV.replaceAll(',', '\t'), 'text/tab-separated-values'],
    ['json array', JSON.stringify(ROWS), 'application/json'],
    ['ndjson', ROWS.map((r) => JSON.stringify(r)).join('\n'), 'application/json'],
  ])('ingests %s with schema, lat/lng roles and stats', async (_label, body, type) => {
    const res = await upload(body, type);
    expect(res.statusCode).toBe(201);
    const ds = res.json().item;
    expect(ds).toMatchObject({ status: 'ready', type: 'managed', metadata: { rowCount: 3, detected: { latitude: 'lat', longitude: 'lng' } } });
    const visits = ds.metadata.columns.find((c: { name: string }) => c.name === 'visits');
    expect(visits.stats).toMatchObject({ nullCount: 1, min: 7, max: 10, mean: 8.5 });
    expect(ds.metadata.columns.find((c: { name: string }) => c.name === 'name').type).toBe('STRING');
    const csv = await get(`/v1/datasets/${ds.id}/data`);
    expect(csv.headers['content-type']).toMatch('text/csv');
    expect(csv.body.split('\n')[0]).toBe('name,lat,lng,visits');
  });

  it('ingests GeoJSON points into latitude/longitude columns', async () => {
    const ds = (await upload(GEOJSON, 'application/geo+json')).json().item;
    expect(ds.metadata).toMatchObject({ rowCount: 3, detected: { latitude: 'latitude', longitude: 'longitude', geometry: '_geojson' } });
  });

  it('accepts gzip bodies and answers Arrow when asked', async () => {
    const ds = (await upload(gzipSync(CSV), 'text/csv', { 'content-encoding': 'gzip' })).json().item;
    const res = await get(`/v1/datasets/${ds.id}/data`, { accept: 'application/vnd.apache.arrow.stream' });
    expect(res.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(res.rawPayload);
    expect(table.toArray().map((r) => ({ ...r.toJSON() }))).toEqual(ROWS.map((r) => ({ ...r, visits: r.visits === null ? null : BigInt(r.visits) })));
  });

  it.each([
    ['a zipped Shapefile', 'application/zip', () => shapefileZip()],
    ['a KML file', 'application/vnd.google-earth.kml+xml', () => Buffer.from(KML)],
    ['an Excel workbook', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx],
  ])('ingests %s in one step, ready with its rows and location', async (_label, contentType, make) => {
    const res = await upload(await make(), contentType);
    expect(res.statusCode).toBeLessThan(300);
    const item = res.json().item;
    expect(item).toMatchObject({ status: 'ready', metadata: { rowCount: 3, contentType } });
    expect(Object.keys(item.metadata.detected)).toEqual(expect.arrayContaining(['latitude', 'longitude']));
  });

  it('leaves malformed lines out and counts them when asked to skip bad rows, on upload and on replace', async () => {
    const body = 'name,visits\nA,1\nB,2,extra\nC,3\n';
    const skipped = await s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Skipping&skipBadRows=true', payload: body, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    expect(skipped.json().item).toMatchObject({ status: 'ready', metadata: { rowCount: 2, rejectedRows: 1 } });
    const id = skipped.json().item.id;
    expect((await get(`/v1/datasets/${id}/data`)).body.trim().split('\n')).toEqual(['name,visits', 'A,1', 'C,3']);
    const strict = await s.app.inject({ method: 'PUT', url: `/v1/datasets/${id}/data`, payload: body, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    expect([strict.statusCode, strict.json().message]).toEqual([422, 'Could not read CSV at line 3: expected 2 columns but found 3']);
    const clean = await s.app.inject({ method: 'PUT', url: `/v1/datasets/${id}/data?skipBadRows=true`, payload: 'name,visits\nD,4\n', headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    expect(clean.json().item.metadata).toMatchObject({ rowCount: 1, rejectedRows: 0 });
    const plain = (await upload('name\nE\n', 'text/csv')).json().item;
    expect(plain.metadata.rejectedRows).toBeNull();
  });

  it('refuses a zip without a Shapefile with the reason and no server path', async () => {
    const res = await upload(shapefileZip({ withShp: false }), 'application/zip');
    expect([res.statusCode, res.json().message]).toEqual([422, 'The zip holds no Shapefile (.shp)']);
    expect(res.body).not.toMatch(/\/tmp\/|\.studio|ingest-/);
  });

  it.each([
    ['an unsupported type', '<xml/>', 'application/xml', 'Unsupported content type'],
    ['a CSV with an unterminated quote', 'a,b\n1,2\n3,"open\n', 'text/csv', 'Could not read CSV at line 3: a quoted value is never closed (unterminated quote)'],
    ['an empty file', '', 'text/csv', 'The file is empty'],
  ])('refuses %s in one step and leaves no dataset behind', async (_label, body, contentType, message) => {
    const before = (await get('/v1/datasets?search=Landmarks')).json().total;
    const res = await upload(body, contentType);
    expect([res.statusCode, res.json().message]).toEqual([422, message]);
    expect((await get('/v1/datasets?search=Landmarks')).json().total).toBe(before);
  });

  it('names the line and column of a broken CSV', async () => {
    // Past DuckDB's sniffing sample (20,480 rows) so the types are settled before the bad value.
    const broken = `a,price\n${Array.from({ length: 25_000 }, (_, i) => `${i},${i}.5`).join('\n')}\n7,abc\n`;
    const res = await upload(broken, 'text/csv');
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe("Could not read CSV at line 25002, column 'price': expected DOUBLE but found 'abc'");
    expect(res.body).not.toContain(s.dataDir);
  });

  it('uploads through a signed post policy, refusing forged and expired ones', async () => {
    const created = await s.app.inject({ method: 'POST', url: '/v1/datasets', payload: { name: 'Via policy', contentType: 'text/csv' }, headers: { authorization: cast.tokens.owner } });
    const { id, status, signedPostPolicy: policy } = created.json().item;
    expect(status).toBe('new');
    const send = (fields: { policy: string; signature: string }) =>
      s.app.inject({ method: 'POST', url: `/v1/uploads?policy=${fields.policy}&signature=${fields.signature}`, payload: CSV, headers: { 'content-type': 'text/csv' } });
    // A forged signature differs in its first character (a fixed 'x' equalled the real one 1 time in 64).
    const forged = (policy.fields.signature.startsWith('x') ? 'y' : 'x') + policy.fields.signature.slice(1);
    expect((await send({ ...policy.fields, signature: forged })).statusCode).toBe(403);
    const expired = s.services.policies.issue({ purpose: 'dataset-data', resourceId: id, contentType: 'text/csv', maxBytes: 1e6, ttlMs: -1 });
    expect((await send(expired.fields)).json().message).toBe('Upload policy has expired');
    expect((await get(`/v1/datasets/${id}`)).json().item.status).toBe('new');
    const ok = await send(policy.fields);
    expect(ok.json().item).toMatchObject({ id, status: 'ready', metadata: { rowCount: 3 } });
  });

  it('ends a cut-off upload in error, never pending, with nothing readable', async () => {
    const address = await s.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/datasets/data?name=CutOff', headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv', 'content-length': '100000' } });
    req.on('error', () => undefined);
    req.write('a,b\n1,2\n3,');
    const cutOff = async () => (await get('/v1/datasets?search=CutOff')).json().items[0] as { status: string; metadata: { errorMessage: string } } | undefined;
    // The connection drops once the server is receiving the file (the dataset is pending), not after a fixed wait.
    await expect.poll(async () => (await cutOff())?.status, { timeout: 30_000 }).toBe('pending');
    req.destroy();
    await expect.poll(async () => (await cutOff())?.status, { timeout: 30_000 }).toBe('error');
    expect(await cutOff()).toMatchObject({ status: 'error', metadata: { errorMessage: 'The upload was cut off before the end of the file' } });
  });

  it('replaces data atomically and keeps readers on the old data until the new is ready', async () => {
    const ds = (await upload(CSV, 'text/csv')).json().item;
    const names = async () => (await get(`/v1/datasets/${ds.id}/data`)).body.trim().split('\n').slice(1).map((l) => l.split(',')[0]);
    const before = await names();
    expect(before).toEqual(['Ferry Building', 'Coit Tower', 'Painted Ladies']);
    // A replacement still arriving: readers keep the old data, whole, meanwhile.
    const body = new PassThrough();
    body.write('name,lat,lng\n');
    const replacing = s.app.inject({ method: 'PUT', url: `/v1/datasets/${ds.id}/data`, payload: body, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    await expect.poll(async () => (await get(`/v1/datasets/${ds.id}`)).json().item.status, { timeout: 30_000 }).toBe('pending');
    expect(await names()).toEqual(before);
    body.end('X,1,2\n');
    expect((await replacing).json().item.metadata.rowCount).toBe(1);
    expect(await names()).toEqual(['X']);
    // A replacement that fails leaves the data as it was: no half of it, no mix.
    const bad = await s.app.inject({ method: 'PUT', url: `/v1/datasets/${ds.id}/data`, payload: '', headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    expect(bad.statusCode).toBe(422);
    expect(await names()).toEqual(['X']);
  });

  it('clones with data and deletes with data', async () => {
    const ds = (await upload(CSV, 'text/csv')).json().item;
    const copy = (await s.app.inject({ method: 'POST', url: `/v1/datasets/${ds.id}/clone`, headers: { authorization: cast.tokens.owner } })).json().item;
    expect(copy).toMatchObject({ status: 'ready', name: 'Copy of Landmarks' });
    await s.app.inject({ method: 'DELETE', url: `/v1/datasets/${ds.id}`, headers: { authorization: cast.tokens.owner } });
    expect((await get(`/v1/datasets/${copy.id}/data`)).body.split('\n').length).toBe(5);
  });
});
