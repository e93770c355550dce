import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, bigqueryDuckType, driverFor, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly, rowFetcher } from './helpers';
import { serviceAccountKey } from './servers/google-auth';
import { startBigQueryServer, type BigQueryServer } from './servers/bigquery';

const SETUP = `CREATE SCHEMA rides;
  CREATE TABLE rides.trips AS SELECT i::BIGINT AS id, 'Rider ' || (i % 9) AS rider, i * 0.25 AS km, TIMESTAMP '2024-05-01 00:00:00' + INTERVAL (i) MINUTE AS started FROM range(12500) t(i);
  CREATE VIEW rides.long_trips AS SELECT * FROM rides.trips WHERE km > 100;`;
const driver = driverFor('bigquery');
let server: BigQueryServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, key: string | null = server.keyJson): DriverTarget => ({
  type: 'bigquery',
  config: { projectId: 'studio-test', dataset: 'rides', endpoint: server.endpoint, ...over },
  credentials: key ? { privateKey: key } : null,
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});
const fetchRows = rowFetcher(driver, () => dir);

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bigquery-test-'));
  server = await startBigQueryServer({ projectId: 'studio-test', setup: SETUP });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('BigQuery driver (@google-cloud/bigquery, signed with a service account key)', () => {
  it('tests a connection with a first query job', async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'BigQuery, project studio-test' });
    expect(server.jobs.at(-1)).toMatchObject({ query: 'SELECT 1', useLegacySql: false, defaultDataset: { projectId: 'studio-test', datasetId: 'rides' } });
  });

  it.each([
    ['a key of another account', () => target({}, serviceAccountKey('other').json), /Google refused the service account \(401\)/],
    ['an unknown project', () => target({ projectId: 'nobody' }), /Not found: Project nobody/],
    ['an endpoint the network rule refuses', () => target({ endpoint: 'http://10.1.2.3' }), /not allowed: 10.1.2.3/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('browses datasets, tables and views, and a table schema', async () => {
    expect(await driver.browse(target(), [])).toEqual([{ name: 'rides', type: 'schema' }]);
    expect(await driver.browse(target(), ['rides'])).toEqual([{ name: 'long_trips', type: 'view' }, { name: 'trips', type: 'table' }]);
    expect((await driver.browse(target(), ['rides', 'trips'])).map((c) => [c.name, c.dataType])).toEqual([['id', 'INTEGER'], ['rider', 'STRING'], ['km', 'FLOAT'], ['started', 'TIMESTAMP']]);
  });

  it('reads every page of a job, timestamps as text, and binds {{parameters}} as typed named parameters', async () => {
    const all = await fetchRows(target(), 'SELECT id, rider, km, started FROM trips ORDER BY id');
    expect(all.rowCount).toBe(12500);
    expect(all.columns.map((c) => c.duckType)).toEqual(['BIGINT', 'VARCHAR', 'DOUBLE', 'TIMESTAMPTZ']);
    expect(all.rows[12499]).toEqual({ c0: '12499', c1: 'Rider 7', c2: '3124.75', c3: '2024-05-09T16:19:00.000000Z' });
    const some = await fetchRows(target(), 'SELECT count(*) AS n FROM trips WHERE rider = {{rider}} AND km > $min', { rider: "Rider 3' OR '1'='1", min: 10 });
    expect(some.rows).toEqual([{ c0: '0' }]);
    expect(server.jobs.at(-1)).toMatchObject({ query: 'SELECT count(*) AS n FROM trips WHERE rider = @p1 AND km > @p2', parameterMode: expect.stringMatching(/^named$/i) });
  });

  it("answers BigQuery's error for bad SQL", async () => {
    await expect(fetchRows(target(), 'SELEC 1')).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^Syntax error/) });
  });

  it('waits for a running job, and cancels it when the caller aborts', async () => {
    const slow = await startBigQueryServer({ projectId: 'studio-test', setup: SETUP, pendingPolls: 1000 });
    try {
      const abort = new AbortController();
      const run = fetchRows(target({ endpoint: slow.endpoint }, slow.keyJson), 'SELECT * FROM trips', {}, abort.signal);
      await expect.poll(() => slow.jobs.length).toBe(1);
      abort.abort();
      await expect(run).rejects.toMatchObject({ status: 499 });
      await expect.poll(() => slow.cancelled.length).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it.each([
    [{ name: 'a', type: 'INTEGER' }, 'BIGINT'], [{ name: 'a', type: 'NUMERIC' }, 'DOUBLE'], [{ name: 'a', type: 'STRING', mode: 'REPEATED' }, 'JSON'],
    [{ name: 'a', type: 'DATETIME' }, 'TIMESTAMP'], [{ name: 'a', type: 'GEOGRAPHY' }, 'VARCHAR'],
  ])('BigQuery %j is DuckDB %s', (field, duck) => {
    expect(bigqueryDuckType(field)).toBe(duck);
  });
});
