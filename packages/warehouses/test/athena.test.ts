import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackOnly, rowFetcher } from './helpers';
import { DEFAULT_DRIVER_SETTINGS, driverFor, type DriverTarget } from '@studio/warehouses';
import { startAthenaServer, type AthenaServer } from './servers/athena';

const SETUP = `CREATE SCHEMA web;
  CREATE TABLE web.visits AS SELECT i::BIGINT AS id, 'Visitor ' || i AS who, i % 5 AS store, DATE '2024-03-01' + i::INTEGER AS day FROM range(2500) t(i);
  CREATE VIEW web.recent AS SELECT * FROM web.visits WHERE day > DATE '2030-01-01';`;
const KEYS = { accessKeyId: 'AKIATESTATHENA', secretAccessKey: 'secret' };
const driver = driverFor('athena');
let server: AthenaServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, credentials: DriverTarget['credentials'] = KEYS): DriverTarget => ({
  type: 'athena',
  config: { region: 'us-east-1', workgroup: 'analysts', database: 'web', outputLocation: 's3://results/athena/', endpoint: server.endpoint, ...over },
  credentials,
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

const fetchRows = rowFetcher(driver, () => dir);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'athena-test-'));
  server = await startAthenaServer({ accessKeyId: KEYS.accessKeyId, catalog: 'AwsDataCatalog', workgroup: 'analysts', setup: SETUP });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Athena driver (AWS SDK against a server speaking the Athena JSON API)', () => {
  it("tests a connection: the workgroup's engine version, and a first query with its output location", async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'Amazon Athena (Athena engine version 3), workgroup analysts' });
    expect(server.started.at(-1)).toMatchObject({ QueryString: 'SELECT 1', WorkGroup: 'analysts', QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: 'web' }, ResultConfiguration: { OutputLocation: 's3://results/athena/' } });
  });

  it.each([
    ['keys Athena does not know', () => target({}, { accessKeyId: 'AKIAOTHER', secretAccessKey: 'x' }), /UnrecognizedClientException/],
    ['no keys', () => target({}, null), /needs an access key id and a secret access key/],
    ['an unknown workgroup', () => target({ workgroup: 'nobody' }), /WorkGroup nobody is not found/],
    ['an endpoint nobody answers', () => target({ endpoint: 'http://127.0.0.1:9' }), /^Could not connect/],
    ['an endpoint the network rule refuses', () => target({ endpoint: 'http://169.254.169.254' }), /not allowed: 169.254.169.254/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('browses the data catalog: databases, tables and views, columns', async () => {
    expect((await driver.browse(target(), [])).map((d) => d.name)).toEqual(['main', 'web']);
    expect(await driver.browse(target(), ['web'])).toEqual([{ name: 'recent', type: 'view' }, { name: 'visits', type: 'table' }]);
    expect(await driver.browse(target(), ['web', 'visits'])).toEqual([
      { name: 'id', type: 'column', dataType: 'bigint', nullable: true }, { name: 'who', type: 'column', dataType: 'varchar', nullable: true },
      { name: 'store', type: 'column', dataType: 'bigint', nullable: true }, { name: 'day', type: 'column', dataType: 'date', nullable: true },
    ]);
  });

  it('reads every page without the header row, and binds parameters as ExecutionParameters', async () => {
    const all = await fetchRows(target(), 'SELECT id, who, day FROM visits ORDER BY id');
    expect(all.rowCount).toBe(2500);
    expect(all.rows[0]).toEqual({ c0: '0', c1: 'Visitor 0', c2: '2024-03-01' });
    expect(all.columns).toEqual([{ name: 'id', duckType: 'BIGINT' }, { name: 'who', duckType: 'VARCHAR' }, { name: 'day', duckType: 'DATE' }]);
    const some = await fetchRows(target(), 'SELECT count(*) AS n FROM visits WHERE store = {{store}} AND who <> $who', { store: 3, who: "x' OR '1'='1" });
    expect(some.rows).toEqual([{ c0: '500' }]);
    expect(server.started.at(-1)).toMatchObject({ QueryString: 'SELECT count(*) AS n FROM visits WHERE store = ? AND who <> ?', ExecutionParameters: ["BIGINT '3'", "'x'' OR ''1''=''1'"] });
  });

  it('keeps a header-looking first row that is data', async () => {
    const r = await fetchRows(target(), "SELECT 'x' AS y");
    expect(r.rows).toEqual([{ c0: 'x' }]);
  });

  it("answers Athena's reason for a failed query", async () => {
    await expect(fetchRows(target(), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/syntax error/i) });
  });

  it('stops the query on Athena when the caller aborts', async () => {
    const slow = await startAthenaServer({ accessKeyId: KEYS.accessKeyId, catalog: 'AwsDataCatalog', workgroup: 'analysts', setup: SETUP, runningPolls: 1000 });
    try {
      const abort = new AbortController();
      const run = fetchRows(target({ endpoint: slow.endpoint }), 'SELECT * FROM visits', {}, abort.signal);
      await expect.poll(() => slow.started.length).toBe(1);
      abort.abort();
      await expect(run).rejects.toMatchObject({ status: 499 });
      await expect.poll(() => slow.stopped.length).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
