import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, driverFor, snowflakeDuckType, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly, rowFetcher } from './helpers';
import { startSnowflakeServer, type SnowflakeServer } from './servers/snowflake';

const SETUP = `CREATE SCHEMA sales;
  CREATE TABLE sales.orders AS SELECT i::BIGINT AS id, 'Customer ' || (i % 11) AS customer, (i * 1.25)::DECIMAL(12,2) AS amount, DATE '2024-01-01' + (i % 300)::INTEGER AS day, TIMESTAMP '2024-01-01 08:00:00' + INTERVAL (i) SECOND AS placed, i % 2 = 0 AS paid FROM range(5000) t(i);`;
const driver = driverFor('snowflake');
let server: SnowflakeServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, password = 'sn0w'): DriverTarget => ({
  type: 'snowflake',
  config: { account: 'acme-xy12345', user: 'ANALYST', warehouse: 'COMPUTE_WH', database: 'SHOP', schema: 'sales', endpoint: server.url, ...over },
  credentials: { password },
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});
const fetchRows = rowFetcher(driver, () => dir);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'snowflake-test-'));
  server = await startSnowflakeServer({ user: 'ANALYST', password: 'sn0w', database: 'SHOP', setup: SETUP });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Snowflake driver (snowflake-sdk against a server speaking its REST protocol)', () => {
  it('logs in with the warehouse, database and schema of the connection, and answers the version', async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'Snowflake 8.40.1' });
    expect(server.logins.at(-1)).toMatchObject({ query: { warehouse: 'COMPUTE_WH', databaseName: 'SHOP', schemaName: 'sales' }, data: { LOGIN_NAME: 'ANALYST' } });
  });

  it.each([
    ['a wrong password', () => target({}, 'nope'), /Incorrect username or password/],
    ['an endpoint the network rule refuses', () => target({ endpoint: 'http://172.16.0.9' }), /not allowed: 172.16.0.9/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('browses schemas, tables and columns', async () => {
    expect((await driver.browse(target(), [])).map((s) => s.name)).toContain('sales');
    expect(await driver.browse(target(), ['sales'])).toEqual([{ name: 'orders', type: 'table' }]);
    expect((await driver.browse(target(), ['sales', 'orders'])).map((c) => c.name)).toEqual(['id', 'customer', 'amount', 'day', 'placed', 'paid']);
  });

  it("streams a result as Snowflake's text with its types, and binds {{parameters}} as ? binds", async () => {
    const all = await fetchRows(target(), 'SELECT id, customer, amount, day, placed, paid FROM orders ORDER BY id');
    expect(all.rowCount).toBe(5000);
    expect(all.columns).toEqual([
      { name: 'ID', duckType: 'BIGINT' }, { name: 'CUSTOMER', duckType: 'VARCHAR' }, { name: 'AMOUNT', duckType: 'DOUBLE' },
      { name: 'DAY', duckType: 'DATE' }, { name: 'PLACED', duckType: 'TIMESTAMP' }, { name: 'PAID', duckType: 'BOOLEAN' },
    ]);
    expect(all.rows[4999]).toEqual({ c0: '4999', c1: 'Customer 5', c2: '6248.75', c3: '2024-07-18', c4: '2024-01-01 09:23:19.000', c5: 'FALSE' });
    const some = await fetchRows(target(), 'SELECT count(*) AS n FROM orders WHERE customer = {{customer}} AND id < $max', { customer: "Customer 3' OR '1'='1", max: 100 });
    expect(some.rows).toEqual([{ c0: '0' }]);
    expect(server.queries.at(-1)).toMatchObject({ sqlText: 'SELECT count(*) AS n FROM orders WHERE customer = ? AND id < ?', bindings: { 1: { value: "Customer 3' OR '1'='1" }, 2: { value: '100' } } });
  });

  it("answers Snowflake's compilation error", async () => {
    await expect(fetchRows(target(), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^SQL compilation error/) });
  });

  it('aborts a running query on Snowflake when the caller aborts', async () => {
    const slow = await startSnowflakeServer({ user: 'ANALYST', password: 'sn0w', database: 'SHOP', setup: SETUP, runningPolls: 1000 });
    try {
      const abort = new AbortController();
      const run = fetchRows({ ...target(), config: { ...target().config, endpoint: slow.url } }, 'SELECT * FROM orders', {}, abort.signal);
      await expect.poll(() => slow.queries.length).toBe(1);
      abort.abort();
      await expect(run).rejects.toMatchObject({ status: 499 });
      await expect.poll(() => slow.aborted.length).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it.each([['fixed', 0, 'BIGINT'], ['fixed', 2, 'DOUBLE'], ['timestamp_ltz', 9, 'TIMESTAMPTZ'], ['variant', 0, 'JSON'], ['text', 0, 'VARCHAR']] as const)('Snowflake %s (scale %d) is DuckDB %s', (t, scale, duck) => {
    expect(snowflakeDuckType(t, scale)).toBe(duck);
  });
});
