import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, storageDriverFor, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly } from './helpers';
import { startPlanetServer, type PlanetServer } from './servers/planet';

const driver = storageDriverFor('planet');
const MANIFEST = '{"files":[{"path":"footprints.geojson"}]}';
const FOOTPRINTS = '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.4,37.8]},"properties":{"scene":"x"}}]}';
let server: PlanetServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, token: string | null = 'PLAK-test-key'): DriverTarget => ({
  type: 'planet',
  config: { apiUrl: server.url, ...over },
  credentials: token ? { token } : null,
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'planet-test-'));
  server = await startPlanetServer({ apiKey: 'PLAK-test-key', scenes: 620, pageSize: 250, orderFiles: { 'manifest.json': MANIFEST, 'footprints.geojson': FOOTPRINTS } });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Planet storage driver (Orders and Data APIs)', () => {
  it('tests the API key: the orders it can see, or the one order of the connection', async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'Planet: 1 order' });
    await expect(driver.test(target({ orderId: 'a1b2c3d4-order' }))).resolves.toEqual({ ok: true, serverVersion: 'Planet order Bay Area scenes (success)' });
  });

  it.each([
    ['a refused key', () => target({}, 'PLAK-wrong'), /Planet refused the API key \(401\)/],
    ['no key', () => target({}, null), /needs a Planet API key/],
    ['an unknown order', () => target({ orderId: 'nope' }), /Planet has no \/compute\/ops\/orders\/v2\/nope/],
    ['an API host the network rule refuses', () => target({ apiUrl: 'http://192.168.1.5' }), /not allowed: 192.168.1.5/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('lists orders and their result files, and saved searches', async () => {
    expect((await driver.list(target(), '')).items.map((i) => i.key)).toEqual(['orders/', 'searches/']);
    expect((await driver.list(target(), 'orders/')).items).toEqual([{ name: 'a1b2c3d4-order/', key: 'orders/a1b2c3d4-order/', type: 'folder', lastModified: '2024-06-02T08:00:00.000Z' }]);
    expect((await driver.list(target(), 'orders/a1b2c3d4-order/')).items.map((i) => i.key)).toEqual(['orders/a1b2c3d4-order/manifest.json', 'orders/a1b2c3d4-order/footprints.geojson']);
    expect((await driver.list(target(), 'searches/')).items.map((i) => i.key)).toEqual(['searches/bay-scenes.geojson']);
  });

  it("downloads an order's result from its signed location, streamed to the file", async () => {
    const file = path.join(dir, 'fp.geojson');
    await expect(driver.download(target(), 'orders/a1b2c3d4-order/footprints.geojson', file)).resolves.toEqual({ contentType: 'application/geo+json', size: FOOTPRINTS.length });
    expect(await fs.readFile(file, 'utf8')).toBe(FOOTPRINTS);
  });

  it("collects every page of a saved search's footprints into one FeatureCollection", async () => {
    const file = path.join(dir, 'search.geojson');
    await driver.download(target(), 'searches/bay-scenes.geojson', file);
    const fc = JSON.parse(await fs.readFile(file, 'utf8')) as { features: { id: string }[] };
    expect(fc.features).toHaveLength(620);
    expect(fc.features[619]!.id).toBe('20240601_000619_1058');
    expect(server.paths.filter((p) => p === '/data/v1/searches/bay-scenes/results')).toHaveLength(3);
  });

  it('keeps to the order of an order connection', async () => {
    const t = target({ orderId: 'a1b2c3d4-order' });
    expect((await driver.list(t, '')).items.map((i) => i.key)).toEqual(['orders/']);
    await expect(driver.list(t, 'orders/other-order/')).rejects.toMatchObject({ status: 422 });
    await expect(driver.download(t, 'searches/bay-scenes.geojson', path.join(dir, 'x'))).rejects.toMatchObject({ status: 422 });
  });
});
