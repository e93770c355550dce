import { describe, expect, it } from 'vitest';
import { DASHBOARD_STATE_VERSION, type DashboardState, type Widget } from '@studio/schema';
import { STORES, jobEnded, useStudio, useWarehouse, warehouseConnection, type Who } from './harness';

/**
 * #45 reproduction 7 and "live datasets keep their owner's rule": a text one user stores and the studio
 * later runs with another user's credentials must have been the storer's to run where it runs. Alice is the
 * cast's owner, Bob its editor (another organization).
 */
const WAREHOUSE = useWarehouse(
  'studio_stored_queries',
  `create table staff (id int, name text);
   insert into staff values (1, 'Ada'), (2, 'Grace');
   create table secret_salaries (name text, salary int);
   insert into secret_salaries values ('Ada', 250000), ('Grace', 240000);`,
);

const QUERY_CHANGE_REFUSED = "Changing a live dataset's query needs the right to run queries on its data connection";
const TEMPLATE_RUN_REFUSED = 'Saving a query template for a data connection needs the right to run queries on it';
const WIDGET_DATASET_REFUSED = "A dashboard's widgets and parameters run with its owner's access: save queries only over datasets you may read yourself";
const REFRESH_REFUSED = "The refresh did not run: whoever last set this dataset's query may no longer run queries on its data connection; someone who may can set the query again";

describe.each(STORES)('stored queries run with whose rights, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const ask = (who: Who) => (url: string) => as(who, 'GET', url);
  const share = (resourceType: string, resourceId: string, role: 'viewer' | 'editor', who: Who = 'editor') =>
    as('owner', 'POST', '/v1/permissions', { resourceType, resourceId, role, email: ctx.cast.users[who].email }).then((r) => expect(r.statusCode, r.body).toBe(201));
  /** Alice's warehouse connection, queries for its editors only. */
  const connection = async (name: string) => {
    const res = await as('owner', 'POST', '/v1/data-connections', { ...warehouseConnection(WAREHOUSE), name, runForEditorsOnly: true, credentials: { password: 'unused-with-trust' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().item.id as string;
  };
  /** Alice's live dataset of the connection, shared with Bob as editor. */
  const liveDataset = async (connectionId: string, name: string) => {
    const res = await as('owner', 'POST', '/v1/datasets/query', { connectionId, query: 'select id, name from staff order by id', name, live: true });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().item.id as string;
    await share('dataset', id, 'editor');
    return id;
  };
  let decoy: Promise<void> | undefined;
  const csvOf = async (who: Who, id: string) => (await as(who, 'GET', `/v1/datasets/${id}/data`)).body.trim().split('\n');
  const refreshed = async (who: Who, id: string) => {
    const res = await as(who, 'POST', `/v1/datasets/${id}/refresh`);
    expect(res.statusCode, res.body).toBe(202);
    return { id: res.json().job.id as string, ...(await jobEnded(ask(who), res.json().job.id)) };
  };

  it.each([
    ['reads the connection but may not run it', 'viewer'],
    ['was not given the connection', null],
  ] as const)("an editor of a live dataset who %s cannot set its query: the refresh runs its owner's text, not the salaries", async (_case, onConnection) => {
    const connectionId = await connection(`Payroll ${_case}`);
    if (onConnection) await share('data-connection', connectionId, onConnection);
    const live = await liveDataset(connectionId, `Staff ${_case}`);
    // Bob's own dataset named secret_salaries (one, made once) makes the text parse in his sandbox.
    decoy ??= as('editor', 'POST', '/v1/datasets/data?name=secret_salaries', 'name,salary\ndecoy,1\n', { 'content-type': 'text/csv' }).then((r) => expect(r.statusCode, r.body).toBe(201));
    await decoy;
    for (const body of [{ workbenchDataSource: 'SELECT * FROM secret_salaries' }, { connectionId, workbenchDataSource: 'SELECT * FROM secret_salaries' }]) {
      const res = await as('editor', 'POST', `/v1/datasets/${live}/workbench`, body);
      expect([res.statusCode, res.json().message]).toEqual([403, QUERY_CHANGE_REFUSED]);
    }
    // Nothing changed: the query, the data, the status.
    const item = (await as('owner', 'GET', `/v1/datasets/${live}`)).json().item;
    expect(item).toMatchObject({ status: 'ready', metadata: { query: 'select id, name from staff order by id', rowCount: 2 } });
    expect((await refreshed('editor', live)).status).toBe('succeeded');
    expect(await csvOf('editor', live)).toEqual(['id,name', '1,Ada', '2,Grace']);
  });

  it("a live dataset's query is for its connection: a query over datasets or another connection is refused (422), nothing changed", async () => {
    const connectionId = await connection('Payroll, one source');
    const other = await connection('Payroll, another source');
    const live = await liveDataset(connectionId, 'Staff, one source');
    for (const body of [{ workbenchDataSource: 'select 1 as one' }, { connectionId: other, workbenchDataSource: 'select 1 as one' }]) {
      const res = await as('owner', 'POST', `/v1/datasets/${live}/workbench`, body);
      expect([res.statusCode, res.json().message]).toEqual([422, `This live dataset reads data connection ${connectionId}: its query runs there at every refresh, so give that connectionId`]);
    }
    expect((await as('owner', 'GET', `/v1/datasets/${live}`)).json().item.metadata.query).toBe('select id, name from staff order by id');
  });

  it('a refresh, asked for or scheduled, runs with the rights of whoever last set the query, checked when it runs', async () => {
    const connectionId = await connection('Payroll, shared to run');
    await share('data-connection', connectionId, 'editor');
    const live = await liveDataset(connectionId, 'Staff, set by Bob');
    // Bob may run the connection: he sets the query.
    const set = await as('editor', 'POST', `/v1/datasets/${live}/workbench`, { connectionId, workbenchDataSource: 'select name from staff where id = 1' });
    expect(set.statusCode, set.body).toBe(200);
    expect(await csvOf('owner', live)).toEqual(['name', 'Ada']);
    // Alice copies it now: the copy's query is hers to run.
    const copy = (await as('owner', 'POST', `/v1/datasets/${live}/clone`)).json().item.id as string;
    // Then Bob may only read the connection: his text no longer runs, on request or on a schedule, whoever asks.
    await share('data-connection', connectionId, 'viewer');
    const ended = await refreshed('owner', live);
    expect([ended.status, ended.message]).toEqual(['failed', REFRESH_REFUSED]);
    const scheduled = await as('owner', 'PUT', `/v1/datasets/${live}/refresh-schedule`, { schedule: 'hourly' });
    const due = new Date(Date.parse(scheduled.json().item.metadata.refresh.nextRefreshAt) + 1000);
    expect(await ctx.s.services.refresh.runDue(due)).toBe(1);
    const jobs = (await as('owner', 'GET', `/v1/jobs?resourceId=${live}`)).json().items as { id: string; kind: string }[];
    const byTrigger = await jobEnded(ask('owner'), jobs.find((j) => j.kind === 'dataset-refresh' && j.id !== ended.id)!.id);
    expect([byTrigger.status, byTrigger.message]).toEqual(['failed', REFRESH_REFUSED]);
    const after = (await as('owner', 'GET', `/v1/datasets/${live}`)).json().item;
    expect(after).toMatchObject({ status: 'ready', metadata: { refresh: { lastOutcome: 'failed', lastMessage: REFRESH_REFUSED, lastTrigger: 'schedule' } } });
    expect(await csvOf('owner', live)).toEqual(['name', 'Ada']);
    // The copy refreshes with Alice's rights; Alice setting the original's query again makes it hers.
    expect((await refreshed('owner', copy)).status).toBe('succeeded');
    expect((await as('owner', 'POST', `/v1/datasets/${live}/workbench`, { connectionId, workbenchDataSource: 'select name from staff order by id' })).statusCode).toBe(200);
    expect((await refreshed('owner', live)).status).toBe('succeeded');
    expect(await csvOf('owner', live)).toEqual(['name', 'Ada', 'Grace']);
  });

  it("an editor of a query template who may not run its connection cannot change its text; the owner's runs run the owner's", async () => {
    const connectionId = await connection('Payroll, templates');
    await share('data-connection', connectionId, 'viewer');
    const created = await as('owner', 'POST', '/v1/data-queries/templates', { name: 'Staff', query: 'select name from staff order by id', connectionId });
    expect(created.statusCode, created.body).toBe(201);
    const template = created.json().item.id as string;
    await share('query-template', template, 'editor');
    for (const [method, url, body] of [
      ['PUT', `/v1/data-queries/templates/${template}`, { query: 'select * from secret_salaries' }],
      ['POST', '/v1/data-queries/templates', { name: 'Mine', query: 'select * from secret_salaries', connectionId }],
    ] as const) {
      const res = await as('editor', method, url, body);
      expect([res.statusCode, res.json().message]).toEqual([403, TEMPLATE_RUN_REFUSED]);
    }
    // A new name changes no text: still Bob's to give.
    expect((await as('editor', 'PUT', `/v1/data-queries/templates/${template}`, { name: 'Staff names' })).statusCode).toBe(200);
    const run = await as('owner', 'POST', `/v1/data-queries/templates/${template}`, {}, { 'cache-control': 'no-cache' });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().item.status).toBe('success');
    expect((await as('owner', 'GET', `/v1/data-queries/${run.json().item.id}/result`)).body.trim().split('\n')).toEqual(['name', 'Ada', 'Grace']);
    expect((await as('owner', 'GET', `/v1/data-queries/templates/${template}`)).json().item).toMatchObject({ name: 'Staff names', query: 'select name from staff order by id', version: 2 });
  });

  it("an editor of a dashboard stores new or changed queries only over datasets they read: its widgets run with the owner's access", async () => {
    const upload = async (name: string, csv: string) => (await as('owner', 'POST', `/v1/datasets/data?name=${name}`, csv, { 'content-type': 'text/csv' })).json().item.id as string;
    const staff = await upload('Staff', 'name,team\nAda,maths\nGrace,navy\n');
    const payroll = await upload('Payroll', 'name,salary\nAda,250000\nGrace,240000\n');
    const table = (id: string, datasetId: string, columns: string[], title = 'Rows'): Widget => ({
      id, kind: 'table', title, parameterIds: [], options: { numberFormat: 'number', decimals: 0 },
      query: { datasetId, dimensions: [], measures: [], columns, filters: [], limit: 1000 },
    });
    const state = (widgets: Widget[], parameters: DashboardState['parameters'] = []): DashboardState => ({ version: DASHBOARD_STATE_VERSION, parameters, widgets, layout: [] });
    const made = await as('owner', 'POST', '/v1/dashboards', { name: 'Teams', latestState: state([table('teams', staff, ['team'])]) });
    expect(made.statusCode, made.body).toBe(201);
    const dash = made.json().item.id as string;
    await share('insight', dash, 'editor');
    const payrollParameter = { id: 'who', label: 'Who', type: 'DROPDOWN' as const, column: 'name', source: { kind: 'DYNAMIC' as const, datasetId: payroll, column: 'salary' } };
    for (const [_case, latestState] of [
      ['a new widget over a dataset the editor cannot read', state([table('teams', staff, ['team']), table('pay', payroll, ['name', 'salary'])])],
      ['a changed query of a widget the owner made', state([table('teams', staff, ['name', 'team'])])],
      ['a parameter whose choices come from such a dataset', state([table('teams', staff, ['team'])], [payrollParameter])],
    ] as const) {
      const res = await as('editor', 'PUT', `/v1/dashboards/${dash}`, { latestState });
      expect([_case, res.statusCode, res.json().message]).toEqual([_case, 403, WIDGET_DATASET_REFUSED]);
    }
    expect((await as('editor', 'POST', `/v1/dashboards/${dash}/widgets/pay/query`, {})).statusCode).toBe(404);
    expect((await as('editor', 'GET', `/v1/dashboards/${dash}/parameters/who/values`)).statusCode).toBe(404);
    // Moving or renaming the owner's widget keeps the owner's query: allowed; the owner stores what they read.
    expect((await as('editor', 'PUT', `/v1/dashboards/${dash}`, { latestState: state([table('teams', staff, ['team'], 'Teams')]) })).statusCode).toBe(200);
    expect((await as('editor', 'POST', `/v1/dashboards/${dash}/widgets/teams/query`, {})).json().item.rows).toEqual([['maths'], ['navy']]);
    expect((await as('owner', 'PUT', `/v1/dashboards/${dash}`, { latestState: state([table('teams', staff, ['team']), table('pay', payroll, ['name', 'salary'])]) })).statusCode).toBe(200);
    // An analytic widget reads the analytic set Alice's organization bound: datasets of hers Bob does not read.
    await ctx.s.services.analytics.bi.insertAnalyticConfig({ groupId: 'foot-traffic', orgId: ctx.cast.org.id, datasets: { places: payroll, devices: payroll, visits: payroll }, templateParameters: {}, templateOverrides: {}, by: ctx.cast.users.owner.id });
    const analytic: Widget = { id: 'audience', kind: 'bar', title: 'Audience', parameterIds: [], options: { numberFormat: 'number', decimals: 0 }, analytic: { groupId: 'foot-traffic', templateId: 'audience-age', parameters: {}, x: 'age', y: 'fair_share_index' } };
    const current = (await as('owner', 'GET', `/v1/dashboards/${dash}`)).json().item.latestState as DashboardState;
    const added = await as('editor', 'PUT', `/v1/dashboards/${dash}`, { latestState: { ...current, widgets: [...current.widgets, analytic] } });
    expect([added.statusCode, added.json().message]).toEqual([403, WIDGET_DATASET_REFUSED]);
  });
});
