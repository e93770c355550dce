import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VectorTile } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import { startStudio, type TestStudio } from './harness';

/** Every absolute URL inside a JSON value. */
const urlsIn = (value: unknown): string[] => [...JSON.stringify(value).matchAll(/[a-z][a-z0-9+.-]*:\/\/[^"\s]*/gi)].map((m) => m[0]);

describe('built-in basemaps', () => {
  let s: TestStudio;
  const get = (url: string, host = 'studio.test:8080') => s.app.inject({ method: 'GET', url, headers: { host } });

  beforeAll(async () => {
    s = await startStudio('pglite');
  });
  afterAll(async () => s?.dispose());

  it('lists blank, light, dark and the labelled one, anonymously, with style URLs on the caller’s host', async () => {
    const res = await get('/v1/basemaps');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { items: { id: string; styleUrl: string }[]; tileUrl: string };
    expect(body.items.map((i) => i.id)).toEqual(['blank', 'light', 'dark', 'labelled']);
    for (const u of [...body.items.map((i) => i.styleUrl), body.tileUrl]) expect(new URL(u).host).toBe('studio.test:8080');
  });

  it('answers a z0 tile that decodes and holds the land and country layers, cacheable', async () => {
    const res = await get('/v1/basemaps/tiles/0/0/0.pbf');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(res.headers['cache-control']).toMatch(/public, max-age=\d+/);
    const tile = new VectorTile(new Pbf(res.rawPayload));
    expect(Object.keys(tile.layers).sort()).toEqual(['countries', 'land', 'places']);
    expect(tile.layers.land!.length).toBeGreaterThan(0);
    expect(tile.layers.land!.feature(0).type).toBe(3);
    expect(tile.layers.countries!.feature(0).type).toBe(2);
  });

  it('adds US counties from z5 only', async () => {
    // San Francisco: z5 5/12, z4 2/6.
    const layersAt = async (url: string) => Object.keys(new VectorTile(new Pbf((await get(url)).rawPayload)).layers).sort();
    expect(await layersAt('/v1/basemaps/tiles/5/5/12.pbf')).toEqual(['counties', 'countries', 'land', 'places', 'states']);
    expect(await layersAt('/v1/basemaps/tiles/4/2/6.pbf')).not.toContain('counties');
  });

  it('answers 204 for an empty tile (the South Pacific)', async () => {
    expect((await get('/v1/basemaps/tiles/6/8/40.pbf')).statusCode).toBe(204);
  });

  it.each([
    ['x past the zoom level', '/v1/basemaps/tiles/0/1/0.pbf'],
    ['y past the zoom level', '/v1/basemaps/tiles/3/0/8.pbf'],
    ['a zoom past the pyramid', '/v1/basemaps/tiles/15/0/0.pbf'],
    ['a negative coordinate', '/v1/basemaps/tiles/2/-1/0.pbf'],
    ['a non-number', '/v1/basemaps/tiles/a/0/0.pbf'],
  ])('refuses %s with 422', async (_label, url) => {
    const res = await get(url);
    expect([res.statusCode, res.json().appStatusCode ?? res.statusCode]).toEqual([422, 422]);
  });

  it('names places by rank as the zoom grows: the largest on a world view, towns near', async () => {
    const namesAt = async (url: string) => {
      const layer = new VectorTile(new Pbf((await get(url)).rawPayload)).layers.places!;
      return Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties as { name: string; rank: number; population: number });
    };
    const world = await namesAt('/v1/basemaps/tiles/0/0/0.pbf');
    expect(world.map((p) => p.name)).toEqual(expect.arrayContaining(['Tokyo', 'Paris', 'Canberra']));
    expect(new Set(world.map((p) => p.rank))).toEqual(new Set([1]));
    // The San Francisco Bay at z7 (20/49): Oakland (rank 3) and Palo Alto (rank 4, ~65,000 people) are named.
    const bay = await namesAt('/v1/basemaps/tiles/7/20/49.pbf');
    expect(bay.map((p) => p.name)).toEqual(expect.arrayContaining(['San Francisco', 'Oakland', 'Palo Alto']));
    expect(Math.min(...bay.map((p) => p.population))).toBeGreaterThanOrEqual(50_000);
    const bayAtZ3 = await namesAt('/v1/basemaps/tiles/3/1/3.pbf');
    expect(bayAtZ3.map((p) => p.name)).not.toContain('Palo Alto');
  });

  it('answers glyph ranges as MapLibre reads them: signed distance fields of the studio’s font, for any font stack', async () => {
    const res = await get('/v1/basemaps/glyphs/Open%20Sans%20Regular/0-255.pbf');
    expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'application/x-protobuf']);
    type Glyph = { id: number; width: number; height: number; left: number; top: number; advance: number; bitmap?: Uint8Array };
    const glyphs = new Map<number, Glyph>();
    // MapLibre's glyphs.proto read as MapLibre reads it (style/parse_glyph_pbf.ts); every callback gets the same Pbf.
    const pbf = new Pbf(res.rawPayload);
    const readGlyph = (f: number, g?: Glyph) => {
      if (f === 2) g!.bitmap = pbf.readBytes();
      else if (f === 5) g!.left = pbf.readSVarint();
      else if (f === 6) g!.top = pbf.readSVarint();
      else (g as unknown as Record<string, number>)[['', 'id', '', 'width', 'height', '', '', 'advance'][f]!] = pbf.readVarint();
    };
    const readStack = (t: number) => {
      if (t !== 3) return;
      const g = pbf.readMessage(readGlyph, { id: 0, width: 0, height: 0, left: 0, top: 0, advance: 0 });
      glyphs.set(g.id, g);
    };
    pbf.readFields((tag) => tag === 1 && pbf.readMessage(readStack, null), null);
    const H = glyphs.get(72)!;
    // 24 px DejaVu Sans: an H about 14 px wide and 17 px tall (cap height), its bitmap with a 3 px border.
    expect(H.width).toBeGreaterThan(10);
    expect(H.height).toBeGreaterThan(14);
    expect(H.bitmap!.length).toBe((H.width + 6) * (H.height + 6));
    const at = (x: number, y: number) => H.bitmap![(y + 3) * (H.width + 6) + x + 3]!;
    // Inside the left stem, beyond the edge (192), and in the empty middle above the crossbar, outside.
    expect(at(1, Math.floor(H.height / 2))).toBeGreaterThan(192);
    expect(at(Math.floor(H.width / 2), 2)).toBeLessThan(192);
    expect(glyphs.get(32)).toMatchObject({ width: 0, height: 0 });
    expect(glyphs.get(32)!.advance).toBeGreaterThan(4);
    // Accented capitals of place names (Ł, Ö…) are there; an unassigned code point is not.
    expect((await get('/v1/basemaps/glyphs/Studio%20Sans/256-511.pbf')).statusCode).toBe(200);
    expect(glyphs.has(214)).toBe(true);
  });

  it.each([['0-256'], ['1-256'], ['65536-65791'], ['a-b']])('refuses the glyph range %s with 422', async (range) => {
    const res = await get(`/v1/basemaps/glyphs/Studio%20Sans/${range}.pbf`);
    expect([res.statusCode, res.json().message]).toEqual([422, 'A glyph range is 256 code points, e.g. 0-255']);
  });

  it('labels the labelled style with the studio’s own glyph server', async () => {
    const style = (await get('/v1/basemaps/labelled/style.json')).json() as { glyphs: string; layers: { id: string; type: string; layout?: Record<string, unknown> }[] };
    expect(style.glyphs).toBe('http://studio.test:8080/v1/basemaps/glyphs/{fontstack}/{range}.pbf');
    expect(style.layers.at(-1)).toMatchObject({ id: 'place-label', type: 'symbol', layout: { 'text-field': ['get', 'name'], 'text-font': ['Studio Sans'] } });
    for (const u of urlsIn(style)) expect(new URL(u.replace(/[{}]/g, '')).host).toBe('studio.test:8080');
  });

  it.each(['blank', 'light', 'dark'])('answers the %s style as style v8 with no URL to another host', async (id) => {
    const res = await get(`/v1/basemaps/${id}/style.json`);
    expect(res.statusCode).toBe(200);
    const style = res.json() as { version: number; sources: Record<string, { tiles: string[] }>; layers: { id: string }[]; glyphs?: string; sprite?: string };
    expect(style.version).toBe(8);
    expect(style.layers[0]!.id).toBe('background');
    expect(style.glyphs).toBeUndefined();
    expect(style.sprite).toBeUndefined();
    for (const u of urlsIn(style)) expect(new URL(u).host).toBe('studio.test:8080');
    if (id !== 'blank') expect(style.sources.studio!.tiles).toEqual(['http://studio.test:8080/v1/basemaps/tiles/{z}/{x}/{y}.pbf']);
  });

  it('answers 404 for an unknown style', async () => {
    expect((await get('/v1/basemaps/satellite/style.json')).statusCode).toBe(404);
  });
});
