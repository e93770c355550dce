import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MVTSource } from '@loaders.gl/mvt';
import { cancelTilesThatLeaveTheView, type TileSourceLike } from '../src/map/kepler/tile-signals';

/**
 * A tile server on loopback: tile 1/0/0 answers an empty tile at once; every other tile is held open until the
 * client goes, and the test learns whether the client went (its request closed before an answer).
 */
const held = new Map<string, { closed: Promise<void> }>();
const arrived = new Map<string, () => void>();
const server = http.createServer((req, res) => {
  const url = req.url ?? '';
  if (url.endsWith('/1/0/0')) {
    res.writeHead(200, { 'content-type': 'application/vnd.mapbox-vector-tile' }).end();
    return;
  }
  held.set(url, { closed: new Promise((resolve) => res.on('close', () => resolve())) });
  arrived.get(url)?.();
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A source as kepler.gl 3.2 builds it for a remote MVT tileset (its fetch in `mvt.loadOptions`, which loaders.gl does not read). */
const keplerSource = (name: string) =>
  MVTSource.createDataSource(`${base}/${name}/{z}/{x}/{y}`, { mvt: { loadOptions: { fetch: (input: string, init?: RequestInit) => fetch(input, init) } } } as never) as unknown as TileSourceLike;
const requestArrives = (path: string) => new Promise<void>((resolve) => arrived.set(path, resolve));
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => 'settled' as const, () => 'settled' as const), new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

describe("a vector tile layer's tile requests", () => {
  it.each([
    ['wrapped as the map builder does', 'closes its request', true, 'settled'],
    ['as loaders.gl makes them', 'leaves its request open', false, 'pending'],
  ] as const)('%s: aborting a tile that left the view %s', async (_label, _does, wrap, outcome) => {
    const name = wrap ? 'wrapped' : 'plain';
    const source = keplerSource(name);
    if (wrap) cancelTilesThatLeaveTheView(source);
    const tile = `/${name}/3/2/5`;
    const arrives = requestArrives(tile);
    const controller = new AbortController();
    const loading = source.getTileData({ index: { x: 2, y: 5, z: 3 }, signal: controller.signal });
    loading.catch(() => undefined);
    await arrives;
    controller.abort();
    // The server sees the request go (the client closed it), and the tile's load ends, only when the signal reached the fetch.
    expect(await within(held.get(tile)!.closed, 2_000)).toBe(outcome);
    expect(await within(loading, 500)).toBe(outcome);
    if (wrap) await expect(loading).rejects.toThrow(/abort/i);
  });

  it('loads a tile in view as before, and leaves a source of another shape alone', async () => {
    const source = keplerSource('loaded');
    cancelTilesThatLeaveTheView(source);
    expect(cancelTilesThatLeaveTheView(source)).toBe(source);
    const data = await source.getTileData({ index: { x: 0, y: 0, z: 1 }, signal: new AbortController().signal });
    expect(data).toEqual(await keplerSource('plain-loaded').getTileData({ index: { x: 0, y: 0, z: 1 } }));
    const other = { getTileData: () => Promise.resolve(null) };
    expect(cancelTilesThatLeaveTheView(other)).toBe(other);
    expect(cancelTilesThatLeaveTheView(null)).toBeNull();
  });
});
