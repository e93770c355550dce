import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, jobEnded, useStudio, type Who } from './harness';
import { IMMUTABLE, REVALIDATE } from '../src/http/tile-headers';
import { TileCache, ZipReader } from '@studio/tiles';

/** 400 points around San Francisco. */
const CSV = ['name,lat,lng,amount', ...Array.from({ length: 400 }, (_, i) => `p${i},${(37.70 + (i % 20) * 0.004).toFixed(4)},${(-122.50 + Math.floor(i / 20) * 0.006).toFixed(4)},${i % 7}`)].join('\n');
const ARROW = 'application/vnd.apache.arrow.stream';

describe.each(STORES)('tile caching on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const get = (who: Who, url: string, headers: Record<string, string> = {}) => as(who, 'GET', url, undefined, headers);
  /** A build call's answer: 201 with the dataset pending and its job; then the dataset, ready. */
  const built = async (res: Awaited<ReturnType<typeof as>>) => {
    expect(res.statusCode, res.body).toBe(201);
    expect((await jobEnded((url) => get('owner', url), res.json().job.id)).status).toBe('succeeded');
    return (await get('owner', `/v1/datasets/${res.json().item.id}`)).json().item as { id: string };
  };
  let hexTiles: { id: string };
  let vector: { id: string };
  let tileUrl: string;
  /** A tile of the finest zoom: no other test reads it, so it is cold on this node until the test that does. */
  let coldTileUrl: string;
  let version: string;

  beforeAll(async () => {
    const upload = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Points', payload: CSV, headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } });
    const points = upload.json().item as { id: string };
    hexTiles = await built(await as('owner', 'POST', '/v1/datasets/hextile', { source: points.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 8, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }, { sourceColumn: 'amount', targetColumn: 'total', aggMethod: 'sum' }] }));
    vector = await built(await as('owner', 'POST', '/v1/datasets/vectortile', { datasetId: points.id, name: 'Point tiles' }));
    const meta = (await get('owner', `/v1/tileset/${hexTiles.id}/metadata`)).json().item;
    version = meta.version;
    const index = (await get('owner', `/v1/tileset/${hexTiles.id}/tileset-index`)).json().item;
    const z = meta.minZoom as number;
    tileUrl = meta.tileUrl.replace('{z}', String(z)).replace('{hex}', Object.keys(index.tiles[z])[0]);
    coldTileUrl = meta.tileUrl.replace('{z}', String(meta.maxZoom)).replace('{hex}', Object.keys(index.tiles[meta.maxZoom])[0]);
  });

  it('hands out tile URLs that carry the tileset version; those answer immutable, others revalidate with a strong ETag', async () => {
    expect(version).toMatch(/^[\w-]{16}$/);
    expect(tileUrl).toMatch(new RegExp(`^/v1/tileset/${hexTiles.id}/\\d+/[0-9a-f]+\\?v=${version}$`));
    const versioned = await get('owner', tileUrl, { accept: ARROW });
    expect([versioned.statusCode, versioned.headers['cache-control'], versioned.headers['content-type']]).toEqual([200, IMMUTABLE, ARROW]);
    expect(versioned.headers.etag).toMatch(/^"[\w-]{27}"$/);
    const plain = await get('owner', tileUrl.replace(/\?v=.*/, ''), { accept: ARROW });
    expect([plain.statusCode, plain.headers['cache-control'], plain.headers.etag]).toEqual([200, REVALIDATE, versioned.headers.etag]);
    expect(plain.rawPayload.equals(versioned.rawPayload)).toBe(true);
    // A URL naming another version (a rebuilt tileset's old URL) is not kept: the client asks again.
    expect((await get('owner', tileUrl.replace(version, 'AAAAAAAAAAAAAAAA'), { accept: ARROW })).headers['cache-control']).toBe(REVALIDATE);
  });

  it('answers 304 with no body when the client holds the current answer, and the bytes again when it does not', async () => {
    const first = await get('owner', tileUrl, { accept: ARROW });
    const again = await get('owner', tileUrl, { accept: ARROW, 'if-none-match': first.headers.etag as string });
    expect([again.statusCode, again.body, again.headers.etag]).toEqual([304, '', first.headers.etag]);
    const stale = await get('owner', tileUrl, { accept: ARROW, 'if-none-match': '"someone-elses"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('gives each answer of a tile its own ETag: fields chosen by q, and the stored Parquet entry', async () => {
    const all = await get('owner', tileUrl, { accept: ARROW });
    const some = await get('owner', `${tileUrl}&q=n`, { accept: ARROW });
    const parquet = await get('owner', tileUrl, { accept: 'application/octet-stream' });
    expect([some.statusCode, parquet.statusCode]).toEqual([200, 200]);
    expect(new Set([all.headers.etag, some.headers.etag, parquet.headers.etag]).size).toBe(3);
    expect(some.rawPayload.length).toBeLessThan(all.rawPayload.length);
    expect(parquet.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    expect(parquet.headers.vary).toMatch(/Accept/i);
    // The held Arrow answer does not stand for the Parquet one.
    expect((await get('owner', tileUrl, { accept: 'application/octet-stream', 'if-none-match': all.headers.etag as string })).statusCode).toBe(200);
  });

  it('keeps hot tiles in the node’s memory: the second read of a tile is a cache hit with the same bytes', async () => {
    const cache = ctx.s.services.tileCache;
    const url = `${tileUrl}&q=total`;
    const before = { hits: cache.hits, misses: cache.misses };
    const first = await get('owner', url, { accept: ARROW });
    const second = await get('owner', url, { accept: ARROW });
    expect([cache.misses - before.misses, cache.hits - before.hits]).toEqual([1, 1]);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('reads a cold tile once for the clients that ask for it together, and answers each the same bytes, with no DuckDB query', async () => {
    const engine = ctx.s.services.engine;
    const stream = engine.arrowStream;
    const read = ZipReader.prototype.read;
    let queries = 0;
    const entries: string[] = [];
    engine.arrowStream = (...args: Parameters<typeof stream>) => {
      queries++;
      return stream.apply(engine, args);
    };
    ZipReader.prototype.read = function (this: ZipReader, name: string) {
      entries.push(name);
      return read.call(this, name);
    };
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => get('owner', coldTileUrl, { accept: ARROW })));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.every((a) => a.rawPayload.equals(answers[0]!.rawPayload))).toBe(true);
      // One read of the tile's Arrow entry, encoded when the tileset was built: sent as it is.
      expect(entries.filter((e) => e.startsWith('arrow/'))).toHaveLength(1);
      expect(queries).toBe(0);
    } finally {
      engine.arrowStream = stream;
      ZipReader.prototype.read = read;
    }
  });

  it('sends Arrow hex tiles gzip to clients that accept it (their own ETag, the same rows), the Parquet entry as stored', async () => {
    const plain = await get('owner', tileUrl, { accept: ARROW });
    const packed = await get('owner', tileUrl, { accept: ARROW, 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.rawPayload.length).toBeGreaterThanOrEqual(512);
    expect([packed.statusCode, packed.headers['content-encoding'], packed.headers.vary]).toEqual([200, 'gzip', 'Accept, Accept-Encoding']);
    expect(gunzipSync(packed.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length * 0.7);
    expect(packed.headers.etag).not.toBe(plain.headers.etag);
    expect((await get('owner', tileUrl, { accept: ARROW, 'accept-encoding': 'gzip', 'if-none-match': packed.headers.etag as string })).statusCode).toBe(304);
    const parquet = await get('owner', tileUrl.replace(/\?.*$/, ''), { accept: 'application/octet-stream', 'accept-encoding': 'gzip' });
    expect([parquet.statusCode, parquet.headers['content-encoding'], parquet.rawPayload.subarray(0, 4).toString()]).toEqual([200, undefined, 'PAR1']);
  });

  it('checks access before anything: a stranger holding the ETag gets 404, not 304', async () => {
    const held = (await get('owner', tileUrl, { accept: ARROW })).headers.etag as string;
    const stranger = await get('outsider', tileUrl, { accept: ARROW, 'if-none-match': held });
    expect([stranger.statusCode, stranger.headers.etag]).toEqual([404, undefined]);
  });

  it('reuses a granted check for a moment only: a reader whose share is revoked is refused within the access cache time', async () => {
    const shared = await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: hexTiles.id, email: ctx.cast.users.viewer.email, role: 'viewer' });
    expect(shared.statusCode, shared.body).toBeLessThan(300);
    expect((await get('viewer', tileUrl, { accept: ARROW })).statusCode).toBe(200);
    // A person outside the owner's organization is shared with by email.
    const { emails } = (await get('owner', `/v1/permissions/dataset/${hexTiles.id}`)).json().item as { emails: { id: string; email: string }[] };
    const grant = emails.find((e) => e.email === ctx.cast.users.viewer.email)!;
    expect((await as('owner', 'DELETE', `/v1/permissions/${grant.id}`)).statusCode).toBeLessThan(300);
    const started = Date.now();
    await expect.poll(async () => (await get('viewer', tileUrl, { accept: ARROW })).statusCode, { timeout: 10_000, interval: 200 }).toBe(404);
    expect(Date.now() - started).toBeLessThan(ctx.s.services.config.authCacheMs + 3000);
  });

  it('lets shared caches keep a password-free published map’s tiles until its link expires, keeps protected ones private, and stops them once unpublished', async () => {
    const publish = async (password?: string) => {
      const map = (await as('owner', 'POST', '/v1/maps', { name: 'Published tiles', latestState: { kepler: {} }, datasets: [vector.id] })).json().item as { id: string };
      expect((await as('owner', 'POST', `/v1/maps/${map.id}/publish/map`, password ? { password } : {})).statusCode).toBeLessThan(300);
      const link = await ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${map.id}/published-map/datasets/${vector.id}/tiles/link`, headers: password ? { 'x-map-password': password } : {} });
      expect(link.statusCode, link.body).toBe(200);
      return { mapId: map.id, tile: (link.json().item.tileUrl as string).replace(/^https?:\/\/[^/]+/, '').replace('{z}/{x}/{y}', '0/0/0') };
    };
    const anonymous = (url: string) => ctx.s.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    const open = await publish();
    const answer = await anonymous(open.tile);
    expect(answer.statusCode).toBe(200);
    const maxAge = Number(/^public, max-age=(\d+), immutable$/.exec(String(answer.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThan(11 * 3600);
    expect(maxAge).toBeLessThanOrEqual(13 * 3600);
    // Without its version the URL revalidates; the link cut loose from its map is a forged one.
    expect((await anonymous(open.tile.replace(/&v=[^&]+/, ''))).headers['cache-control']).toBe(REVALIDATE);
    expect((await anonymous(open.tile.replace(/&map=[^&]+/, ''))).statusCode).toBe(403);
    const locked = await publish('open sesame');
    expect((await anonymous(locked.tile)).headers['cache-control']).toBe(IMMUTABLE);
    expect((await as('owner', 'DELETE', `/v1/maps/${open.mapId}/unpublish`)).statusCode).toBe(204);
    const started = Date.now();
    await expect.poll(async () => (await anonymous(open.tile)).statusCode, { timeout: 10_000, interval: 200 }).toBe(404);
    expect(Date.now() - started).toBeLessThan(ctx.s.services.config.authCacheMs + 3000);
    expect((await anonymous(locked.tile)).statusCode).toBe(200);
  });

  it('reads the dataset a signed tile link names once per access cache time, and stops a deleted one’s links within it', async () => {
    const copy = (await as('owner', 'POST', `/v1/datasets/${vector.id}/clone`)).json().item as { id: string };
    const link = (await get('owner', `/v1/datasets/${copy.id}/tiles/link`)).json().item as { tileUrl: string };
    const tile = (z: number) => link.tileUrl.replace(/^https?:\/\/[^/]+/, '').replace('{z}/{x}/{y}', `${z}/0/0`);
    const anonymous = (url: string) => ctx.s.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    const records = ctx.s.services.records;
    const read = records.get;
    let reads = 0;
    records.get = ((id: string, ...rest: unknown[]) => {
      if (id === copy.id) reads++;
      return (read as (...a: unknown[]) => ReturnType<typeof read>).call(records, id, ...rest);
    }) as typeof read;
    try {
      // A map's view asks for a handful of tiles at once: one catalog read for all of them.
      const answers = await Promise.all([0, 1, 2, 3, 4].map((z) => anonymous(tile(z))));
      expect(answers.map((a) => a.statusCode).every((c) => c === 200 || c === 204)).toBe(true);
      expect(reads).toBe(1);
    } finally {
      records.get = read;
    }
    expect((await as('owner', 'DELETE', `/v1/datasets/${copy.id}`)).statusCode).toBe(204);
    const started = Date.now();
    await expect.poll(async () => (await anonymous(tile(0))).statusCode, { timeout: 10_000, interval: 200 }).toBe(404);
    expect(Date.now() - started).toBeLessThan(ctx.s.services.config.authCacheMs + 3000);
  });

  it('gives a copy (new stored bytes) a new version: the source’s ETag does not match it', async () => {
    const copy = (await as('owner', 'POST', `/v1/datasets/${hexTiles.id}/clone`)).json().item as { id: string };
    const copyMeta = (await get('owner', `/v1/tileset/${copy.id}/metadata`)).json().item;
    expect(copyMeta.version).toMatch(/^[\w-]{16}$/);
    expect(copyMeta.version).not.toBe(version);
    const held = (await get('owner', tileUrl, { accept: ARROW })).headers.etag as string;
    const mine = await get('owner', tileUrl.replace(hexTiles.id, copy.id).replace(version, copyMeta.version), { accept: ARROW, 'if-none-match': held });
    expect([mine.statusCode, mine.headers['cache-control']]).toEqual([200, IMMUTABLE]);
  });

  it('vector tiles: TileJSON hands out versioned URLs (immutable answers), and a held tile answers 304', async () => {
    const tj = await get('owner', `/v1/datasets/${vector.id}/tiles.json`);
    expect(tj.headers['cache-control']).toBe(REVALIDATE);
    const template = tj.json().tiles[0] as string;
    expect(template).toMatch(new RegExp(`/v1/datasets/${vector.id}/tiles/\\{z\\}/\\{x\\}/\\{y\\}\\?v=[\\w-]{16}$`));
    const path = new URL(template.replace('{z}/{x}/{y}', '0/0/0')).pathname + new URL(template).search;
    const tile = await get('owner', path);
    expect([tile.statusCode, tile.headers['cache-control'], tile.headers['content-type']]).toEqual([200, IMMUTABLE, 'application/x-protobuf']);
    const again = await get('owner', path, { 'if-none-match': tile.headers.etag as string });
    expect([again.statusCode, again.body]).toEqual([304, '']);
    // Stored gzip goes out as it is to a client that accepts it: the same tile once unpacked, its own ETag.
    const packed = await get('owner', path, { 'accept-encoding': 'gzip, deflate, br' });
    expect([packed.statusCode, packed.headers['content-encoding'], packed.headers.vary]).toEqual([200, 'gzip', 'Accept-Encoding']);
    expect(gunzipSync(packed.rawPayload).equals(tile.rawPayload)).toBe(true);
    expect(packed.headers.etag).not.toBe(tile.headers.etag);
    const unversioned = await get('owner', `/v1/datasets/${vector.id}/tiles/0/0/0`);
    expect([unversioned.headers['cache-control'], unversioned.headers.etag]).toEqual([REVALIDATE, tile.headers.etag]);
    // Signed links carry the version too, after their signature.
    const link = (await get('owner', `/v1/datasets/${vector.id}/tiles/link`)).json().item;
    const signed = (await ctx.s.app.inject({ method: 'GET', url: new URL(link.tileJsonUrl).pathname + new URL(link.tileJsonUrl).search })).json();
    expect(signed.tiles[0]).toMatch(/\?exp=\d+&sig=[^&]+&v=[\w-]{16}$/);
    expect((await get('outsider', path, { 'if-none-match': tile.headers.etag as string })).statusCode).toBe(404);
  });
});

/**
 * The reuse of a granted tile check, shown on a studio whose access cache time is a minute: within it a revoked
 * reader still reads on this node (the documented bound, not a sleep), a refusal is never reused, and the
 * reuse is per credential.
 */
describe.each(STORES)('tile access reuse on %s (STUDIO_AUTH_CACHE_MS one minute)', (kind) => {
  const { ctx, as } = useStudio(kind, { authCacheMs: 60_000 });
  const get = (who: Who, url: string) => as(who, 'GET', url, undefined, { accept: ARROW });
  let tileUrl: string;
  let datasetId: string;

  beforeAll(async () => {
    const upload = await ctx.s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Points', payload: CSV, headers: { authorization: ctx.cast.tokens.owner, 'content-type': 'text/csv' } });
    const built = await as('owner', 'POST', '/v1/datasets/hextile', { source: upload.json().item.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 7, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] });
    expect(built.statusCode, built.body).toBe(201);
    datasetId = built.json().item.id;
    expect((await jobEnded((url) => as('owner', 'GET', url), built.json().job.id)).status).toBe('succeeded');
    const meta = (await as('owner', 'GET', `/v1/tileset/${datasetId}/metadata`)).json().item;
    const index = (await as('owner', 'GET', `/v1/tileset/${datasetId}/tileset-index`)).json().item;
    tileUrl = meta.tileUrl.replace('{z}', String(meta.minZoom)).replace('{hex}', Object.keys(index.tiles[meta.minZoom])[0]);
  });

  it('answers a refused caller at once after a share, and a revoked one from the reused check until it runs out', async () => {
    expect((await get('viewer', tileUrl)).statusCode).toBe(404);
    const shared = await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: datasetId, email: ctx.cast.users.viewer.email, role: 'viewer' });
    expect(shared.statusCode, shared.body).toBeLessThan(300);
    // The refusal above was not kept: the new share works on the next read.
    expect((await get('viewer', tileUrl)).statusCode).toBe(200);
    const { emails } = (await as('owner', 'GET', `/v1/permissions/dataset/${datasetId}`)).json().item as { emails: { id: string; email: string }[] };
    const grant = emails.find((e) => e.email === ctx.cast.users.viewer.email)!;
    expect((await as('owner', 'DELETE', `/v1/permissions/${grant.id}`)).statusCode).toBeLessThan(300);
    // Within the minute this node answers from the check it granted; the tile's metadata (not reused) is refused.
    expect((await get('viewer', tileUrl)).statusCode).toBe(200);
    expect((await as('viewer', 'GET', `/v1/tileset/${datasetId}/metadata`)).statusCode).toBe(404);
    // Another caller's reused grant is not the viewer's: a stranger is refused.
    expect((await get('outsider', tileUrl)).statusCode).toBe(404);
  });
});

describe('the tile cache', () => {
  it('loads a key once for the asks that arrive together, keeps no failed load, and answers later asks from memory', async () => {
    const cache = new TileCache(1024 * 1024);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const load = async () => {
      loads++;
      await gate;
      return Buffer.from('tile');
    };
    const asks = [cache.getOrLoad('k', load), cache.getOrLoad('k', load), cache.getOrLoad('k', load)];
    release();
    expect((await Promise.all(asks)).map(String)).toEqual(['tile', 'tile', 'tile']);
    await cache.getOrLoad('k', load);
    expect([loads, cache.size.entries]).toEqual([1, 1]);
    await expect(cache.getOrLoad('broken', async () => Promise.reject(new Error('read failed')))).rejects.toThrow('read failed');
    expect(String(await cache.getOrLoad('broken', async () => Buffer.from('read again')))).toBe('read again');
  });
});
