import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOnly, rowFetcher } from './helpers';
import { DEFAULT_DRIVER_SETTINGS, driverFor, trinoDuckType, trinoLiteral, type DriverTarget } from '@studio/warehouses';
import { parseLiterals, startTrinoServer, type TrinoServer } from './servers/trino';

const SETUP = `
  CREATE SCHEMA sales;
  CREATE TABLE sales.stores (id BIGINT, name VARCHAR, category VARCHAR, lat DOUBLE, lng DOUBLE, opened DATE, open BOOLEAN);
  INSERT INTO sales.stores SELECT i, 'Store ' || i, CASE WHEN i % 3 = 0 THEN 'cafe' ELSE 'grocery' END, 40 + i / 1000, -74 - i / 1000, DATE '2024-01-01' + i::INTEGER, i % 2 = 0 FROM range(250) t(i);
  CREATE VIEW sales.cafes AS SELECT * FROM sales.stores WHERE category = 'cafe';
`;


const target = (server: TrinoServer, over: Record<string, unknown> = {}, password?: string): DriverTarget => ({
  type: 'presto',
  config: { host: '127.0.0.1', port: server.port, catalog: 'lake', schema: 'sales', user: 'analyst', ssl: false, ...over },
  credentials: password === undefined ? null : { password },
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

const driver = driverFor('presto');
let dir: string;

const fetchRows = rowFetcher(driver, () => dir);

describe('Presto/Trino driver (trino-client against a coordinator speaking the REST protocol)', () => {
  let server: TrinoServer;
  let guarded: TrinoServer;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trino-test-'));
    server = await startTrinoServer({ catalog: 'lake', setup: SETUP, pageRows: 40 });
    guarded = await startTrinoServer({ catalog: 'lake', setup: SETUP, password: 's3cret' });
  });
  afterAll(async () => {
    await server.close();
    await guarded.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('tests a connection: the version, with the user, catalog and schema in the protocol headers', async () => {
    const r = await driver.test(target(server));
    expect(r.ok).toBe(true);
    expect(r.serverVersion).toMatch(/\S/);
    const h = server.headers.at(-1)!;
    expect([h['x-trino-user'], h['x-trino-catalog'], h['x-trino-schema'], h['x-trino-source']]).toEqual(['analyst', 'lake', 'sales', 'studio']);
  });

  it.each([
    ['a wrong password', (s: TrinoServer) => target(s, {}, 'wrong'), /password was refused/],
    ['no password where one is needed', (s: TrinoServer) => target(s), /password was refused/],
  ])('refuses %s with a 422', async (_name, make, message) => {
    await expect(driver.test(make(guarded))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(message) });
  });

  it('accepts the right password (Basic authentication)', async () => {
    await expect(driver.test(target(guarded, {}, 's3cret'))).resolves.toMatchObject({ ok: true });
  });

  it('answers an unreachable coordinator within the connect timeout', async () => {
    const started = Date.now();
    await expect(driver.test(target(server, { port: 9 }))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^Could not connect/) });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('never reaches a host the network rule refuses', async () => {
    await expect(driver.test(target(server, { host: 'localhost' }))).rejects.toThrow(/not allowed: localhost/);
    expect(server.statements.filter((s) => s === 'SELECT version()').length).toBeGreaterThan(0);
  });

  it('browses schemas, tables and views, and columns with types', async () => {
    const t = target(server);
    expect((await driver.browse(t, [])).map((x) => x.name)).toContain('sales');
    expect(await driver.browse(t, ['sales'])).toEqual([
      { name: 'cafes', type: 'view' },
      { name: 'stores', type: 'table' },
    ]);
    const columns = await driver.browse(t, ['sales', 'stores']);
    expect(columns.map((c) => [c.name, c.dataType])).toEqual([
      ['id', 'BIGINT'], ['name', 'VARCHAR'], ['category', 'VARCHAR'], ['lat', 'DOUBLE'], ['lng', 'DOUBLE'], ['opened', 'DATE'], ['open', 'BOOLEAN'],
    ]);
  });

  it('browses with names bound as literals of EXECUTE … USING (a quote in a name is data, not SQL)', async () => {
    await expect(driver.browse(target(server), ["sales' OR '1'='1"])).resolves.toEqual([]);
    expect(server.statements.at(-1)).toContain('table_schema = ?');
  });

  it('fetches every page of a result with its types, and binds {{parameters}} as values', async () => {
    const all = await fetchRows(target(server), 'SELECT id, name, lat, opened, open FROM stores ORDER BY id');
    expect(all.rowCount).toBe(250);
    expect(all.rows).toHaveLength(250);
    expect(all.columns).toEqual([
      { name: 'id', duckType: 'BIGINT' }, { name: 'name', duckType: 'VARCHAR' }, { name: 'lat', duckType: 'DOUBLE' },
      { name: 'opened', duckType: 'DATE' }, { name: 'open', duckType: 'BOOLEAN' },
    ]);
    expect(all.rows[249]).toEqual({ c0: '249', c1: 'Store 249', c2: '40.249', c3: '2024-09-06', c4: 'false' });
    const cafes = await fetchRows(target(server), "SELECT count(*) AS n FROM stores WHERE category = {{category}} AND name <> 'x'", { category: 'cafe' });
    expect(cafes.rows).toEqual([{ c0: '84' }]);
    const hostile = await fetchRows(target(server), 'SELECT count(*) AS n FROM stores WHERE category = $category', { category: "cafe' OR '1'='1" });
    expect(hostile.rows).toEqual([{ c0: '0' }]);
  });

  it("answers Trino's error with its position as a 422", async () => {
    await expect(fetchRows(target(server), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/syntax error.*\(line 1, column 1\)/i), details: 'SYNTAX_ERROR' });
    await expect(fetchRows(target(server), 'SELECT * FROM nowhere')).rejects.toMatchObject({ status: 422, details: 'TABLE_NOT_FOUND' });
  });

  it('refuses a missing parameter before sending anything', async () => {
    const before = server.statements.length;
    await expect(fetchRows(target(server), 'SELECT {{category}}')).rejects.toMatchObject({ status: 422, message: 'Missing value for parameter $category' });
    expect(server.statements.length).toBe(before);
  });

  it('stops past the row limit', async () => {
    const t = { ...target(server), settings: { ...DEFAULT_DRIVER_SETTINGS, maxRows: 100 } };
    await expect(fetchRows(t, 'SELECT * FROM stores')).rejects.toMatchObject({ status: 422, message: 'The result has more than 100 rows' });
  });

  it('cancels the query on the coordinator when the caller aborts', async () => {
    const slow = await startTrinoServer({ catalog: 'lake', setup: SETUP, queuedPolls: 1000, pollDelayMs: 20 });
    try {
      const abort = new AbortController();
      const run = fetchRows(target(slow), 'SELECT * FROM stores', {}, abort.signal);
      await expect.poll(() => slow.statements.length).toBe(1);
      abort.abort();
      await expect(run).rejects.toMatchObject({ status: 499 });
      await expect.poll(() => slow.cancelled.length).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('does not follow a nextUri to another host', async () => {
    const hostile = await startTrinoServer({ catalog: 'lake', setup: SETUP, nextOrigin: 'http://169.254.169.254' });
    try {
      await expect(driver.test(target(hostile))).rejects.toMatchObject({ status: 422, message: 'The warehouse answered with a next page on another host' });
    } finally {
      await hostile.close();
    }
  });
});

describe('Trino literals and types', () => {
  it.each([
    ["it's", "'it''s'"],
    [42, "BIGINT '42'"],
    [1.5, "DOUBLE '1.5'"],
    [true, 'true'],
    [null, 'NULL'],
    [['a', 1], "ARRAY['a', BIGINT '1']"],
  ] as const)('%j is written %s', (value, literal) => {
    expect(trinoLiteral(value as never)).toBe(literal);
  });

  it('reads back what it writes (the test coordinator parses the same literals)', () => {
    expect(parseLiterals(["it's", 42, 1.5, false, null].map((v) => trinoLiteral(v)).join(', '))).toEqual(["it's", 42n, 1.5, false, null]);
  });

  it('refuses numbers Trino cannot hold', () => {
    expect(() => trinoLiteral(Number.NaN)).toThrow(/finite/);
  });

  it.each([
    ['varchar(20)', 'VARCHAR'], ['bigint', 'BIGINT'], ['integer', 'INTEGER'], ['double', 'DOUBLE'], ['real', 'FLOAT'], ['decimal(10,2)', 'DOUBLE'],
    ['timestamp(3)', 'TIMESTAMP'], ['timestamp(6) with time zone', 'TIMESTAMPTZ'], ['date', 'DATE'], ['boolean', 'BOOLEAN'],
    ['array(varchar)', 'JSON'], ['row(a integer)', 'JSON'], ['uuid', 'UUID'], ['varbinary', 'VARCHAR'],
  ])('Trino %s is DuckDB %s', (trino, duck) => {
    expect(trinoDuckType(trino)).toBe(duck);
  });
});

describe('a parameter used twice', () => {
  it('is bound at each of its places where placeholders are unnumbered (?: Presto, Athena, Snowflake), once where numbered', async () => {
    const { bindStatement } = await import('../src/parameters');
    expect(bindStatement('SELECT {{a}}, $b, {{a}}', { a: 1, b: 2 }, () => '?')).toEqual({ sql: 'SELECT ?, ?, ?', names: ['a', 'b', 'a'], bound: [1, 2, 1] });
    expect(bindStatement('SELECT {{a}}, $b, {{a}}', { a: 1, b: 2 }, (n) => `$${n}`)).toEqual({ sql: 'SELECT $1, $2, $1', names: ['a', 'b'], bound: [1, 2] });
  });
});
