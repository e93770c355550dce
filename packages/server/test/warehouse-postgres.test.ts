import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { DASHBOARD_STATE_VERSION } from '@studio/schema';
import { positionalParameters } from '@studio/warehouses';
import { STORES, seedCast, startStudio, useWarehouse, warehouseConnection, type TestStudio } from './harness';

/** A scratch warehouse on the test warehouse server: the user's own database the queries are pushed down to. */
const WAREHOUSE = useWarehouse('studio_wh', `
    create schema geo;
    create table geo.places (id bigint primary key, name text, score numeric(6,2), visited date, open boolean);
    insert into geo.places values (1, 'Ferry Building', 4.50, '2024-03-01', true), (2, 'Coit Tower', 3.25, '2024-03-02', false),
      (3, $$O'Brien's; drop table x$$, 2.00, null, null)`);

describe('positionalParameters', () => {
  it.each([
    ['select $a, $b, $a', 'select $1, $2, $1', ['a', 'b']],
    ["select '$a', \"$b\", $c -- $d\n /* $e */", "select '$a', \"$b\", $1 -- $d\n /* $e */", ['c']],
    ['select $$ $x $$, $tag$ $y $tag$, $z', 'select $$ $x $$, $tag$ $y $tag$, $1', ['z']],
    ["select 'it''s $a', $b", "select 'it''s $a', $1", ['b']],
    ['select {{category}}, $a, {{ category }}', 'select $1, $2, $1', ['category', 'a']],
    ["select '{{x}}', \"{{y}}\" -- {{z}}", "select '{{x}}', \"{{y}}\" -- {{z}}", []],
    ['select {{ not a name }}', 'select {{ not a name }}', []],
  ])('%s', (text, sql, names) => expect(positionalParameters(text)).toEqual({ sql, names }));
});

describe.each(STORES)('postgres connections on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let connId: string;
  const call = (who: 'owner' | 'outsider', method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who], ...headers } });
  const config = warehouseConnection(WAREHOUSE);
  const executions = async () => Number((await s.services.db.withTables<{ query_executions: { id: string } }>().selectFrom('query_executions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    connId = (await call('owner', 'POST', '/v1/data-connections', { ...config, name: 'Warehouse', credentials: { password: 'unused-with-trust' } })).json().item.id;
  });
  afterAll(async () => s?.dispose());

  it.each([
    ['a saved connection', () => ({ connectionId: connId })],
    ['an unsaved connection body', () => config],
  ])('tests %s', async (_n, body) => {
    const res = await call('owner', 'POST', '/v1/test-connection', body());
    expect([res.statusCode, res.json().item?.ok]).toEqual([200, true]);
    expect(res.json().item.serverVersion).toMatch(/^\d+/);
  });

  it.each([
    ['a wrong database', { ...config, database: 'no_such_db_here' }, 'no_such_db_here'],
    // Storage kinds are tested by their own driver; a loopback endpoint not listed is refused before any packet.
    ['a storage connection to an address not listed', { type: 's3', bucket: 'acme-lake', region: 'us-east-1', endpoint: 'http://127.0.0.1:9' }, 'STUDIO_CONNECTION_HOSTS'],
    // Every warehouse kind has a driver; an account endpoint on a loopback port not listed is refused before any packet.
    ['a Snowflake endpoint not listed', { type: 'snowflake', account: 'a', warehouse: 'w', user: 'u', endpoint: 'http://127.0.0.1:9' }, 'STUDIO_CONNECTION_HOSTS'],
  ])('answers 422 for %s', async (_n, body, message) => {
    const res = await call('owner', 'POST', '/v1/test-connection', body);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain(message);
  });

  it.each([
    ['schemas', () => `/v1/data-queries/schema/${connId}`, { name: 'geo', type: 'schema' }],
    ['tables', () => `/v1/data-queries/schema/${connId}/geo`, { name: 'places', type: 'table' }],
    ['columns (encoded path)', () => `/v1/data-queries/schema/${connId}/geo%2Fplaces`, { name: 'score', type: 'column', dataType: 'numeric', nullable: true }],
    ['columns (two segments)', () => `/v1/data-queries/schema/${connId}/geo/places`, { name: 'id', type: 'column', dataType: 'bigint', nullable: false }],
  ])('lists %s from information_schema', async (_n, url, entry) => {
    const res = await call('owner', 'GET', url());
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toContainEqual(entry);
    expect((await call('outsider', 'GET', url())).statusCode).toBe(404);
  });

  it('pushes a query down, typed, with bound parameters, into a Parquet result', async () => {
    const body = { connectionId: connId, query: 'select id, name, score, visited, open from geo.places where score >= $min order by id', parameters: { min: 3 } };
    const res = await call('owner', 'POST', '/v1/data-queries', body, { 'cache-control': 'no-cache' });
    const item = res.json().item;
    expect(item).toMatchObject({ status: 'success', rowCount: 2, connectionId: connId });
    expect(item.columns).toEqual([
      { name: 'id', type: 'BIGINT' }, { name: 'name', type: 'VARCHAR' }, { name: 'score', type: 'DOUBLE' },
      { name: 'visited', type: 'DATE' }, { name: 'open', type: 'BOOLEAN' },
    ]);
    const csv = await call('owner', 'GET', `/v1/data-queries/${item.id}/result`);
    expect(csv.body.trim().split('\n')).toEqual(['id,name,score,visited,open', '1,Ferry Building,4.5,2024-03-01,true', '2,Coit Tower,3.25,2024-03-02,false']);
    expect((await call('owner', 'POST', '/v1/data-queries', body)).json().item).toMatchObject({ id: item.id, fromCache: true });
  });

  it('runs a query template with a {{parameter}} on the warehouse, one value then another', async () => {
    const t = await call('owner', 'POST', '/v1/data-queries/templates', { name: 'By name', query: 'select id from geo.places where name = {{place}}', connectionId: connId, parameters: [{ name: 'place', type: 'TEXT' }] });
    expect(t.statusCode, t.body).toBe(201);
    const run = (place: string) => call('owner', 'POST', '/v1/data-queries/json', { queryTemplateId: t.json().item.id, parameters: { place } }, { 'cache-control': 'no-cache' });
    expect((await run('Coit Tower')).json().items).toEqual([{ id: 2 }]);
    expect((await run("O'Brien's; drop table x")).json().items).toEqual([{ id: 3 }]);
  });

  it('binds an injection string as a value', async () => {
    const res = await call('owner', 'POST', '/v1/data-queries/json', { connectionId: connId, query: 'select id from geo.places where name = $n', parameters: { n: "O'Brien's; drop table x" } });
    expect(res.json().items).toEqual([{ id: 3 }]);
  });

  it.each([
    ['a write', 'delete from geo.places', /syntax error/],
    ['a write in a CTE', 'with d as (delete from geo.places returning id) select id from d', /read-only|data-modifying/],
    ['a write through a function', "select count(*) from (select pg_catalog.nextval('geo.nothing')) x", /read-only|does not exist/],
    ['two statements', 'select 1; delete from geo.places', /syntax error|multiple commands/],
    ['an unknown table', 'select * from geo.nowhere', /does not exist/],
  ])('records %s as a failure and changes nothing', async (_n, query, message) => {
    const item = (await call('owner', 'POST', '/v1/data-queries', { connectionId: connId, query })).json().item;
    expect(item.status).toBe('failure');
    expect(item.errorMessage).toMatch(message);
    const rows = (await call('owner', 'POST', '/v1/data-queries/json', { connectionId: connId, query: 'select count(*) as n from geo.places' }, { 'cache-control': 'no-cache' })).json().items;
    expect(rows).toEqual([{ n: 3 }]);
  });

  it.each([
    ['a missing parameter', () => ({ connectionId: connId, query: 'select $x as x' }), 422, 'owner'],
    ['an outsider', () => ({ connectionId: connId, query: 'select 1 as x' }), 404, 'outsider'],
  ] as const)('refuses %s before anything runs', async (_n, body, status, who) => {
    const before = await executions();
    expect((await call(who, 'POST', '/v1/data-queries', body())).statusCode).toBe(status);
    expect(await executions()).toBe(before);
  });

  it('saves a query result on the warehouse as a dataset (a Parquet snapshot), and replaces a dataset with a table of it', async () => {
    const created = await call('owner', 'POST', '/v1/datasets/query', { name: 'High scores', query: 'select id, name, score from geo.places where score > 3 order by id', connectionId: connId });
    expect(created.statusCode, created.body).toBe(201);
    const dataset = created.json().item;
    expect(dataset).toMatchObject({ status: 'ready', name: 'High scores' });
    const csv = await call('owner', 'GET', `/v1/datasets/${dataset.id}/data`);
    expect(csv.body.trim().split('\n')).toEqual(['id,name,score', '1,Ferry Building,4.5', '2,Coit Tower,3.25']);
    const replaced = await call('owner', 'POST', `/v1/datasets/${dataset.id}/workbench`, { connectionId: connId, schemaName: 'geo', tableName: 'places' });
    expect(replaced.statusCode, replaced.body).toBe(200);
    const all = await call('owner', 'GET', `/v1/datasets/${dataset.id}/data`);
    expect(all.body.trim().split('\n')).toHaveLength(4);
    // Another organization's member cannot use the connection, by body id as by path (404, nothing created).
    expect((await call('outsider', 'POST', '/v1/datasets/query', { name: 'x', query: 'select 1', connectionId: connId })).statusCode).toBe(404);
    // The warehouse's own message for a bad query; the dataset is not left half-made.
    const bad = await call('owner', 'POST', '/v1/datasets/query', { name: 'Broken', query: 'select nothing from geo.nowhere', connectionId: connId });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.statusCode).toBeLessThan(500);
    expect(bad.body).toMatch(/does not exist/);
  });

  it('answers at once with Prefer: respond-async (202, queued or running), and the execution reads as done later', async () => {
    const body = { connectionId: connId, query: 'select id, name, pg_sleep(0.3) is null as slept from geo.places order by id' };
    const res = await call('owner', 'POST', '/v1/data-queries', body, { prefer: 'respond-async', 'cache-control': 'no-cache' });
    expect([res.statusCode, res.headers['preference-applied']]).toEqual([202, 'respond-async']);
    expect(['queued', 'running']).toContain(res.json().item.status);
    expect(res.headers.location).toBe(`/v1/data-queries/${res.json().item.id}`);
    await expect.poll(async () => (await call('owner', 'GET', res.headers.location as string)).json().item.status, { timeout: 15_000 }).toBe('success');
    expect((await call('owner', 'GET', `${res.headers.location}/result`)).body.trim().split('\n')).toHaveLength(4);
    // Without the preference, the answer waits for the result, as before.
    const sync = await call('owner', 'POST', '/v1/data-queries', { connectionId: connId, query: 'select 1 as one' }, { 'cache-control': 'no-cache' });
    expect([sync.statusCode, sync.json().item.status]).toEqual([200, 'success']);
  });

  it('cancels an asynchronous query from the Jobs panel: the execution ends cancelled and stays so', async () => {
    const body = { connectionId: connId, query: 'select pg_sleep(20) is null as slept' };
    const res = await call('owner', 'POST', '/v1/data-queries', body, { prefer: 'respond-async', 'cache-control': 'no-cache' });
    expect(res.statusCode).toBe(202);
    const id = res.json().item.id as string;
    await expect.poll(async () => (await call('owner', 'GET', `/v1/jobs/${id}`)).json().item.status, { timeout: 15_000 }).toBe('running');
    const cancelled = await call('owner', 'POST', `/v1/jobs/${id}/cancel`);
    expect([cancelled.statusCode, cancelled.json().item.status]).toEqual([200, 'cancelled']);
    expect((await call('owner', 'GET', `/v1/data-queries/${id}`)).json().item).toMatchObject({ status: 'cancelled', errorMessage: 'The job was cancelled' });
    // The run sees the cancel (at the job's next heartbeat) and stops the warehouse's query well before its 20 s;
    // the execution stays cancelled.
    const admin = new pg.Client({ connectionString: inject('warehouseServer').adminUrl });
    await admin.connect();
    try {
      const sleeping = async () => Number((await admin.query(`select count(*) from pg_stat_activity where datname = $1 and state = 'active' and query like '%pg_sleep(20)%' and pid <> pg_backend_pid()`, [WAREHOUSE])).rows[0].count);
      await expect.poll(sleeping, { timeout: 15_000, interval: 100 }).toBe(0);
    } finally {
      await admin.end();
    }
    expect((await call('owner', 'GET', `/v1/data-queries/${id}`)).json().item.status).toBe('cancelled');
  });

  it('runs a pipeline over a live dataset on PostgreSQL itself (push-down), a quoted value bound', async () => {
    const live = await call('owner', 'POST', '/v1/datasets/query', { connectionId: connId, query: 'select id, name, score from geo.places', name: 'Live places', live: true });
    expect(live.json().item).toMatchObject({ type: 'sql', dataConnectionId: connId, status: 'ready' });
    const pipeline = { type: 'sort', by: ['id'], input: [{ type: 'filter', expression: "name <> 'Coit Tower' AND score > 1", input: [{ type: 'dataset', uuid: live.json().item.id }] }] };
    const res = await call('owner', 'POST', '/v1/query?format=json', pipeline);
    expect([res.statusCode, res.headers['x-studio-engine'], res.statusCode === 200 ? '' : res.body]).toEqual([200, 'postgres', '']);
    expect(res.json().items.map((r: { name: string }) => r.name)).toEqual(['Ferry Building', "O'Brien's; drop table x"]);
    // A live dataset needs its connection; without one it is refused, and nothing is made.
    const lonely = await call('owner', 'POST', '/v1/datasets/query', { query: 'select 1 as one', name: 'Lonely live', live: true });
    expect([lonely.statusCode, lonely.json().message]).toEqual([422, 'A live dataset reads a connection: give its connectionId']);
  });

  it("computes a dashboard widget over a live dataset on PostgreSQL: the warehouse's numbers, and its new rows at once", async () => {
    const onWarehouse = async (sql: string) => {
      const c = new pg.Client({ connectionString: inject('warehouseServer').adminUrl.replace(/\/[^/]*$/, `/${WAREHOUSE}`) });
      await c.connect();
      try {
        await c.query(`set role ${inject('warehouseServer').user}`);
        await c.query(sql);
      } finally {
        await c.end();
      }
    };
    await onWarehouse(`create table geo.sales_${kind} as select i as id, case when i % 3 = 0 then 'Cafe' else 'Fuel' end as category, i * 2 as amount from generate_series(1, 30) i`);
    const live = (await call('owner', 'POST', '/v1/datasets/query', { connectionId: connId, query: `select id, category, amount from geo.sales_${kind}`, name: 'Live sales', live: true })).json().item;
    const widget = { id: 'bar', kind: 'bar', title: 'Sales', parameterIds: [], options: { numberFormat: 'number', decimals: 0 }, query: { datasetId: live.id, dimensions: ['category'], measures: [{ fn: 'sum', column: 'amount' }], columns: [], filters: [], limit: 100 } };
    const state = { version: DASHBOARD_STATE_VERSION, parameters: [], widgets: [widget], layout: [] };
    const dash = (await call('owner', 'POST', '/v1/dashboards', { name: 'Live', latestState: state })).json().item;
    const rows = async () => {
      const res = await call('owner', 'POST', `/v1/dashboards/${dash.id}/widgets/bar/query`, {}, { 'cache-control': 'no-cache' });
      expect(res.statusCode).toBe(200);
      return Object.fromEntries((res.json().item.rows as [string, number][]).map(([c, v]) => [c, Number(v)]));
    };
    // By hand on PostgreSQL: Cafe 3+6+…+30 doubled = 330, Fuel the rest (930 - 330).
    expect(await rows()).toEqual({ Cafe: 330, Fuel: 600 });
    await onWarehouse(`insert into geo.sales_${kind} values (31, 'Cafe', 1000)`);
    // The snapshot does not have that row; the widget does: it ran on the warehouse.
    expect(await rows()).toEqual({ Cafe: 1330, Fuel: 600 });
  });

  it("lets its owner keep queries for the connection's editors; readers still see and browse it", async () => {
    const asWho = (who: 'owner' | 'colleague' | 'editor', method: string, url: string, payload?: unknown) =>
      s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who], 'cache-control': 'no-cache' } });
    const restricted = (await asWho('owner', 'POST', '/v1/data-connections', { ...config, name: 'Editors only', runForEditorsOnly: true })).json().item;
    expect(restricted.runForEditorsOnly).toBe(true);
    await asWho('owner', 'POST', '/v1/permissions', { resourceType: 'data-connection', resourceId: restricted.id, role: 'viewer', userId: cast.users.colleague.id });
    const granted = await asWho('owner', 'POST', '/v1/permissions', { resourceType: 'data-connection', resourceId: restricted.id, role: 'editor', email: cast.users.editor.email });
    expect(granted.statusCode).toBeLessThan(300);
    const query = { connectionId: restricted.id, query: 'select 1 as one' };
    const reader = await asWho('colleague', 'POST', '/v1/data-queries', query);
    expect([reader.statusCode, reader.json().message]).toEqual([403, 'Only editors of this connection may run queries on it']);
    expect((await asWho('colleague', 'GET', `/v1/data-queries/schema/${restricted.id}`)).statusCode).toBe(200);
    const byEditor = await asWho('editor', 'POST', '/v1/data-queries', query);
    expect([byEditor.statusCode, byEditor.json().item?.status ?? byEditor.body]).toEqual([200, 'success']);
    // A save that does not name the switch keeps it; off again, the reader runs.
    await asWho('owner', 'PUT', `/v1/data-connections/${restricted.id}`, { ...config, name: 'Renamed' });
    expect((await asWho('colleague', 'POST', '/v1/data-queries', query)).statusCode).toBe(403);
    await asWho('owner', 'PUT', `/v1/data-connections/${restricted.id}`, { ...config, name: 'Editors only', runForEditorsOnly: false });
    expect((await asWho('colleague', 'POST', '/v1/data-queries', query)).json().item.status).toBe('success');
  });

  it('refuses storage connections as databases, and records a warehouse run that cannot start as a failure', async () => {
    const s3 = (await call('owner', 'POST', '/v1/data-connections', { type: 's3', name: 'Lake', bucket: 'acme-lake', region: 'us-east-1' })).json().item.id;
    // No key: refused before any request (Google's host is not even looked up).
    const bq = (await call('owner', 'POST', '/v1/data-connections', { type: 'bigquery', name: 'BQ', projectId: 'p' })).json().item.id;
    const before = await executions();
    const a = await call('owner', 'POST', '/v1/data-queries', { connectionId: s3, query: 'select 1' });
    expect([a.statusCode, a.json().message]).toEqual([422, 'Not a database connection']);
    expect((await call('owner', 'GET', `/v1/data-queries/schema/${s3}`)).json().message).toBe('Not a database connection');
    expect(await executions()).toBe(before);
    const b = await call('owner', 'POST', '/v1/data-queries', { connectionId: bq, query: 'select 1' });
    expect(b.json().item).toMatchObject({ status: 'failure', errorMessage: 'This connection needs a service account key (JSON)' });
  });
});

/**
 * Redshift speaks PostgreSQL's wire protocol and is driven by the same client (`pg`): run live here against
 * the test warehouse server, as the issue has it. What differs is Redshift's own: the version it reports and
 * the role check (pg_user.usesuper; it has no server-file roles).
 */
describe.each(STORES)('redshift connections on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let connId: string;
  const call = (method: string, url: string, payload?: unknown) => s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner } });
  const config = { ...warehouseConnection(WAREHOUSE), type: 'redshift' as const };

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const created = await call('POST', '/v1/data-connections', { ...config, name: 'Redshift', credentials: { password: 'unused-with-trust' } });
    expect(created.statusCode, created.body).toBe(201);
    connId = created.json().item.id;
  });
  afterAll(async () => s?.dispose());

  it('tests a saved and an unsaved connection: the version the warehouse reports', async () => {
    for (const body of [{ connectionId: connId }, config]) {
      const res = await call('POST', '/v1/test-connection', body);
      expect([res.statusCode, res.json().item?.ok], res.body).toEqual([200, true]);
      expect(res.json().item.serverVersion).toMatch(/^PostgreSQL \d+/);
    }
  });

  it('answers the warehouse\'s own message for a wrong database, and a port default of 5439', async () => {
    const res = await call('POST', '/v1/test-connection', { ...config, database: 'no_such_db_here' });
    expect([res.statusCode, res.json().message]).toEqual([422, expect.stringContaining('no_such_db_here')]);
    const { port: _p, ...withoutPort } = config;
    const saved = (await call('POST', '/v1/data-connections', { ...withoutPort, name: 'Default port' })).json().item;
    expect(saved.config.port).toBe(5439);
  });

  it('browses schemas, tables and columns, and runs a query with bound parameters', async () => {
    expect((await call('GET', `/v1/data-queries/schema/${connId}`)).json().items).toContainEqual({ name: 'geo', type: 'schema' });
    expect((await call('GET', `/v1/data-queries/schema/${connId}/geo/places`)).json().items).toContainEqual({ name: 'name', type: 'column', dataType: 'text', nullable: true });
    const rows = await call('POST', '/v1/data-queries/json', { connectionId: connId, query: 'select id, name from geo.places where score >= $min order by id', parameters: { min: 3 } });
    expect(rows.json().items).toEqual([{ id: 1, name: 'Ferry Building' }, { id: 2, name: 'Coit Tower' }]);
  });
});
