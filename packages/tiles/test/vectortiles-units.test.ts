import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, LocalObjectStore } from '@studio/engine';
import { parseGeometry, mercatorBox, mercX, mercY, lngOf, latOf } from '../src/vector-tiles/geometry';
import { PmtilesWriter } from '../src/vector-tiles/pmtiles-writer';
import { TileArchives } from '../src/vector-tiles/archive';
import { buildTiles, zonedSql } from '../src/vector-tiles/tiler';

describe('geometry text', () => {
  it.each([
    ['WKT point', 'POINT (1.5 -2)', { type: 'Point', coordinates: [1.5, -2] }],
    ['WKT point Z', 'POINT Z (1 2 3)', { type: 'Point', coordinates: [1, 2] }],
    ['EWKT', 'SRID=4326;LINESTRING(0 0, 1 1e1)', { type: 'LineString', coordinates: [[0, 0], [1, 10]] }],
    ['WKT polygon with a hole', 'POLYGON ((0 0, 4 0, 4 4, 0 0), (1 1, 2 1, 2 2, 1 1))', { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 4], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]] }],
    ['WKT multipoint, both spellings', 'MULTIPOINT ((1 2), 3 4)', { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }],
    ['WKT multipolygon', 'multipolygon(((0 0,1 0,1 1,0 0)))', { type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]]] }],
    ['WKT collection', 'GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))', { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] }],
    ['GeoJSON geometry', '{"type":"Point","coordinates":[5,6]}', { type: 'Point', coordinates: [5, 6] }],
    ['GeoJSON feature', '{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}', { type: 'LineString', coordinates: [[0, 0], [1, 1]] }],
  ])('reads %s', (_label, text, geometry) => expect(parseGeometry(text)).toEqual(geometry));

  it.each(['', 'POINT', 'POINT (1)', 'CIRCLE (1 2)', '{"type":"Point"}', '{not json', 'LINESTRING (0 0, 1 1'])('answers null for %j', (text) => expect(parseGeometry(text)).toBeNull());

  it('projects to Web Mercator and back', () => {
    expect([mercX(-180), mercX(0), mercX(180)]).toEqual([0, 0.5, 1]);
    expect(mercY(0)).toBeCloseTo(0.5, 12);
    expect(lngOf(mercX(-122.4))).toBeCloseTo(-122.4, 9);
    expect(latOf(mercY(37.8))).toBeCloseTo(37.8, 9);
    const [x0, y0, x1, y1] = mercatorBox(parseGeometry('LINESTRING (-10 20, 30 -40)')!)!;
    expect([x0 < x1, y0 < y1, x0, x1]).toEqual([true, true, mercX(-10), mercX(30)]);
  });
});

describe('PMTiles archives', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pmtiles-test-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('writes an archive the pmtiles reader reads, with leaf directories past the root’s 16 KiB and repeated tiles stored once', async () => {
    const writer = new PmtilesWriter(path.join(dir, 'side.tiles'));
    const tileOf = (z: number, x: number, y: number) => new TextEncoder().encode(x % 3 === 0 ? 'same' : `tile ${z}/${x}/${y}`);
    // Every tile of zoom 7 (16,384) and a few of zoom 8: more entries than a root directory holds.
    const written: [number, number, number][] = [];
    for (let x = 0; x < 128; x++) for (let y = 0; y < 128; y++) written.push([7, x, y]);
    for (let x = 0; x < 40; x++) written.push([8, x, 3]);
    for (const [z, x, y] of written.reverse()) await writer.add(z, x, y, tileOf(z, x, y));
    const file = path.join(dir, 'objects', 'a.pmtiles');
    await fs.mkdir(path.dirname(file), { recursive: true });
    const size = await writer.finish(file, { minZoom: 7, maxZoom: 8, bounds: [-180, -85, 180, 85], center: [0, 0, 7], metadata: { name: 'test', vector_layers: [] } });
    expect((await fs.stat(file)).size).toBe(size);
    const header = (await fs.readFile(file)).subarray(0, 127);
    expect([header.toString('ascii', 0, 7), header[7]]).toEqual(['PMTiles', 3]);
    expect(Number(header.readBigUInt64LE(48))).toBeGreaterThan(0); // leaf directories
    expect(Number(header.readBigUInt64LE(72))).toBe(written.length); // addressed tiles
    await expect(fs.stat(path.join(dir, 'side.tiles'))).rejects.toThrow();
    const archives = new TileArchives(new LocalObjectStore(path.join(dir, 'objects')));
    const text = async (z: number, x: number, y: number) => {
      const t = await archives.tile('a.pmtiles', z, x, y);
      return t && new TextDecoder().decode(t);
    };
    for (const [z, x, y] of [[7, 0, 0], [7, 1, 0], [7, 127, 127], [7, 64, 31], [8, 39, 3], [8, 3, 3]] as const) expect(await text(z, x, y)).toBe(x % 3 === 0 ? 'same' : `tile ${z}/${x}/${y}`);
    expect(await text(8, 40, 3)).toBeNull();
    expect(await text(6, 0, 0)).toBeNull();
    expect(await archives.metadata('a.pmtiles')).toEqual({ name: 'test', vector_layers: [] });
    // One copy of the repeated tile: the archive is smaller than the distinct tiles would make it.
    const distinct = written.filter(([, x]) => x % 3 !== 0).length + 1;
    expect(size).toBeLessThan(distinct * 40 + 200_000);
  });
});

describe('PMTiles archives dropped mid-write', () => {
  it('a writer discarded while its tiles are still being written ends quietly (it was an uncaught error that ended the server)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pmtiles-discard-'));
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      // Incompressible tiles of 64 KiB, more than the stream buffers: writes are still in flight at discard().
      for (let round = 0; round < 5; round++) {
        const writer = new PmtilesWriter(path.join(dir, `side-${round}.tiles`));
        for (let i = 0; i < 64; i++) await writer.add(12, i, round, crypto.getRandomValues(new Uint8Array(65_536)));
        await writer.discard();
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(uncaught).toEqual([]);
      expect(await fs.readdir(dir)).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

describe('the tiler', () => {
  let dir: string;
  let engine: Engine;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tiler-test-'));
    engine = await Engine.open({ dataDir: dir, connections: 1 });
    await engine.query(`COPY (SELECT i AS id, 37 + i / 1e4 AS lat, -122 + i / 1e4 AS lng FROM range(20000) t(i)) TO '${path.join(dir, 'p.parquet')}' (FORMAT parquet)`);
  });
  afterAll(async () => {
    engine?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  const job = (signal?: AbortSignal) => ({
    file: path.join(dir, 'p.parquet'),
    location: { kind: 'point' as const, lat: 'lat', lng: 'lng' },
    properties: [{ name: 'id', duckdbType: 'BIGINT' }],
    layer: 'p',
    name: 'p',
    description: '',
    zoomLimit: 14,
    signal,
  });

  /** Step 3's rule as first written, a window per zoom: the definition the grouped SQL must give. */
  function firstZoomByWindows(minZoom: number, maxZoom: number): string {
    const cases = Array.from({ length: maxZoom - minZoom }, (_, i) => {
      const k = 2 ** (minZoom + i + 6);
      return `WHEN greatest(x1 - x0, y1 - y0) * ${k} >= 1 OR fid = min(fid) OVER (PARTITION BY floor((x0 + x1) / 2 * ${k}), floor((y0 + y1) / 2 * ${k})) THEN ${minZoom + i}`;
    });
    return cases.length ? `CASE ${cases.join(' ')} ELSE ${maxZoom} END` : String(maxZoom);
  }
  it.each([
    ['points, zooms 0-13', true, 0, 13],
    ['points, zooms 5-9', true, 5, 9],
    ['points, one zoom', true, 4, 4],
    ['boxes of every size, zooms 0-12', false, 0, 12],
    ['boxes, zooms 3-9', false, 3, 9],
    ['boxes, zooms 2-3', false, 2, 3],
  ])('draws each feature first at the zoom its cell and size give (%s)', async (_label, points, minZoom, maxZoom) => {
    // Clustered, so cells hold many features at every zoom; box sizes from a pixel's fraction to a tile's.
    const file = path.join(dir, 'boxes.parquet');
    await engine.query(`COPY (SELECT CAST(i + 1 AS BIGINT) AS fid, x AS x0, y AS y0, x + ${points ? 0 : 's'} AS x1, y + ${points ? 0 : 's * 0.7'} AS y1
      FROM (SELECT i, 0.3 + random() * 0.01 + (i % 7) * 0.1 AS x, 0.4 + random() * 0.01 AS y, pow(random(), 6) * 0.05 AS s FROM range(20000) t(i))) TO '${file}' (FORMAT parquet)`);
    const source = `read_parquet('${file}')`;
    const expected = await engine.query(`SELECT fid, ${firstZoomByWindows(minZoom, maxZoom)} AS mz FROM ${source} ORDER BY fid`);
    const actual = await engine.query(`SELECT fid, mz FROM (${zonedSql(source, minZoom, maxZoom, points)}) ORDER BY fid`);
    expect(actual.map((r) => Number(r.mz))).toEqual(expected.map((r) => Number(r.mz)));
    // Not a trivial case: features first drawn at several zooms.
    expect(new Set(actual.map((r) => r.mz)).size).toBeGreaterThan(Math.min(3, maxZoom - minZoom));
  });

  it('stops with a 499 when the caller is gone, leaving no archive and no temp file, and its connection usable', async () => {
    const out = path.join(dir, 'gone.pmtiles');
    const abort = new AbortController();
    abort.abort();
    await expect(buildTiles(engine, job(abort.signal), out)).rejects.toMatchObject({ status: 499 });
    await expect(fs.stat(out)).rejects.toThrow();
    expect((await fs.readdir(engine.tmpDir)).filter((f) => f.startsWith('vt-'))).toEqual([]);
    // The one pooled connection was interrupted, not broken: the next tiling works.
    const done = await buildTiles(engine, job(), path.join(dir, 'ok.pmtiles'));
    expect(done).toMatchObject({ featureCount: 20000, geometryType: 'Point', fields: { id: 'Number' } });
  });
  it('keeps at most the cap of features in one tile where rows pile on one spot, and counts the tiles it capped', async () => {
    const piled = path.join(dir, 'piled.parquet');
    await engine.query(`COPY (SELECT i AS id, 10.0 AS lat, 20.0 AS lng FROM range(50) t(i)) TO '${piled}' (FORMAT parquet)`);
    const out = path.join(dir, 'objects', 'piled.pmtiles');
    await fs.mkdir(path.dirname(out), { recursive: true });
    const summary = await buildTiles(engine, { ...job(), file: piled, maxGroupFeatures: 10 }, out);
    // One spot: every zoom is one tile; each holds 10 of the 50 points.
    expect(summary).toMatchObject({ featureCount: 50, minZoom: 0, maxZoom: 0, tileCount: 1, cappedTiles: 1 });
    const tile = await new TileArchives(new LocalObjectStore(path.join(dir, 'objects'))).tile('piled.pmtiles', 0, 0, 0);
    const { VectorTile } = await import('@mapbox/vector-tile');
    const Pbf = (await import('pbf')).default;
    expect(new VectorTile(new Pbf(tile!)).layers.p!.length).toBe(10);
  });
  it('keeps each tile within tileSizeKb, the features with the lowest ids, as many as fit; the tiles it trimmed are counted', async () => {
    const { VectorTile } = await import('@mapbox/vector-tile');
    const Pbf = (await import('pbf')).default;
    await fs.mkdir(path.join(dir, 'objects'), { recursive: true });
    const archives = new TileArchives(new LocalObjectStore(path.join(dir, 'objects')));
    // Points over the whole world: at zoom 0 thinning keeps one a 4-pixel cell, some thousands in the tile.
    const world = path.join(dir, 'world.parquet');
    await engine.query(`COPY (SELECT i AS id, -60 + (i * 37 % 12000) / 100.0 AS lat, -170 + (i * 91 % 34000) / 100.0 AS lng FROM range(20000) t(i)) TO '${world}' (FORMAT parquet)`);
    const zoomZero = async (name: string, maxTileBytes?: number) => {
      const summary = await buildTiles(engine, { ...job(), file: world, maxZoom: 2, maxTileBytes }, path.join(dir, 'objects', name));
      const tile = (await archives.tile(name, 0, 0, 0))!;
      const layer = new VectorTile(new Pbf(tile)).layers.p!;
      return { summary, bytes: tile.length, ids: Array.from({ length: layer.length }, (_, i) => Number(layer.feature(i).properties.id)) };
    };
    const whole = await zoomZero('whole.pmtiles');
    expect(whole.bytes).toBeGreaterThan(8 * 1024); // the budget below must bite
    expect(whole.summary.cappedTiles).toBe(0);
    const within = await zoomZero('within.pmtiles', 8 * 1024);
    expect(within.bytes).toBeLessThanOrEqual(8 * 1024);
    expect(within.bytes).toBeGreaterThan(6 * 1024); // as many as fit, not a halving short of it
    expect(within.summary.cappedTiles).toBeGreaterThan(0);
    const sorted = [...whole.ids].sort((a, b) => a - b);
    expect([...within.ids].sort((a, b) => a - b)).toEqual(sorted.slice(0, within.ids.length));
  });
  it.each([
    ['points', 'point'],
    ['GeoJSON points', 'geometry'],
  ] as const)('low zooms first (%s): an archive of zooms up to upTo, handed over before the rest is cut, holding the same tiles as the full one', async (_label, kind) => {
    const objects = path.join(dir, 'objects');
    await fs.mkdir(objects, { recursive: true });
    const archives = new TileArchives(new LocalObjectStore(objects));
    const geo = path.join(dir, 'geo.parquet');
    await engine.query(`COPY (SELECT id, lat, lng, '{"type":"Point","coordinates":[' || lng || ',' || lat || ']}' AS g FROM read_parquet('${path.join(dir, 'p.parquet')}')) TO '${geo}' (FORMAT parquet)`);
    const base = kind === 'point' ? job() : { ...job(), file: geo, location: { kind: 'geometry' as const, column: 'g' } };
    const early: { file: string; summary: Awaited<ReturnType<typeof buildTiles>> }[] = [];
    const full = await buildTiles(engine, { ...base, minZoom: 1, maxZoom: 9, early: { upTo: 4, ready: async (file, summary) => {
      // The low archive is whole when handed over: kept aside to compare, as the studio stores it.
      await fs.copyFile(file, path.join(objects, `low-${kind}.pmtiles`));
      early.push({ file, summary });
    } } }, path.join(objects, `full-${kind}.pmtiles`));
    expect(early).toHaveLength(1);
    expect(early[0]!.summary).toMatchObject({ minZoom: 1, maxZoom: 9, cutMaxZoom: 4, featureCount: 20000 });
    expect(full.cutMaxZoom).toBeUndefined();
    expect(early[0]!.summary.tileCount).toBeLessThan(full.tileCount);
    await expect(fs.stat(early[0]!.file)).rejects.toThrow(); // removed once handed over
    // Zooms 1..4 the same tiles in both archives; none deeper in the low one.
    const low = `low-${kind}.pmtiles`;
    const whole = `full-${kind}.pmtiles`;
    for (let z = 1; z <= 5; z++) {
      const n = 2 ** z;
      const [x, y] = [Math.floor(((-121.5 + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan((37.5 * Math.PI) / 180) + 1 / Math.cos((37.5 * Math.PI) / 180)) / Math.PI) / 2) * n)];
      const [a, b] = [await archives.tile(low, z, x, y), await archives.tile(whole, z, x, y)];
      expect(b, `zoom ${z}`).not.toBeNull();
      if (z <= 4) expect(Buffer.from(a!).equals(Buffer.from(b!)), `zoom ${z}`).toBe(true);
      else expect(a).toBeNull();
    }
    // No deeper than upTo: cut in one piece, nothing handed over early.
    const ready: unknown[] = [];
    await buildTiles(engine, { ...base, maxZoom: 4, early: { upTo: 4, ready: async (f) => void ready.push(f) } }, path.join(objects, `shallow-${kind}.pmtiles`));
    expect(ready).toEqual([]);
  });
  it('low zooms first with the maximum zoom to choose, rows without a location among them: the same points, each with its id, as the full archive', async () => {
    const objects = path.join(dir, 'objects');
    await fs.mkdir(objects, { recursive: true });
    const archives = new TileArchives(new LocalObjectStore(objects));
    // Every seventh row has no latitude: ids are places in the file, so the low pass (which never writes the work table) must agree.
    const gappy = path.join(dir, 'gappy.parquet');
    await engine.query(`COPY (SELECT i AS id, CASE WHEN i % 7 = 3 THEN NULL ELSE 37 + i / 1e4 END AS lat, -122 + i / 1e4 AS lng FROM range(20000) t(i)) TO '${gappy}' (FORMAT parquet)`);
    const early: Awaited<ReturnType<typeof buildTiles>>[] = [];
    const full = await buildTiles(engine, { ...job(), file: gappy, early: { upTo: 4, ready: async (file, summary) => {
      await fs.copyFile(file, path.join(objects, 'gappy-low.pmtiles'));
      early.push(summary);
    } } }, path.join(objects, 'gappy-full.pmtiles'));
    const valid = 20000 - Math.floor((20000 - 4) / 7) - 1;
    // Before the zoom is chosen the low summary says the deepest it may be.
    expect(early).toMatchObject([{ minZoom: 0, maxZoom: 14, cutMaxZoom: 4, featureCount: valid }]);
    expect(full).toMatchObject({ minZoom: 0, featureCount: valid, bounds: early[0]!.bounds });
    expect(full.maxZoom).toBeGreaterThan(4);
    const { VectorTile } = await import('@mapbox/vector-tile');
    const Pbf = (await import('pbf')).default;
    const features = async (name: string, z: number, x: number, y: number) => {
      const layer = new VectorTile(new Pbf((await archives.tile(name, z, x, y))!)).layers.p!;
      return Array.from({ length: layer.length }, (_, i) => layer.feature(i)).map((f) => [f.id, f.properties.id, ...f.loadGeometry()[0]!.map((p) => [p.x, p.y])]).sort((a, b) => Number(a[0]) - Number(b[0]));
    };
    for (let z = 0; z <= 4; z++) {
      const n = 2 ** z;
      const [x, y] = [Math.floor(((-121.5 + 180) / 360) * n), Math.floor(((1 - Math.log(Math.tan((37.5 * Math.PI) / 180) + 1 / Math.cos((37.5 * Math.PI) / 180)) / Math.PI) / 2) * n)];
      const [low, whole] = [await features('gappy-low.pmtiles', z, x, y), await features('gappy-full.pmtiles', z, x, y)];
      expect(low.length, `zoom ${z}`).toBeGreaterThan(0);
      expect(low, `zoom ${z}`).toEqual(whole);
      expect(low.every(([fid, id]) => fid === Number(id) + 1), `zoom ${z}`).toBe(true);
    }
  });
});
