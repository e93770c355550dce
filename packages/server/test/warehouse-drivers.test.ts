import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS } from '@studio/warehouses';
import { parseHostPatterns } from '../src/services/network-reach';
import { DEFAULT_RATE_LIMITS } from '../src/services/rate-limits';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';
import { startTrinoServer, type TrinoServer } from '../../warehouses/test/servers/trino';
import { S3_KEYS, startS3Server, type S3Server } from '../../warehouses/test/servers/s3';
import { startDatabricksServer, type DatabricksServer } from '../../warehouses/test/servers/databricks';
import { startAthenaServer, type AthenaServer } from '../../warehouses/test/servers/athena';
import { startKineticaServer, type KineticaServer } from '../../warehouses/test/servers/kinetica';
import { startPlanetServer, type PlanetServer } from '../../warehouses/test/servers/planet';
import { startGcsServer, type GcsServer } from '../../warehouses/test/servers/gcs';
import { startBigQueryServer, type BigQueryServer } from '../../warehouses/test/servers/bigquery';
import { serviceAccountKey } from '../../warehouses/test/servers/google-auth';
import { startSnowflakeServer, type SnowflakeServer } from '../../warehouses/test/servers/snowflake';

/**
 * The warehouse kinds beyond PostgreSQL, through the API as a user meets them: create, test (good and bad),
 * browse, run a query, read its result. Presto/Trino against a coordinator speaking its REST protocol on a
 * loopback port the studio is allowed to reach; MotherDuck's local path against a DuckDB file in a folder
 * the administrator listed.
 */

const SETUP = `CREATE SCHEMA geo;
  CREATE TABLE geo.places AS SELECT * FROM (VALUES (1, 'Ferry Building', 37.7955, -122.3937, 'landmark'), (2, 'Coit Tower', 37.8024, -122.4058, 'landmark'),
    (3, 'Tartine', 37.7614, -122.4241, 'cafe')) t(id, name, lat, lng, category);`;

interface Case {
  type: 'presto' | 'motherduck' | 'databricks' | 'athena' | 'kinetica' | 'bigquery' | 'snowflake';
  body: () => Record<string, unknown>;
  bad: () => Record<string, unknown>;
  badMessage: RegExp;
  version: RegExp;
  query: string;
  /** The places table as the connection's SQL names it. */
  table?: string;
  /** How the warehouse names result columns (Snowflake: unquoted names in capitals). */
  resultName?: (name: string) => string;
}

let trino: TrinoServer;
let slowTrino: TrinoServer;
let s3: S3Server;
let databricks: DatabricksServer;
let athena: AthenaServer;
let kinetica: KineticaServer;
let planet: PlanetServer;
let gcs: GcsServer;
let bigquery: BigQueryServer;
let snowflake: SnowflakeServer;
const AWS_KEYS = { accessKeyId: 'AKIASTUDIOTEST', secretAccessKey: 'secret' };
const PLACES_CSV = 'name,lat,lng,category\nFerry Building,37.7955,-122.3937,landmark\nCoit Tower,37.8024,-122.4058,landmark\nTartine,37.7614,-122.4241,cafe\n';
let folder: string;

const CASES: Case[] = [
  {
    type: 'presto',
    body: () => ({ type: 'presto', host: '127.0.0.1', port: trino.port, catalog: 'lake', schema: 'geo', user: 'analyst', ssl: false, credentials: { password: 'pw' } }),
    bad: () => ({ type: 'presto', host: '127.0.0.1', port: trino.port, catalog: 'lake', user: 'analyst', ssl: false, credentials: { password: 'wrong' } }),
    badMessage: /password was refused/,
    version: /\S/,
    query: 'SELECT id, name, lat, lng FROM places WHERE category = {{category}} ORDER BY id',
  },
  {
    type: 'databricks',
    body: () => ({ type: 'databricks', host: '127.0.0.1', port: databricks.port, ssl: false, httpPath: '/sql/1.0/warehouses/wh1', catalog: 'lake', schema: 'geo', credentials: { token: 'dapi-token' } }),
    bad: () => ({ type: 'databricks', host: '127.0.0.1', port: databricks.port, ssl: false, httpPath: '/sql/1.0/warehouses/wh1', credentials: { token: 'expired' } }),
    badMessage: /access token was refused/,
    version: /^Databricks SQL \S/,
    query: 'SELECT id, name, lat, lng FROM places WHERE category = {{category}} ORDER BY id',
  },
  {
    type: 'athena',
    body: () => ({ type: 'athena', region: 'us-east-1', workgroup: 'primary', database: 'geo', outputLocation: 's3://results/', endpoint: athena.endpoint, credentials: AWS_KEYS }),
    bad: () => ({ type: 'athena', region: 'us-east-1', workgroup: 'primary', endpoint: athena.endpoint, credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' } }),
    badMessage: /UnrecognizedClientException/,
    version: /^Amazon Athena \(Athena engine version 3\), workgroup primary$/,
    query: 'SELECT id, name, lat, lng FROM places WHERE category = {{category}} ORDER BY id',
  },
  {
    type: 'kinetica',
    body: () => ({ type: 'kinetica', url: kinetica.url, user: 'analyst', schema: 'geo', credentials: { password: 'k1n3t1ca' } }),
    bad: () => ({ type: 'kinetica', url: kinetica.url, user: 'analyst', credentials: { password: 'wrong' } }),
    badMessage: /password was refused/,
    version: /^Kinetica 7\./,
    query: 'SELECT id, name, lat, lng FROM geo.places WHERE category = {{category}} ORDER BY id',
  },
  {
    type: 'bigquery',
    body: () => ({ type: 'bigquery', projectId: 'city-project', dataset: 'geo', endpoint: bigquery.endpoint, credentials: { privateKey: bigquery.keyJson } }),
    bad: () => ({ type: 'bigquery', projectId: 'city-project', endpoint: bigquery.endpoint, credentials: { privateKey: serviceAccountKey('other').json } }),
    badMessage: /Google refused the service account/,
    version: /^BigQuery, project city-project$/,
    query: 'SELECT id, name, lat, lng FROM places WHERE category = {{category}} ORDER BY id',
  },
  {
    type: 'snowflake',
    body: () => ({ type: 'snowflake', account: 'acme-xy12345', user: 'ANALYST', warehouse: 'COMPUTE_WH', database: 'CITY', schema: 'geo', endpoint: snowflake.url, credentials: { password: 'sn0w' } }),
    bad: () => ({ type: 'snowflake', account: 'acme-xy12345', user: 'ANALYST', warehouse: 'COMPUTE_WH', endpoint: snowflake.url, credentials: { password: 'wrong' } }),
    badMessage: /Incorrect username or password/,
    version: /^Snowflake 8\./,
    query: 'SELECT id, name, lat, lng FROM places WHERE category = {{category}} ORDER BY id',
    resultName: (name) => name.toUpperCase(),
  },
  {
    type: 'motherduck',
    body: () => ({ type: 'motherduck', database: 'city.duckdb' }),
    bad: () => ({ type: 'motherduck', database: '/etc/passwd' }),
    badMessage: /outside the folders this server opens/,
    version: /^DuckDB v/,
    query: 'SELECT id, name, lat, lng FROM geo.places WHERE category = {{category}} ORDER BY id',
    table: 'geo.places',
  },
];

beforeAll(async () => {
  trino = await startTrinoServer({ catalog: 'lake', setup: SETUP, password: 'pw' });
  slowTrino = await startTrinoServer({ catalog: 'lake', setup: SETUP, queuedPolls: 10, pollDelayMs: 30 });
  snowflake = await startSnowflakeServer({ user: 'ANALYST', password: 'sn0w', database: 'CITY', setup: SETUP });
  bigquery = await startBigQueryServer({ projectId: 'city-project', setup: SETUP });
  gcs = await startGcsServer('city-bucket', { 'exports/places.csv': PLACES_CSV });
  planet = await startPlanetServer({ apiKey: 'PLAK-key', scenes: 300, pageSize: 100, orderFiles: { 'manifest.json': '{}' } });
  kinetica = await startKineticaServer({ user: 'analyst', password: 'k1n3t1ca', setup: SETUP });
  athena = await startAthenaServer({ accessKeyId: AWS_KEYS.accessKeyId, catalog: 'AwsDataCatalog', workgroup: 'primary', setup: SETUP });
  databricks = await startDatabricksServer({ catalog: 'lake', warehouseId: 'wh1', token: 'dapi-token', setup: SETUP });
  s3 = await startS3Server('city-lake', { 'exports/places.csv': PLACES_CSV, 'exports/broken.parquet': 'PAR1 but not Parquet', 'notes/readme.txt': 'hello' });
  folder = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-duckdb-'));
  const db = await DuckDBInstance.create(path.join(folder, 'city.duckdb'));
  const c = await db.connect();
  await c.run(SETUP);
  c.closeSync();
  db.closeSync();
});
afterAll(async () => {
  await trino?.close();
  await slowTrino?.close();
  await s3?.close();
  await databricks?.close();
  await athena?.close();
  await kinetica?.close();
  await planet?.close();
  await gcs?.close();
  await bigquery?.close();
  await snowflake?.close();
  await fs.rm(folder, { recursive: true, force: true });
});

describe.each(STORES)('warehouse drivers on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const call = (who: 'owner' | 'outsider' | 'colleague', method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who], 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    const { host, port } = inject('warehouseServer');
    s = await startStudio(kind, {
      connectionHosts: parseHostPatterns(`${host}:${port},127.0.0.1:${trino.port},127.0.0.1:${slowTrino.port},127.0.0.1:${s3.port},127.0.0.1:${databricks.port},127.0.0.1:${athena.port},127.0.0.1:${kinetica.port},127.0.0.1:${planet.port},127.0.0.1:${gcs.port},127.0.0.1:${bigquery.port},127.0.0.1:${snowflake.port}`),
      warehouse: { ...DEFAULT_DRIVER_SETTINGS, duckdbFolders: [folder] },
      // One user tests every kind here; the per-minute limit of connection tests is another test's subject.
      rateLimits: { ...DEFAULT_RATE_LIMITS, routes: { ...DEFAULT_RATE_LIMITS.routes, testConnection: { max: 1000, windowMs: 60_000 } } },
    });
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  describe.each(CASES)('$type', (c) => {
    let id: string;
    beforeAll(async () => {
      const res = await call('owner', 'POST', '/v1/data-connections', { ...c.body(), name: `${c.type} warehouse` });
      expect(res.statusCode).toBe(201);
      id = res.json().item.id;
    });

    it('tests a saved and an unsaved connection', async () => {
      for (const body of [{ connectionId: id }, c.body()]) {
        const res = await call('owner', 'POST', '/v1/test-connection', body);
        expect([res.statusCode, res.json().item?.ok]).toEqual([200, true]);
        expect(res.json().item.serverVersion).toMatch(c.version);
      }
    });

    it("answers a bad connection with the driver's message, and saves nothing", async () => {
      const before = (await call('owner', 'GET', '/v1/data-connections')).json().items.length;
      const res = await call('owner', 'POST', '/v1/test-connection', c.bad());
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toMatch(c.badMessage);
      expect((await call('owner', 'GET', '/v1/data-connections')).json().items.length).toBe(before);
    });

    it('browses schemas, tables and columns; others cannot', async () => {
      expect((await call('owner', 'GET', `/v1/data-queries/schema/${id}`)).json().items).toContainEqual({ name: 'geo', type: 'schema' });
      expect((await call('owner', 'GET', `/v1/data-queries/schema/${id}/geo`)).json().items).toEqual([{ name: 'places', type: 'table' }]);
      const columns = (await call('owner', 'GET', `/v1/data-queries/schema/${id}/geo/places`)).json().items;
      expect(columns.map((x: { name: string }) => x.name)).toEqual(['id', 'name', 'lat', 'lng', 'category']);
      expect((await call('outsider', 'GET', `/v1/data-queries/schema/${id}`)).statusCode).toBe(404);
    });

    it('runs a query with a {{parameter}} into a typed result', async () => {
      const res = await call('owner', 'POST', '/v1/data-queries', { connectionId: id, query: c.query, parameters: { category: 'landmark' } });
      const item = res.json().item;
      expect(item).toMatchObject({ status: 'success', rowCount: 2, connectionId: id });
      const n = c.resultName ?? ((name: string) => name);
      expect(item.columns).toEqual([{ name: n('id'), type: expect.stringMatching(/^(INTEGER|BIGINT)$/) }, { name: n('name'), type: 'VARCHAR' }, { name: n('lat'), type: expect.stringMatching(/DOUBLE|DECIMAL/) }, { name: n('lng'), type: expect.stringMatching(/DOUBLE|DECIMAL/) }]);
      const csv = await call('owner', 'GET', `/v1/data-queries/${item.id}/result`);
      expect(csv.body.trim().split('\n')).toEqual([['id', 'name', 'lat', 'lng'].map(n).join(','), '1,Ferry Building,37.7955,-122.3937', '2,Coit Tower,37.8024,-122.4058']);
    });

    it('runs a pipeline over a live dataset on the warehouse itself (push-down), bound values and all', async () => {
      const n = c.resultName ?? ((name: string) => name);
      const live = await call('owner', 'POST', '/v1/datasets/query', { connectionId: id, query: `SELECT id, name, category, lat FROM ${c.table ?? 'places'}`, name: `Live ${c.type}`, live: true });
      expect(live.statusCode).toBe(201);
      expect(live.json().item).toMatchObject({ type: 'sql', dataConnectionId: id, status: 'ready' });
      const pipeline = {
        type: 'sort', by: [n('category')],
        input: [{ type: 'group', by: [n('category')], expressions: [`count(*) AS ${n('places')}`, `max(${n('lat')}) AS ${n('north')}`], input: [{ type: 'filter', expression: `${n('name')} <> 'Nowhere'`, input: [{ type: 'dataset', uuid: live.json().item.id }] }] }],
      };
      const res = await call('owner', 'POST', '/v1/query?format=json', pipeline);
      expect([res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([200, '']);
      expect(res.headers['x-studio-engine']).toBe(c.type);
      expect(res.json().items).toEqual([
        { [n('category')]: 'cafe', [n('places')]: 1, [n('north')]: 37.7614 },
        { [n('category')]: 'landmark', [n('places')]: 2, [n('north')]: 37.8024 },
      ]);
      // Someone who reads neither the dataset nor the connection gets nothing run.
      expect((await call('outsider', 'POST', '/v1/query?format=json', pipeline)).statusCode).toBe(404);
    });

    it("records a warehouse's SQL error as the failed execution's message", async () => {
      const res = await call('owner', 'POST', '/v1/data-queries', { connectionId: id, query: 'SELEC oops' });
      expect(res.json().item).toMatchObject({ status: 'failure', errorMessage: expect.stringMatching(/syntax error/i) });
    });
  });

  describe('s3 (a local S3-compatible server)', () => {
    let id: string;
    const body = () => ({ type: 's3', bucket: 'city-lake', region: 'us-east-1', endpoint: s3.endpoint, credentials: S3_KEYS });
    beforeAll(async () => {
      const res = await call('owner', 'POST', '/v1/data-connections', { ...body(), name: 'City lake' });
      expect(res.statusCode).toBe(201);
      id = res.json().item.id;
    });

    it('tests a saved and an unsaved connection, and answers a missing bucket with a 422', async () => {
      for (const b of [{ connectionId: id }, body()]) {
        const res = await call('owner', 'POST', '/v1/test-connection', b);
        expect([res.statusCode, res.json().item?.serverVersion]).toEqual([200, 'S3 bucket city-lake']);
      }
      const bad = await call('owner', 'POST', '/v1/test-connection', { ...body(), bucket: 'no-such-bucket' });
      expect([bad.statusCode, bad.json().message]).toEqual([422, expect.stringMatching(/NoSuchBucket/)]);
    });

    it('lists folders and objects; others cannot; schemas are for databases', async () => {
      expect((await call('owner', 'GET', `/v1/data-connections/${id}/objects`)).json()).toEqual({
        items: [{ name: 'exports/', key: 'exports/', type: 'folder' }, { name: 'notes/', key: 'notes/', type: 'folder' }],
        truncated: false,
      });
      const inside = (await call('owner', 'GET', `/v1/data-connections/${id}/objects?prefix=exports/`)).json().items;
      expect(inside.map((i: { key: string }) => i.key)).toEqual(['exports/broken.parquet', 'exports/places.csv']);
      expect((await call('outsider', 'GET', `/v1/data-connections/${id}/objects`)).statusCode).toBe(404);
      expect((await call('owner', 'GET', `/v1/data-queries/schema/${id}`)).json().message).toBe('Not a database connection');
    });

    it('imports a CSV object as a dataset, ready with its rows', async () => {
      const res = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/places.csv' });
      expect(res.statusCode).toBe(201);
      const dataset = res.json().item;
      expect(dataset).toMatchObject({ name: 'places.csv', status: 'ready' });
      const csv = await call('owner', 'GET', `/v1/datasets/${dataset.id}/data?format=csv`);
      expect(csv.body.trim().split('\n')).toEqual(PLACES_CSV.trim().split('\n'));
    });

    it('answers a broken object with the ingestion error, a missing one with the store\'s, a folder and an outsider with no dataset', async () => {
      const broken = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/broken.parquet', name: 'Broken' });
      expect(broken.statusCode).toBe(422);
      // As with an upload, data that cannot be read leaves the dataset in error, saying why.
      const errored = (await call('owner', 'GET', '/v1/datasets')).json().items.find((d: { name: string }) => d.name === 'Broken');
      expect(errored).toMatchObject({ status: 'error' });
      const missing = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/none.csv', name: 'Missing' });
      expect([missing.statusCode, missing.json().message]).toEqual([422, expect.stringMatching(/NoSuchKey/)]);
      const folder = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/', name: 'Folder' });
      expect([folder.statusCode, folder.json().message]).toEqual([422, 'exports/ is a folder; pick an object in it']);
      const outsider = await call('outsider', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/places.csv', name: 'Stolen' });
      expect(outsider.statusCode).toBe(404);
      const names = (await call('owner', 'GET', '/v1/datasets')).json().items.map((d: { name: string }) => d.name);
      expect(names).not.toContain('Folder');
      expect(names).not.toContain('Missing');
      expect(names).not.toContain('Stolen');
    });
  });

  describe('the Kinetica data proxy', () => {
    let id: string;
    const proxy = (who: 'owner' | 'outsider' | 'colleague', target: string, body: unknown, type = 'kinetica', connectionId = id) =>
      call(who, 'POST', `/v1/data-proxy?type=${type}&target=${encodeURIComponent(target)}&connectionId=${connectionId}`, body);
    beforeAll(async () => {
      id = (await call('owner', 'POST', '/v1/data-connections', { ...CASES.find((c) => c.type === 'kinetica')!.body(), name: 'Fleet' })).json().item.id;
      const shared = await call('owner', 'POST', '/v1/permissions', { resourceType: 'data-connection', resourceId: id, role: 'viewer', userId: cast.users.colleague.id });
      expect(shared.statusCode).toBeLessThan(300);
    });

    it("forwards /show/table with the documents' default options, and answers Kinetica's envelope", async () => {
      const res = await proxy('owner', '/show/table', { table_name: 'geo', options: { get_sizes: 'false' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'OK', data_type: 'show_table_response' });
      expect(JSON.parse(res.json().data_str).table_names).toEqual(['geo.places']);
      expect(kinetica.requests.at(-1)).toEqual({ endpoint: '/show/table', body: { table_name: 'geo', options: { show_children: 'false', get_sizes: 'false', get_cached_sizes: 'true', get_column_info: 'true' } } });
    });

    it('lets readers run SQL and read records; only editors create, clear and drop', async () => {
      expect((await proxy('colleague', '/execute/sql', { statement: 'SELECT 1 AS one', offset: 0, limit: 10, encoding: 'json', options: {} })).json().status).toBe('OK');
      expect((await proxy('colleague', '/get/records', { table_name: 'geo.places', offset: 0, limit: 2, encoding: 'json', options: {} })).json().status).toBe('OK');
      const before = kinetica.requests.length;
      expect((await proxy('colleague', '/drop/schema', { schema_name: 'geo', options: {} })).statusCode).toBe(403);
      expect((await proxy('outsider', '/show/table', { table_name: 'geo' })).statusCode).toBe(404);
      expect(kinetica.requests.length).toBe(before);
      expect((await proxy('owner', '/clear/table', { table_name: 'geo.tmp', authorization: '', options: {} })).json().status).toBe('OK');
    });

    it("answers Kinetica's ERROR status with its message (temporary tables that cannot be made)", async () => {
      const res = await proxy('owner', '/create/table', { table_name: 'fail_temp', type_id: 'nope', options: {} });
      expect([res.statusCode, res.json().status, res.json().message]).toEqual([422, 'ERROR', 'Type nope does not exist']);
    });

    it.each([
      ['an endpoint the documents do not name', () => proxy('owner', '/admin/shutdown', {}), /target must be one of/],
      ['another kind of proxy', () => proxy('owner', '/show/table', {}, 'snowflake'), /kinetica/],
    ])('refuses %s', async (_name, send, message) => {
      const res = await send();
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toMatch(message);
    });

    it('refuses a connection of another kind', async () => {
      const other = (await call('owner', 'GET', '/v1/data-connections')).json().items.find((c: { connectionType: string }) => c.connectionType === 'presto');
      const res = await proxy('owner', '/show/table', { table_name: 'geo' }, 'kinetica', other.id);
      expect([res.statusCode, res.json().message]).toEqual([422, 'The data proxy serves kinetica connections']);
    });
  });

  describe('planet (its Orders and Data APIs)', () => {
    it("tests, lists, and imports a saved search's scene footprints as a dataset", async () => {
      const body = { type: 'planet', apiUrl: planet.url, credentials: { token: 'PLAK-key' } };
      expect((await call('owner', 'POST', '/v1/test-connection', body)).json().item).toEqual({ ok: true, serverVersion: 'Planet: 1 order' });
      const bad = await call('owner', 'POST', '/v1/test-connection', { ...body, credentials: { token: 'PLAK-other' } });
      expect([bad.statusCode, bad.json().message]).toEqual([422, expect.stringMatching(/refused the API key/)]);
      const id = (await call('owner', 'POST', '/v1/data-connections', { ...body, name: 'Planet' })).json().item.id;
      expect((await call('owner', 'GET', `/v1/data-connections/${id}/objects?prefix=searches/`)).json().items.map((i: { key: string }) => i.key)).toEqual(['searches/bay-scenes.geojson']);
      const res = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'searches/bay-scenes.geojson', name: 'Bay scenes' });
      expect(res.statusCode).toBe(201);
      expect(res.json().item).toMatchObject({ name: 'Bay scenes', status: 'ready', metadata: { rowCount: 300 } });
    });
  });

  describe('gcs (Cloud Storage JSON API, a service account key)', () => {
    it('tests, lists and imports a CSV object as a dataset; a wrong bucket is a 422', async () => {
      const body = { type: 'gcs', bucket: 'city-bucket', endpoint: gcs.endpoint, credentials: { privateKey: gcs.keyJson } };
      expect((await call('owner', 'POST', '/v1/test-connection', body)).json().item).toEqual({ ok: true, serverVersion: 'Cloud Storage bucket city-bucket' });
      const bad = await call('owner', 'POST', '/v1/test-connection', { ...body, bucket: 'other-bucket' });
      expect([bad.statusCode, bad.json().message]).toEqual([422, expect.stringMatching(/bucket does not exist/)]);
      const id = (await call('owner', 'POST', '/v1/data-connections', { ...body, name: 'GCS' })).json().item.id;
      expect((await call('owner', 'GET', `/v1/data-connections/${id}/objects?prefix=exports/`)).json().items.map((i: { key: string }) => i.key)).toEqual(['exports/places.csv']);
      const res = await call('owner', 'POST', `/v1/data-connections/${id}/import`, { key: 'exports/places.csv' });
      expect(res.json().item).toMatchObject({ name: 'places.csv', status: 'ready', metadata: { rowCount: 3 } });
    });
  });

  it('runs identical pipelines sent at once on the warehouse once, and answers each of them', async () => {
    const id = (await call('owner', 'POST', '/v1/data-connections', { type: 'presto', name: 'Slow lake', host: '127.0.0.1', port: slowTrino.port, catalog: 'lake', schema: 'geo', user: 'analyst', ssl: false })).json().item.id;
    const live = (await call('owner', 'POST', '/v1/datasets/query', { connectionId: id, query: 'SELECT id, category FROM places', name: 'Slow live', live: true })).json().item;
    const pipeline = { type: 'group', by: ['category'], expressions: ['count(*) AS n'], input: [{ type: 'dataset', uuid: live.id }] };
    const before = slowTrino.statements.length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => call('owner', 'POST', '/v1/query?format=json', pipeline)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    for (const a of answers) expect(a.json().items).toHaveLength(2);
    expect(slowTrino.statements.length - before).toBe(1);
  });
});
