import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowFetcher } from './helpers';
import { DEFAULT_DRIVER_SETTINGS, driverFor, type DriverTarget } from '@studio/warehouses';

const driver = driverFor('motherduck');
let root: string;
let allowed: string;
let outside: string;

const target = (database: string, folders = [allowed], token?: string): DriverTarget => ({
  type: 'motherduck',
  config: { database },
  credentials: token ? { token } : null,
  reach: { check: async () => Promise.reject(new Error('no network for local files')) },
  settings: { ...DEFAULT_DRIVER_SETTINGS, duckdbFolders: folders },
});

const fetchRows = rowFetcher(driver, () => root);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'duckdb-driver-'));
  allowed = path.join(root, 'allowed');
  outside = path.join(root, 'outside');
  await fs.mkdir(path.join(allowed, 'lake'), { recursive: true });
  await fs.mkdir(outside);
  const db = await DuckDBInstance.create(path.join(allowed, 'shop.duckdb'));
  const c = await db.connect();
  await c.run(`CREATE SCHEMA geo;
    CREATE TABLE geo.stores AS SELECT i AS id, 'Store ' || i AS name, CASE WHEN i % 4 = 0 THEN 'cafe' ELSE 'shop' END AS category,
      40.5 + i / 100 AS lat, -73.9 - i / 100 AS lng, TIMESTAMP '2024-05-01 08:00:00' + INTERVAL (i) HOUR AS opened_at, [i, i + 1] AS pair
    FROM range(20) t(i);
    COPY (SELECT * FROM geo.stores WHERE category = 'cafe') TO '${path.join(allowed, 'lake', 'cafes.parquet')}' (FORMAT parquet);
    COPY (SELECT 1 AS secret) TO '${path.join(outside, 'secret.parquet')}' (FORMAT parquet);`);
  c.closeSync();
  db.closeSync();
  await fs.writeFile(path.join(outside, 'passwords.csv'), 'user,password\nroot,hunter2\n');
  await fs.symlink(outside, path.join(allowed, 'escape'));
});

afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('MotherDuck and local DuckDB driver', () => {
  it("names the missing motherduck extension for md: databases (it cannot be downloaded here)", async () => {
    await expect(driver.test(target('md:analytics', [], 'token'))).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^MotherDuck needs DuckDB's motherduck extension, which this server cannot load/),
    });
  });

  it('tests and browses a DuckDB file under an allowed folder', async () => {
    await expect(driver.test(target('shop.duckdb'))).resolves.toMatchObject({ ok: true, serverVersion: expect.stringMatching(/^DuckDB v\d/) });
    expect((await driver.browse(target('shop.duckdb'), [])).map((s) => s.name)).toEqual(['geo', 'main']);
    expect(await driver.browse(target(path.join(allowed, 'shop.duckdb')), ['geo'])).toEqual([{ name: 'stores', type: 'table' }]);
    const columns = await driver.browse(target('shop.duckdb'), ['geo', 'stores']);
    expect(columns.map((c) => [c.name, c.dataType])).toEqual([
      ['id', 'BIGINT'], ['name', 'VARCHAR'], ['category', 'VARCHAR'], ['lat', 'DOUBLE'], ['lng', 'DOUBLE'], ['opened_at', 'TIMESTAMP'], ['pair', 'BIGINT[]'],
    ]);
  });

  it('runs a query with bound parameters and answers text with DuckDB types', async () => {
    const r = await fetchRows(target('shop.duckdb'), 'SELECT id, name, opened_at, pair FROM geo.stores WHERE category = {{category}} AND id >= $min ORDER BY id', { category: 'cafe', min: 4 });
    expect(r.columns).toEqual([
      { name: 'id', duckType: 'BIGINT' }, { name: 'name', duckType: 'VARCHAR' }, { name: 'opened_at', duckType: 'TIMESTAMP' }, { name: 'pair', duckType: 'VARCHAR' },
    ]);
    expect(r.rows[0]).toEqual({ c0: '4', c1: 'Store 4', c2: '2024-05-01 12:00:00', c3: '[4, 5]' });
    expect(r.rowCount).toBe(4);
    const hostile = await fetchRows(target('shop.duckdb'), 'SELECT count(*) FROM geo.stores WHERE category = $c', { c: "cafe' OR '1'='1" });
    expect(hostile.rows).toEqual([{ c0: '0' }]);
  });

  it('opens a folder of Parquet files as tables', async () => {
    expect(await driver.browse(target('lake'), ['main'])).toEqual([{ name: 'cafes', type: 'view' }]);
    const r = await fetchRows(target('lake'), 'SELECT count(*) AS n FROM cafes');
    expect(r.rows).toEqual([{ c0: '5' }]);
  });

  it.each([
    ['a file outside the allowed folders', () => path.join(outside, 'secret.parquet'), /outside the folders this server opens/],
    ['a symlink out of an allowed folder', () => 'escape/secret.parquet', /outside the folders this server opens/],
    ['a path that does not exist', () => 'nothing.duckdb', /No DuckDB file or folder at nothing.duckdb/],
  ])('refuses %s', async (_name, database, message) => {
    await expect(driver.test(target(database()))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(message) });
  });

  it('refuses local files when no folder is listed', async () => {
    await expect(driver.test(target('shop.duckdb', []))).rejects.toMatchObject({ status: 422, message: 'Local DuckDB files are not enabled on this server' });
  });

  it.each([
    ['read_csv of another file', `SELECT * FROM read_csv('${'OUTSIDE'}/passwords.csv')`],
    ['ATTACH of another database', `ATTACH 'OUTSIDE/other.duckdb' AS o`],
    ['a write to the database', 'CREATE TABLE geo.x AS SELECT 1'],
    ['COPY to a file', `COPY geo.stores TO 'OUTSIDE/out.csv'`],
    ['a configuration change', 'SET enable_external_access = true'],
    ['loading an extension', 'LOAD httpfs'],
  ])('user SQL cannot reach past the database: %s', async (_name, sql) => {
    await expect(fetchRows(target('shop.duckdb'), sql.replaceAll('OUTSIDE', outside))).rejects.toMatchObject({ status: 422 });
    await expect(fs.readdir(outside)).resolves.toEqual(['passwords.csv', 'secret.parquet']);
  });

  it('stops past the row limit', async () => {
    const t = { ...target('shop.duckdb'), settings: { ...DEFAULT_DRIVER_SETTINGS, duckdbFolders: [allowed], maxRows: 10 } };
    await expect(fetchRows(t, 'SELECT * FROM range(5000)')).rejects.toMatchObject({ status: 422, message: 'The result has more than 10 rows' });
  });
});
