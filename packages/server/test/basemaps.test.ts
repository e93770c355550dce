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

  it('lists blank, light and dark, anonymously, with style URLs on the caller’s host', async () => {
    const res = await get('/v1/basemaps');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { items: { id: string; styleUrl: string }[]; tileUrl: string };
    expect(body.items.map((i) => i.id)).toEqual(['blank', 'light', 'dark']);
    for (const u of [...body.items.map((i) => i.styleUrl), body.tileUrl]) expect(new URL(u).host).toBe('studio.test:8080');
  });

  it('answers a z0 tile that decodes and holds the land and country layers, cacheable', async () => {
    const res = await get('/v1/basemaps/tiles/0/0/0.pbf');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    expect(res.headers['cache-control']).toMatch(/public, max-age=\d+/);
    const tile = new VectorTile(new Pbf(res.rawPayload));
    expect(Object.keys(tile.layers).sort()).toEqual(['countries', 'land']);
    expect(tile.layers.land!.length).toBeGreaterThan(0);
    expect(tile.layers.land!.feature(0).type).toBe(3);
    expect(tile.layers.countries!.feature(0).type).toBe(2);
  });

  it('adds US counties from z5 only', async () => {
    // San Francisco: z5 5/12, z4 2/6.
    const layersAt = async (url: string) => Object.keys(new VectorTile(new Pbf((await get(url)).rawPayload)).layers).sort();
    expect(await layersAt('/v1/basemaps/tiles/5/5/12.pbf')).toEqual(['counties', 'countries', 'land', 'states']);
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
