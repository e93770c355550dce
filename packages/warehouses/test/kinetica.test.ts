import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, kineticaDuckType, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly, rowFetcher } from './helpers';
import { startKineticaServer, type KineticaServer } from './servers/kinetica';

const SETUP = `CREATE SCHEMA fleet;
  CREATE TABLE fleet.pings AS SELECT i::BIGINT AS id, 'Truck ' || (i % 7) AS truck, 40 + i / 10000 AS lat, -74 + i / 10000 AS lon, TIMESTAMP '2024-06-01 00:00:00' + INTERVAL (i) MINUTE AS seen_at FROM range(23000) t(i);`;
const driver = driverFor('kinetica');
let server: KineticaServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, password = 'k1n3t1ca'): DriverTarget => ({
  type: 'kinetica',
  config: { url: server.url, user: 'analyst', schema: 'fleet', ...over },
  credentials: { password },
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});
const fetchRows = rowFetcher(driver, () => dir);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kinetica-test-'));
  server = await startKineticaServer({ user: 'analyst', password: 'k1n3t1ca', setup: SETUP });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Kinetica driver (its REST API)', () => {
  it("tests a connection: the server's core version", async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'Kinetica 7.2.2.3' });
  });

  it.each([
    ['a wrong password', () => target({}, 'nope'), /password was refused \(401\)/],
    ['a port nobody answers', () => target({ url: 'http://127.0.0.1:9' }), /^Could not connect/],
    ['a host the network rule refuses', () => target({ url: 'http://10.0.0.8:9191' }), /not allowed: 10.0.0.8/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('browses schemas, tables and columns', async () => {
    expect((await driver.browse(target(), [])).map((s) => s.name)).toContain('fleet');
    expect(await driver.browse(target(), ['fleet'])).toEqual([{ name: 'pings', type: 'table' }]);
    expect((await driver.browse(target(), ['fleet', 'pings'])).map((c) => c.name)).toEqual(['id', 'truck', 'lat', 'lon', 'seen_at']);
  });

  it('pages through a result with offset and limit, and binds $n values through query_parameters', async () => {
    const all = await fetchRows(target(), 'SELECT id, truck, lat, seen_at FROM fleet.pings ORDER BY id');
    expect(all.rowCount).toBe(23000);
    expect(server.requests.filter((r) => r.endpoint === '/execute/sql').slice(-3).map((r) => r.body.offset)).toEqual([0, 10000, 20000]);
    expect(all.columns).toEqual([{ name: 'id', duckType: 'BIGINT' }, { name: 'truck', duckType: 'VARCHAR' }, { name: 'lat', duckType: 'DOUBLE' }, { name: 'seen_at', duckType: 'TIMESTAMP' }]);
    expect(all.rows[22999]).toEqual({ c0: '22999', c1: 'Truck 4', c2: '42.2999', c3: '2024-06-16 23:19:00' });
    const some = await fetchRows(target(), 'SELECT count(*) AS n FROM fleet.pings WHERE truck = {{truck}} AND id < $max', { truck: "Truck 3' OR '1'='1", max: 100 });
    expect(some.rows).toEqual([{ c0: '0' }]);
    expect(server.requests.at(-1)!.body).toMatchObject({ statement: 'SELECT count(*) AS n FROM fleet.pings WHERE truck = $1 AND id < $2', encoding: 'json', options: { query_parameters: '["Truck 3\' OR \'1\'=\'1",100]', current_schema: 'fleet' } });
  });

  it("answers Kinetica's ERROR message", async () => {
    await expect(fetchRows(target(), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/syntax error/i) });
  });

  it.each([['int', 'INTEGER'], ['long', 'BIGINT'], ['double', 'DOUBLE'], ['datetime', 'TIMESTAMP'], ['string', 'VARCHAR'], ['wkt', 'VARCHAR']])('Kinetica %s is DuckDB %s', (k, duck) => {
    expect(kineticaDuckType(k)).toBe(duck);
  });
});
