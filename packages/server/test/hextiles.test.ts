import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs/promises';
import { describe, expect, it, beforeAll } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import { cellToBoundary, cellToParent, getResolution, latLngToCell } from 'h3-js';
import { STORES, jobEnded, useStudio } from './harness';
import { ZipReader, ZipWriter, archiveKeyOf, arrowEntryName } from '@studio/tiles';
import { gunzipSync } from 'node:zlib';

/** Deterministic points around San Francisco over three days of January 2024. */
function sourceCsv(n = 1500): string {
  const lines = ['lat,lng,amount,category,ts'];
  let seed = 7;
  const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < n; i++) {
    const lat = 37.70 + rnd() * 0.12;
    const lng = -122.50 + rnd() * 0.15;
    const amount = Math.round(rnd() * 10000) / 100;
    const cat = ['a', 'b', 'c'][Math.floor(rnd() * 3)];
    const ts = new Date(Date.UTC(2024, 0, 1 + Math.floor(rnd() * 3), Math.floor(rnd() * 24))).toISOString().replace('.000Z', '');
    lines.push(`${lat.toFixed(6)},${lng.toFixed(6)},${amount},${cat},${ts}`);
  }
  return lines.join('\n') + '\n';
}

const OUTPUT = [
  { sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' },
  { targetColumn: 'n', aggMethod: 'count' },
  { sourceColumn: 'amount', targetColumn: 'avg_amount', aggMethod: 'mean' },
  { sourceColumn: 'amount', targetColumn: 'med', aggMethod: 'median' },
  { sourceColumn: 'amount', targetColumn: 'lo', aggMethod: 'min' },
  { sourceColumn: 'amount', targetColumn: 'hi', aggMethod: 'max' },
  { sourceColumn: 'category', targetColumn: 'top', aggMethod: 'mode' },
];
const FIELDS = ['total', 'n', 'avg_amount', 'med', 'lo', 'hi'] as const;

type Row = Record<string, unknown>;
const arrowRows = (payload: Buffer): Row[] =>
  tableFromIPC(payload).toArray().map((r) => Object.fromEntries(Object.entries(r.toJSON()).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));

describe.each(STORES)('hex tiles on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  let sourceId: string;
  let tiles: { id: string; metadata: { rowCount: number } };
  let storageFile: string;
  /** Reference aggregates at one resolution, straight from the source rows with the H3 SQL functions. */
  const reference = async (res: number, interval?: string): Promise<Map<string, Row>> => {
    const row = await ctx.s.services.records.get(sourceId);
    const file = await ctx.s.services.engine.store.localPath((row!.attrs as { storageKey: string }).storageKey);
    const bucket = interval ? `, strftime(date_trunc('day', ts), '%Y-%m-%d') AS day` : '';
    const rows = await ctx.s.services.engine.query(
      `SELECT h3_cell_to_parent(h3_latlng_to_cell(lat, lng, 8), ${res}) AS hex${bucket}, sum(amount) AS total, count(*) AS n, avg(amount) AS avg_amount,
        quantile_cont(amount, 0.5) AS med, min(amount) AS lo, max(amount) AS hi, mode(category) AS top
       FROM read_parquet('${file}') GROUP BY ALL`,
    );
    return new Map(rows.map((r) => [interval ? `${r.hex}@${r.day}` : String(r.hex), r]));
  };
  /** POST /v1/datasets/hextile answers at once (pending, with its job); the job makes it ready. */
  const buildTiles = async (body: Record<string, unknown>) => {
    const r = await as('owner', 'POST', '/v1/datasets/hextile', body);
    expect(r.statusCode, r.body).toBe(201);
    const { item, job } = r.json();
    expect([item.status, job.kind, job.resourceId]).toEqual(['pending', 'hex-tiles', item.id]);
    expect(await jobEnded((url) => as('owner', 'GET', url), job.id)).toMatchObject({ status: 'succeeded', percent: 100 });
    return (await as('owner', 'GET', `/v1/datasets/${item.id}`)).json().item;
  };
  const expectSame = (got: Row, want: Row) => {
    for (const f of FIELDS) expect(Number(got[f]), f).toBeCloseTo(Number(want[f]), 6);
  };

  beforeAll(async () => {
    const up = await as('owner', 'POST', '/v1/datasets/data?name=points', sourceCsv(), { 'content-type': 'text/csv' });
    expect(up.statusCode).toBe(201);
    sourceId = up.json().item.id;
    tiles = await buildTiles({
      name: 'Point tiles', source: sourceId, sourceLatColumn: 'lat', sourceLngColumn: 'lng', sourceTimeColumn: 'ts',
      timeIntervals: ['D'], finestResolution: 8, coarsestResolution: 6, resolutionOffset: 4, outputColumns: OUTPUT,
    });
    const row = await ctx.s.services.records.get(tiles.id);
    storageFile = await ctx.s.services.engine.store.localPath(archiveKeyOf((row!.attrs as { storageKey: string }).storageKey));
  });

  it('builds a ready hex-tile dataset whose archive holds tiles, index, metadata and quantiles', async () => {
    const got = (await as('owner', 'GET', `/v1/datasets/${tiles.id}`)).json().item;
    expect(got).toMatchObject({ type: 'hex-tile', status: 'ready', metadata: { pipelineType: 'hextile', contentType: 'application/zip' } });
    const zip = await ZipReader.open(storageFile);
    const names = [...zip.entries.keys()];
    expect(names).toEqual(expect.arrayContaining(['metadata.json', 'index.json', 'quantiles/8.json']));
    expect(names.some((n) => /^tiles\/4\/84[0-9a-f]+\.parquet$/.test(n))).toBe(true);
    expect(names.some((n) => /^time\/D2024-01-0[123]\/4\/84[0-9a-f]+\.parquet$/.test(n))).toBe(true);
    expect(got.metadata.rowCount).toBe((await reference(8)).size);
    expect(got.metadata.columns.map((c: { name: string }) => c.name)).toEqual(['hex', 'total', 'n', 'avg_amount', 'med', 'lo', 'hi', 'top']);
  });

  it('keeps the finest cells as the dataset table: data, preview and SQL read them', async () => {
    const ref = await reference(8);
    const page = (await as('owner', 'GET', `/v1/datasets/${tiles.id}/preview?limit=5`)).json();
    expect(page.total).toBe(ref.size);
    for (const row of page.items) expectSame(row, ref.get(row.hex)!);
    const csv = await as('owner', 'GET', `/v1/datasets/${tiles.id}/data`);
    expect([csv.statusCode, csv.body.split('\n')[0]]).toEqual([200, 'hex,total,n,avg_amount,med,lo,hi,top']);
  });

  it.each([6, 7, 8])('stores at resolution %i exactly the aggregates SQL computes from the source', async (res) => {
    const ref = await reference(res);
    const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
    const z = res - 4;
    const seen = new Map<string, Row>();
    for (const tile of Object.keys(index.tiles[z])) {
      const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}/${z}/${tile}`, undefined, { accept: 'application/vnd.apache.arrow.stream' });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
      const rows = arrowRows(r.rawPayload);
      expect(rows.length).toBe(index.tiles[z][tile]);
      for (const row of rows) {
        expect(cellToParent(String(row.hex), z)).toBe(tile);
        seen.set(String(row.hex), row);
      }
    }
    expect([...seen.keys()].sort()).toEqual([...ref.keys()].sort());
    for (const [hex, want] of ref) {
      expectSame(seen.get(hex)!, want);
      expect(seen.get(hex)!.top).toBe(want.top);
    }
  });

  it('answers time slices that equal the per-day aggregates, and the range of steps', async () => {
    const range = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/range/D`)).json().item;
    expect(range.steps.map((s: { path: string }) => s.path)).toEqual(['D2024-01-01', 'D2024-01-02', 'D2024-01-03']);
    expect(range).toMatchObject({ interval: 'D', start: '2024-01-01T00:00:00.000Z', end: '2024-01-03T00:00:00.000Z' });
    const ref = await reference(8, 'D');
    const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
    const step = index.time.D['D2024-01-02'];
    let count = 0;
    for (const tile of Object.keys(step.tiles[4])) {
      const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}/time/D2024-01-02?q=total,n`);
      const rows = arrowRows(r.rawPayload);
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(['hex', 'time', 'total', 'n']);
        const want = ref.get(`${row.hex}@2024-01-02`)!;
        expect(Number(row.total)).toBeCloseTo(Number(want.total), 6);
        expect(row.n).toBe(Number(want.n));
        count++;
      }
    }
    expect(count).toBe([...ref.keys()].filter((k) => k.endsWith('@2024-01-02')).length);
  });

  it('encodes each tile as Arrow when it builds: a tile answers its stored entry, q re-frames it, gzip sends its deflate stream', async () => {
    const zip = await ZipReader.open(storageFile);
    // Every all-time tile has its twin; time steps (many more entries) are read through DuckDB.
    const tileEntries = [...zip.entries.keys()].filter((n) => n.startsWith('tiles/'));
    expect(tileEntries.length).toBeGreaterThan(2);
    expect(tileEntries.filter((n) => !zip.has(arrowEntryName(n)))).toEqual([]);
    expect([...zip.entries.keys()].filter((n) => n.startsWith('arrow/time/'))).toEqual([]);
    const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
    const [tile] = Object.entries(index.tiles[4] as Record<string, number>).sort((a, b) => b[1] - a[1])[0]!;
    const stored = (await zip.read(arrowEntryName(`tiles/4/${tile}.parquet`)))!;
    const whole = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}`);
    expect(whole.rawPayload.equals(stored)).toBe(true);
    const rows = arrowRows(whole.rawPayload);
    expect(Object.keys(rows[0]!)).toEqual(['hex', 'total', 'n', 'avg_amount', 'med', 'lo', 'hi', 'top']);
    // A selection in its own order: the same values, only those columns.
    const some = arrowRows((await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}?q=top,n`)).rawPayload);
    expect(some).toEqual(rows.map((r) => ({ hex: r.hex, top: r.top, n: r.n })));
    // A browser's ask: the entry's own deflate stream in a gzip member, which unpacks to the same bytes.
    const zipped = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}`, undefined, { 'accept-encoding': 'gzip, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.rawPayload.equals((await zip.readGzip(arrowEntryName(`tiles/4/${tile}.parquet`)))!)).toBe(true);
    expect(gunzipSync(zipped.rawPayload).equals(stored)).toBe(true);
    const someZipped = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}?q=top,n`, undefined, { 'accept-encoding': 'gzip' });
    expect(arrowRows(gunzipSync(someZipped.rawPayload))).toEqual(some);
  });

  it('answers the stored Parquet entry for octet-stream, metadata, and the index inside a viewport', async () => {
    const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
    const tile = Object.keys(index.tiles[4])[0]!;
    const raw = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}`, undefined, { accept: 'application/octet-stream' });
    expect(raw.headers['content-type']).toBe('application/octet-stream');
    expect(raw.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    const meta = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/metadata?q=total,top`)).json().item;
    expect(meta).toMatchObject({ dataset: tiles.id, source: sourceId, resolutionOffset: 4, minRes: 6, maxRes: 8, minZoom: 2, maxZoom: 4, timeIntervals: ['D'] });
    expect(meta.fields.map((f: { name: string }) => f.name)).toEqual(['total', 'top']);
    expect(meta.zipUrl).toMatch(new RegExp(`^store://datasets/${tiles.id}/.+\\.zip$`));
    // A box around one tile's centre keeps that tile; a box far away keeps none.
    const [lat, lng] = cellToBoundary(tile)[0]!;
    const near = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index?q=${encodeURIComponent(JSON.stringify({ bbox: [lng - 0.01, lat - 0.01, lng + 0.01, lat + 0.01], z: 4 }))}`)).json().item;
    expect(Object.keys(near.tiles)).toEqual(['4']);
    expect(Object.keys(near.tiles[4])).toContain(tile);
    const far = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index?q=${encodeURIComponent(JSON.stringify({ bbox: [10, 10, 11, 11] }))}`)).json().item;
    expect(Object.values(far.tiles).every((t) => Object.keys(t as object).length === 0)).toBe(true);
  });

  it('stores quantiles equal to quantile_cont over the cells, per resolution and per time step', async () => {
    const q = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/8/quantiles`)).json().item;
    const ref = [...(await reference(8)).values()].map((r) => Number(r.total)).sort((a, b) => a - b);
    expect(q.levels).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(q.quantiles.total[0]).toBeCloseTo(ref[0]!, 6);
    expect(q.quantiles.total[10]).toBeCloseTo(ref.at(-1)!, 6);
    expect(q.quantiles.top).toBeNull(); // not numeric
    const perDay = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/7/quantiles/D?q=n`)).json().item;
    expect(Object.keys(perDay.steps)).toEqual(['D2024-01-01', 'D2024-01-02', 'D2024-01-03']);
    expect(Object.keys(perDay.steps['D2024-01-01'])).toEqual(['n']);
  });

  it.each([
    ['a viewport that is not JSON', '/tileset-index?q=nope', 'Could not deserialize index viewport'],
    ['a viewport of the wrong shape', `/tileset-index?q=${encodeURIComponent('{"bbox":[1,2]}')}`, 'Could not deserialize index viewport'],
    ['an unknown interval', '/range/W', 'interval must be one of T, H, D, M, Y'],
    ['an interval the tileset lacks', '/range/M', 'The tileset has no M time steps (it has D)'],
    ['a zoom that is not a number', '/x/8428347ffffffff', 'z must be an integer from 0 to 15'],
    ['a cell that is not H3', '/4/zzz', 'hex must be a valid H3 index'],
    ['a cell of another resolution', '/4/85283473fffffff', 'hex 85283473fffffff is a resolution 5 cell, not 4'],
    ['a bad time path', `/4/${cellToParent('85283473fffffff', 4)}/time/2024`, 'The time path must be an interval code and a step start, e.g. D2024-01-05 (see GET .../range/{interval})'],
    ['an unknown field', '/metadata?q=nope', 'q: nope is not a field of the tileset (fields: total, n, avg_amount, med, lo, hi, top)'],
    ['a resolution the tileset lacks', '/9/quantiles', 'The tileset has no cells at resolution 9 (it has 6 to 8)'],
    ['an outside zipUrl', `/metadata?zipUrl=${encodeURIComponent('https://example.com/t.zip')}`, /^zipUrl must name a tileset archive of this dataset in the studio's store/],
  ])('refuses %s with 422', async (_label, suffix, message) => {
    const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}${suffix}`);
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toMatch(message);
  });

  it('answers 404 for a tile the tileset does not hold', async () => {
    const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${cellToParent(latLngToCell(0, 0, 8), 4)}`);
    expect([r.statusCode, r.json().message]).toEqual([404, expect.stringMatching(/^No tile 4\//)]);
  });

  it.each([
    ['no location columns', { outputColumns: OUTPUT }, 'Either sourceHexColumn or both sourceLatColumn and sourceLngColumn are required'],
    ['no resolution with lat/lng', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', outputColumns: OUTPUT }, 'finestResolution is required with sourceLatColumn and sourceLngColumn'],
    ['an unknown column', { sourceLatColumn: 'lat', sourceLngColumn: 'nope', finestResolution: 8, outputColumns: OUTPUT }, 'Column nope is not in the source dataset'],
    ['sum of text', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, outputColumns: [{ sourceColumn: 'category', targetColumn: 's', aggMethod: 'sum' }] }, 'outputColumns s: sum needs a numeric column (category is STRING)'],
    ['an unknown aggregation', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, outputColumns: [{ sourceColumn: 'amount', targetColumn: 's', aggMethod: 'avg' }] }, /aggMethod/],
    ['a resolution below the offset', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 3, outputColumns: OUTPUT }, 'finestResolution 3 must be at least resolutionOffset (4): tiles are cells 4 resolutions coarser'],
    ['intervals without a time column', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, timeIntervals: ['D'], outputColumns: OUTPUT }, 'timeIntervals need sourceTimeColumn'],
    ['a time column of text that is not time', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, sourceTimeColumn: 'category', timeIntervals: ['D'], outputColumns: OUTPUT }, 'Could not read the source columns'],
    ['a reserved field name', { sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, outputColumns: [{ targetColumn: 'hex', aggMethod: 'count' }] }, 'targetColumn hex is reserved for the cell and time columns'],
  ])('refuses a build with %s (422) and creates nothing', async (_label, body, message) => {
    const before = (await as('owner', 'GET', '/v1/datasets')).json().total;
    const r = await as('owner', 'POST', '/v1/datasets/hextile', { source: sourceId, ...body });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toMatch(message);
    expect((await as('owner', 'GET', '/v1/datasets')).json().total).toBe(before);
  });

  it('keeps tiles to callers who can read the dataset', async () => {
    const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
    const tile = Object.keys(index.tiles[4])[0]!;
    for (const url of [`/v1/tileset/${tiles.id}/4/${tile}`, `/v1/tileset/${tiles.id}/metadata`, `/v1/tileset/${tiles.id}/8/quantiles`]) {
      const r = await as('outsider', 'GET', url);
      expect([r.statusCode, r.json().message]).toEqual([404, 'Dataset not found']);
    }
    const p = await as('outsider', 'POST', '/v1/tileset', { type: 'hexTile', uuid: tiles.id, tileIndex: tile });
    expect([p.statusCode, p.json().message]).toEqual([404, 'Dataset not found']);
    const b = await as('outsider', 'POST', '/v1/datasets/hextile', { source: sourceId, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, outputColumns: OUTPUT });
    expect([b.statusCode, b.json().message]).toEqual([404, 'Dataset not found']);
    // Shared as a viewer, the tiles answer.
    await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: tiles.id, email: ctx.cast.users.viewer.email, role: 'viewer' });
    const v = await as('viewer', 'GET', `/v1/tileset/${tiles.id}/4/${tile}`);
    expect(v.statusCode).toBe(200);
  });

  it('clones a hex-tile dataset with its tile archive: the copy answers the same tiles as its source', async () => {
    const clone = (await as('owner', 'POST', `/v1/datasets/${tiles.id}/clone`)).json().item;
    expect(clone).toMatchObject({ type: 'hex-tile', status: 'ready' });
    expect((await as('owner', 'GET', `/v1/datasets/${clone.id}/preview?limit=1`)).statusCode).toBe(200);
    const meta = await as('owner', 'GET', `/v1/tileset/${clone.id}/metadata`);
    expect(meta.statusCode, meta.body).toBe(200);
    const index = (await as('owner', 'GET', `/v1/tileset/${clone.id}/tileset-index`)).json().item;
    const cell = Object.keys(index.tiles[4])[0]!;
    const tile = (id: string) => as('owner', 'GET', `/v1/tileset/${id}/4/${cell}`, undefined, { accept: 'application/octet-stream' });
    const [mine, theirs] = [await tile(clone.id), await tile(tiles.id)];
    expect(mine.statusCode).toBe(200);
    expect(mine.rawPayload.equals(theirs.rawPayload)).toBe(true);
  });

  describe('pipelines over tiles', () => {
    let hexTilesId: string;
    beforeAll(async () => {
      // A second tileset from an H3 column: the res-8 cells of the same points, weight 1 each.
      const rows = sourceCsv().trim().split('\n').slice(1).map((l) => l.split(','));
      const csv = ['cell,w', ...rows.map(([lat, lng]) => `${latLngToCell(Number(lat), Number(lng), 8)},1`)].join('\n');
      const up = await as('owner', 'POST', '/v1/datasets/data?name=cells', csv, { 'content-type': 'text/csv' });
      hexTilesId = (await buildTiles({ source: up.json().item.id, sourceHexColumn: 'cell', coarsestResolution: 7, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'w', targetColumn: 'weight', aggMethod: 'sum' }] })).id;
    });

    it('hexTile reads one tile, at the tileset offset or another', async () => {
      const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
      const tile = Object.keys(index.tiles[4])[0]!;
      const r = await as('owner', 'POST', '/v1/tileset', { type: 'hexTile', uuid: tiles.id, tileIndex: tile });
      expect(r.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
      const direct = arrowRows((await as('owner', 'GET', `/v1/tileset/${tiles.id}/4/${tile}`)).rawPayload);
      expect(arrowRows(r.rawPayload).map((x) => x.hex).sort()).toEqual(direct.map((x) => x.hex).sort());
      // Offset 3 from a res-4 tile: its res-7 cells, read from the zoom-3 tile that holds them.
      const coarse = await as('owner', 'POST', '/v1/tileset', { type: 'hexTile', uuid: tiles.id, tileIndex: tile, resolutionOffset: 3 });
      const ref = [...(await reference(7)).keys()].filter((h) => cellToParent(h, 4) === tile).sort();
      expect(arrowRows(coarse.rawPayload).map((x) => x.hex).sort()).toEqual(ref);
      const bad = await as('owner', 'POST', '/v1/tileset', { type: 'hexTile', uuid: tiles.id, tileIndex: tile, resolutionOffset: 9 });
      expect([bad.statusCode, bad.json().message]).toEqual([422, 'hexTile node: the tileset has no cells at resolution 13 (it has 6 to 8)']);
    });

    it('tileExtract cuts a polygon, tileJoin joins two tilesets cell by cell', async () => {
      const polygon = { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-122.48, 37.72], [-122.40, 37.72], [-122.40, 37.79], [-122.48, 37.79], [-122.48, 37.72]]] } };
      const extract = (sourceId: string, sourceColumn?: string) => ({ type: 'tileExtract', sourceId, geojson: polygon, res: 8, ...(sourceColumn && { sourceColumn }) });
      const r = await as('owner', 'POST', '/v1/tileset', { type: 'tileJoin', input: [extract(tiles.id, 'n'), extract(hexTilesId)] });
      expect(r.statusCode, r.body.slice(0, 500)).toBe(200);
      const rows = arrowRows(r.rawPayload);
      expect(rows.length).toBeGreaterThan(10);
      // Same points, so each cell's count equals its summed weight.
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(['hex', 'n', 'weight']);
        expect(getResolution(String(row.hex))).toBe(8);
        expect(Number(row.weight)).toBe(Number(row.n));
      }
      const limited = await as('owner', 'POST', '/v1/tileset', { ...extract(tiles.id), maxRows: 5, h3ColumnName: 'h3' });
      expect(arrowRows(limited.rawPayload).map((x) => Object.keys(x)[0])).toEqual(['h3', 'h3', 'h3', 'h3', 'h3']);
      const meta = (await as('owner', 'POST', '/v1/tileset/metadata', { type: 'tileJoin', input: [extract(tiles.id, 'n'), extract(hexTilesId)] })).json().item;
      expect(meta.fields.map((f: { name: string }) => f.name)).toEqual(['hex', 'n', 'weight']);
      expect(meta.sources.map((s: { dataset: string }) => s.dataset)).toEqual([tiles.id, hexTilesId]);
      const q = (await as('owner', 'POST', '/v1/tileset/quantiles', extract(tiles.id, 'n'))).json().item;
      expect(q.quantiles.hex).toBeNull();
      expect(q.quantiles.n[0]).toBe(Math.min(...rows.map((x) => Number(x.n)).filter((n) => n > 0)));
      const wrong = await as('owner', 'POST', '/v1/tileset', { type: 'tileJoin', input: [extract(tiles.id), { type: 'dataset', uuid: sourceId }] });
      expect([wrong.statusCode, wrong.json().message]).toEqual([422, 'tileJoin node: input[1] is not a hex tile node (hexTile, tileExtract or tileJoin)']);
    });

    it('tileQuantiles answers stored quantiles per step, through /v1/query too', async () => {
      const r = await as('owner', 'POST', '/v1/query?format=json', { type: 'tileQuantiles', uuid: tiles.id, res: 8, interval: 'D' });
      expect(r.statusCode, r.body.slice(0, 500)).toBe(200);
      const items = r.json().items as { path: string; field: string; quantiles: string | null }[];
      expect(items.length).toBe(3 * 7);
      const stored = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/8/quantiles/D`)).json().item;
      // The engine's Arrow answers carry lists as their JSON text.
      for (const it of items) expect(it.quantiles === null ? null : JSON.parse(it.quantiles)).toEqual(stored.steps[it.path][it.field]);
      expect(items.filter((i) => i.field === 'top').every((i) => i.quantiles === null)).toBe(true);
      const bad = await as('owner', 'POST', '/v1/tileset', { type: 'tileQuantiles', uuid: hexTilesId, res: 8, interval: 'D' });
      expect([bad.statusCode, bad.json().message]).toEqual([422, 'tileQuantiles node: the tileset has no D time steps (it has none)']);
    });

    it('refuses a pipeline that reads no tiles, and a tile node on a table dataset', async () => {
      const none = await as('owner', 'POST', '/v1/tileset', { type: 'dataset', uuid: sourceId });
      expect([none.statusCode, none.json().message]).toEqual([422, 'The pipeline reads no hex-tile dataset: use hexTile, tileExtract, tileJoin or tileQuantiles nodes']);
      const table = await as('owner', 'POST', '/v1/tileset', { type: 'tileQuantiles', uuid: sourceId, res: 8, interval: 'D' });
      expect(table.statusCode).toBe(422);
      expect(table.json().message).toMatch(/is not a hex-tile dataset/);
    });
  });

  describe('archives named by zipUrl', () => {
    /** Copies the dataset's archive into a new one under its own folder, changing entries on the way. */
    async function variant(name: string, change: (entry: string, data: Buffer) => Buffer | null): Promise<string> {
      const src = await ZipReader.open(storageFile);
      const tmp = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'ht-')), name);
      const out = await ZipWriter.create(tmp);
      for (const entry of src.entries.keys()) {
        const data = change(entry, (await src.read(entry))!);
        if (data) await out.add(entry, data, entry.endsWith('.json'));
      }
      await out.close();
      await ctx.s.services.engine.store.put(`datasets/${tiles.id}/${name}`, tmp);
      return encodeURIComponent(`store://datasets/${tiles.id}/${name}`);
    }

    it('reads another archive of the same dataset, and only that', async () => {
      const same = await variant('copy.zip', (_e, d) => d);
      expect((await as('owner', 'GET', `/v1/tileset/${tiles.id}/metadata?zipUrl=${same}`)).statusCode).toBe(200);
      const other = await as('owner', 'GET', `/v1/tileset/${tiles.id}/metadata?zipUrl=${encodeURIComponent(`store://datasets/${sourceId}/x.zip`)}`);
      expect(other.statusCode).toBe(422);
    });

    it('answers the same tiles from an archive without Arrow entries (built before they were written) by reading its Parquet', async () => {
      const url = await variant('parquet-only.zip', (e, d) => (e.startsWith('arrow/') ? null : d));
      const index = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index`)).json().item;
      const step = index.time.D['D2024-01-02'];
      for (const [path, q] of [[`4/${Object.keys(index.tiles[4])[0]}`, ''], [`4/${Object.keys(step.tiles[4])[0]}/time/D2024-01-02`, '?q=n,total']]) {
        const [old, built] = [await as('owner', 'GET', `/v1/tileset/${tiles.id}/${path}${q}${q ? '&' : '?'}zipUrl=${url}`), await as('owner', 'GET', `/v1/tileset/${tiles.id}/${path}${q}`)];
        expect(old.statusCode, old.body).toBe(200);
        expect(arrowRows(old.rawPayload)).toEqual(arrowRows(built.rawPayload));
        const zipped = await as('owner', 'GET', `/v1/tileset/${tiles.id}/${path}${q}${q ? '&' : '?'}zipUrl=${url}`, undefined, { 'accept-encoding': 'gzip' });
        expect(arrowRows(gunzipSync(zipped.rawPayload))).toEqual(arrowRows(built.rawPayload));
      }
    });

    it("refuses an index without the required metadata with the spec's message", async () => {
      const url = await variant('no-meta.zip', (e, d) => (e === 'index.json' ? Buffer.from(JSON.stringify({ ...JSON.parse(d.toString()), metadata: {} })) : d));
      const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index?zipUrl=${url}`);
      expect([r.statusCode, r.json().message]).toEqual([422, 'HexTile index does not include required metadata']);
    });

    it('refuses an index whose tile names are not H3 cells (they become file names)', async () => {
      const url = await variant('traversal.zip', (e, d) => {
        if (e !== 'index.json') return d;
        const index = JSON.parse(d.toString());
        index.tiles['4'] = { '../../../../escape': 1 };
        return Buffer.from(JSON.stringify(index));
      });
      const r = await as('owner', 'GET', `/v1/tileset/${tiles.id}/tileset-index?zipUrl=${url}`);
      expect([r.statusCode, r.json().message]).toEqual([422, 'The tileset index is not readable']);
    });

    it('answers null for a quantile entry that fails to load, the others unchanged', async () => {
      const url = await variant('broken-q.zip', (e, d) => (e === 'quantiles/8/D2024-01-02.json' ? Buffer.from('{not json') : d));
      const r = (await as('owner', 'GET', `/v1/tileset/${tiles.id}/8/quantiles/D?zipUrl=${url}`)).json().item;
      expect(r.steps['D2024-01-02']).toBeNull();
      expect(r.steps['D2024-01-01'].total).toHaveLength(11);
    });
  });
});
