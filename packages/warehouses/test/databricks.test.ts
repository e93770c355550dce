import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOnly, rowFetcher } from './helpers';
import { DEFAULT_DRIVER_SETTINGS, databricksDuckType, driverFor, type DriverTarget } from '@studio/warehouses';
import { startDatabricksServer, type DatabricksServer } from './servers/databricks';

const SETUP = `CREATE SCHEMA geo;
  CREATE TABLE geo.trips AS SELECT i::BIGINT AS id, 'Trip ' || i AS name, i * 1.5 AS miles, DATE '2024-02-01' + i::INTEGER AS day, i % 2 = 0 AS paid FROM range(230) t(i);
  CREATE VIEW geo.paid AS SELECT * FROM geo.trips WHERE paid;`;
const driver = driverFor('databricks');
let server: DatabricksServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, token = 'dapi-test-token'): DriverTarget => ({
  type: 'databricks',
  config: { host: '127.0.0.1', port: server.port, ssl: false, httpPath: '/sql/1.0/warehouses/wh42', catalog: 'workspace', schema: 'geo', ...over },
  credentials: { token },
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

const fetchRows = rowFetcher(driver, () => dir);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'databricks-test-'));
  server = await startDatabricksServer({ catalog: 'workspace', warehouseId: 'wh42', token: 'dapi-test-token', setup: SETUP, chunkRows: 50 });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Databricks driver (SQL Statement Execution API)', () => {
  it('tests a connection on the warehouse of its HTTP path, with its catalog and schema', async () => {
    await expect(driver.test(target())).resolves.toMatchObject({ ok: true, serverVersion: expect.stringMatching(/^Databricks SQL \S/) });
    expect(server.requests.at(-1)).toMatchObject({ warehouse_id: 'wh42', catalog: 'workspace', schema: 'geo', disposition: 'INLINE', format: 'JSON_ARRAY' });
  });

  it.each([
    ['a refused token', () => target({}, 'wrong'), /access token was refused \(401/],
    ['an unknown warehouse', () => target({ httpPath: '/sql/1.0/warehouses/nope' }), /RESOURCE_DOES_NOT_EXIST: Warehouse nope does not exist/],
    ['an HTTP path that names no warehouse', () => target({ httpPath: '/sql/protocolv1/o/1/0123' }), /SQL warehouse path/],
    ['a port nobody answers', () => target({ port: 9 }), /^Could not connect/],
    ['a host the network rule refuses', () => target({ host: 'localhost' }), /not allowed: localhost/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('browses schemas, tables and views, and columns', async () => {
    expect((await driver.browse(target(), [])).map((s) => s.name)).toContain('geo');
    expect(await driver.browse(target(), ['geo'])).toEqual([{ name: 'paid', type: 'view' }, { name: 'trips', type: 'table' }]);
    expect((await driver.browse(target(), ['geo', 'trips'])).map((c) => c.name)).toEqual(['id', 'name', 'miles', 'day', 'paid']);
    await expect(driver.browse(target(), ["geo' OR '1'='1"])).resolves.toEqual([]);
  });

  it('reads every chunk of a result with its types, and binds {{parameters}} as typed named parameters', async () => {
    const all = await fetchRows(target(), 'SELECT id, name, miles, day, paid FROM trips ORDER BY id');
    expect(all.rowCount).toBe(230);
    expect(all.columns.map((c) => c.duckType)).toEqual(['BIGINT', 'VARCHAR', 'DOUBLE', 'DATE', 'BOOLEAN']);
    expect(all.rows[229]).toEqual({ c0: '229', c1: 'Trip 229', c2: '343.5', c3: '2024-09-17', c4: 'false' });
    const some = await fetchRows(target(), 'SELECT count(*) AS n FROM trips WHERE paid = {{paid}} AND miles > $min AND name <> {{name}}', { paid: true, min: 100, name: "x' OR '1'='1" });
    expect(some.rows).toEqual([{ c0: '81' }]);
    expect(server.requests.at(-1)!.parameters).toEqual([
      { name: 'p1', value: 'true', type: 'BOOLEAN' }, { name: 'p2', value: '100', type: 'BIGINT' }, { name: 'p3', value: "x' OR '1'='1", type: 'STRING' },
    ]);
    expect(server.requests.at(-1)!.statement).toBe('SELECT count(*) AS n FROM trips WHERE paid = :p1 AND miles > :p2 AND name <> :p3');
  });

  it("answers Databricks' own error for bad SQL", async () => {
    await expect(fetchRows(target(), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^\[PARSE_SYNTAX_ERROR\]/) });
  });

  it('polls a running statement, and cancels it on the warehouse when the caller aborts', async () => {
    const slow = await startDatabricksServer({ catalog: 'workspace', warehouseId: 'wh42', token: 'dapi-test-token', setup: SETUP, runningPolls: 1000 });
    try {
      const abort = new AbortController();
      const run = fetchRows({ ...target(), config: { ...target().config, port: slow.port } }, 'SELECT * FROM trips', {}, abort.signal);
      await expect.poll(() => slow.requests.length).toBe(1);
      abort.abort();
      await expect(run).rejects.toMatchObject({ status: 499 });
      await expect.poll(() => slow.cancelled.length).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('stops past the row limit', async () => {
    const t = { ...target(), settings: { ...DEFAULT_DRIVER_SETTINGS, maxRows: 60 } };
    await expect(fetchRows(t, 'SELECT * FROM trips')).rejects.toMatchObject({ status: 422, message: 'The result has more than 60 rows' });
  });

  it.each([['LONG', 'BIGINT'], ['INT', 'INTEGER'], ['DECIMAL', 'DOUBLE'], ['TIMESTAMP_NTZ', 'TIMESTAMP'], ['ARRAY', 'JSON'], ['STRING', 'VARCHAR'], ['BINARY', 'VARCHAR']])('Databricks %s is DuckDB %s', (t, duck) => {
    expect(databricksDuckType(t)).toBe(duck);
  });
});
