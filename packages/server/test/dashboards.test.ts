import { describe, expect, it, beforeAll } from 'vitest';
import { startMailCatcher } from './mail-catcher';
import { DASHBOARD_STATE_VERSION, periodRange, previousRange, type DashboardState, type Widget } from '@studio/schema';
import { STORES, useStudio } from './harness';

// Sales of four stores in two categories over 2024-01-01 .. 2024-03-31: figures below are checked
// against hand-written DuckDB SQL on the same Parquet file, never against the widget code itself.
const days = ['2024-01-05', '2024-01-20', '2024-02-03', '2024-02-17', '2024-03-02', '2024-03-30'];
const SALES_CSV = [
  'store,category,day,amount,lat,lng',
  ...days.flatMap((d, n) => [
    `A,Cafe,${d},${10 + n},37.77,-122.41`,
    `B,Cafe,${d},${20 + 2 * n},37.78,-122.42`,
    `C,Fuel,${d},${5 + n},37.79,-122.43`,
    `D,Toys,${d},${n % 2 ? 7 : 3},37.80,-122.44`,
  ]),
].join('\n');

const bar = (datasetId: string, extra: Partial<Widget> = {}): Widget => ({
  id: 'bar',
  kind: 'bar',
  title: 'Sales by category',
  parameterIds: ['category', 'period'],
  options: { numberFormat: 'number', decimals: 0 },
  query: { datasetId, dimensions: ['category'], measures: [{ fn: 'sum', column: 'amount' }], columns: [], filters: [], limit: 1000 },
  ...extra,
});

function stateOf(datasetId: string): DashboardState {
  return {
    version: DASHBOARD_STATE_VERSION,
    parameters: [
      { id: 'category', label: 'Category', type: 'DROPDOWN', column: 'category', source: { kind: 'DYNAMIC', datasetId, column: 'category' } },
      { id: 'period', label: 'Period', type: 'RANGE_PERIOD', column: 'day', source: { kind: 'STATIC', values: [] } },
    ],
    widgets: [
      bar(datasetId),
      { id: 'kpi', kind: 'kpi', title: 'Total', parameterIds: ['category', 'period'], options: { numberFormat: 'number', decimals: 0 }, query: { datasetId, dimensions: [], measures: [{ fn: 'sum', column: 'amount' }], columns: [], filters: [], limit: 1, dateColumn: 'day' } },
      { id: 'table', kind: 'table', title: 'Rows', parameterIds: ['category'], options: { numberFormat: 'number', decimals: 0 }, query: { datasetId, dimensions: [], measures: [], columns: ['store', 'day', 'amount'], filters: [], limit: 1000 } },
      { id: 'note', kind: 'text', title: '', parameterIds: [], text: '# Sales', options: { numberFormat: 'number', decimals: 0 } },
    ],
    layout: [],
  };
}

describe('dashboard periods', () => {
  it.each([
    ['last-7-days', '2024-03-31', { from: '2024-03-25', to: '2024-03-31' }],
    ['last-90-days', '2024-03-31', { from: '2024-01-02', to: '2024-03-31' }],
    ['2024-02-01..2024-02-29', '2030-01-01', { from: '2024-02-01', to: '2024-02-29' }],
    ['2024-02-30..2024-03-01', '2030-01-01', null],
    ['2024-03-01..2024-02-01', '2030-01-01', null],
    ['yesterday', '2030-01-01', null],
  ])('%s (today %s)', (text, today, expected) => {
    expect(periodRange(text, new Date(`${today}T12:00:00Z`))).toEqual(expected);
  });
  it('the previous period has the same length and ends the day before', () => {
    expect(previousRange({ from: '2024-03-01', to: '2024-03-31' })).toEqual({ from: '2024-01-30', to: '2024-02-29' });
  });
});

describe.each(STORES)('dashboards on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  let datasetId: string;
  let otherId: string;
  let dashId: string;
  let parquet: string;

  const hand = async (sql: string) => (await ctx.s.services.engine.query(sql.replaceAll('$T', `read_parquet('${parquet}')`))).map((r) => Object.values(r).map((v) => (typeof v === 'bigint' ? Number(v) : v)));
  const runSaved = (widgetId: string, body: object = {}, who: 'owner' | 'viewer' | 'outsider' = 'owner') => as(who, 'POST', `/v1/dashboards/${dashId}/widgets/${widgetId}/query`, body);

  beforeAll(async () => {
    const up = await as('owner', 'POST', '/v1/datasets/data?name=Sales', SALES_CSV, { 'content-type': 'text/csv' });
    datasetId = up.json().item.id;
    const other = await as('owner', 'POST', '/v1/datasets/data?name=Secret', 'x,y\n1,2\n', { 'content-type': 'text/csv' });
    otherId = other.json().item.id;
    const row = await ctx.s.services.records.get(datasetId);
    parquet = await ctx.s.services.engine.store.localPath((row!.attrs as { storageKey: string }).storageKey);
    const dash = await as('owner', 'POST', '/v1/dashboards', { name: 'Sales', latestState: stateOf(datasetId) });
    expect(dash.statusCode).toBe(201);
    dashId = dash.json().item.id;
    // A reader in another organization is given the dashboard, not the dataset.
    const share = await as('owner', 'POST', `/v1/dashboards/${dashId}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }] });
    expect(share.statusCode).toBe(200);
  });

  // Widget numbers against hand-written SQL: group-by, parameter values, periods and cross-filters.
  it.each([
    ['no filter', 'bar', {}, "select category, sum(amount) from $T group by 1 order by 2 desc, 1"],
    ['a category', 'bar', { parameters: { category: 'Cafe' } }, "select category, sum(amount) from $T where category = 'Cafe' group by 1 order by 2 desc"],
    ['a period', 'bar', { parameters: { period: '2024-02-01..2024-02-29' } }, "select category, sum(amount) from $T where day >= '2024-02-01' and day < '2024-03-01' group by 1 order by 2 desc, 1"],
    ['period and category', 'bar', { parameters: { period: '2024-01-01..2024-02-10', category: 'Fuel' } }, "select category, sum(amount) from $T where day between '2024-01-01' and '2024-02-10' and category = 'Fuel' group by 1"],
    ['a cross-filter from another widget', 'bar', { crossFilters: [{ widgetId: 'table', column: 'store', value: 'B' }] }, "select category, sum(amount) from $T where store = 'B' group by 1"],
    ['its own click does not filter it', 'bar', { crossFilters: [{ widgetId: 'bar', column: 'category', value: 'Cafe' }] }, "select category, sum(amount) from $T group by 1 order by 2 desc, 1"],
    ['a KPI', 'kpi', { parameters: { category: 'Toys' } }, "select sum(amount) from $T where category = 'Toys'"],
    ['a KPI with cross-filter and period', 'kpi', { parameters: { period: '2024-03-01..2024-03-31' }, crossFilters: [{ widgetId: 'bar', column: 'category', value: 'Cafe' }] }, "select sum(amount) from $T where category = 'Cafe' and day >= '2024-03-01'"],
  ])('%s', async (_name, widgetId, body, sql) => {
    const res = await runSaved(widgetId, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().item.rows).toEqual(await hand(sql));
  });

  /** A batch answer's lines (NDJSON, in the order widgets finished), put back in the order asked. */
  const linesOf = (body: string) => body.trim().split('\n').map((l) => JSON.parse(l)).sort((a, b) => a.index - b.index);
  const runBatch = (body: object, who: 'owner' | 'viewer' | 'outsider' = 'owner', id = dashId) => as(who, 'POST', `/v1/dashboards/${id}/widgets/query`, body);

  it.each([
    ['no values', {}],
    ['a category and a period', { parameters: { category: 'Cafe', period: '2024-01-01..2024-02-29' } }],
    ['a cross-filter', { crossFilters: [{ widgetId: 'bar', column: 'category', value: 'Fuel' }] }],
  ])('a batch answers each widget as its own request does: %s', async (_name, shared) => {
    const asked = [{ id: 'bar' }, { id: 'kpi' }, { id: 'table', page: 0, sort: { by: 'amount', desc: true } }];
    const res = await runBatch({ ...shared, widgets: asked });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    const lines = linesOf(res.body);
    expect(lines.map((l) => [l.index, l.widgetId])).toEqual([[0, 'bar'], [1, 'kpi'], [2, 'table']]);
    for (const [n, a] of asked.entries()) {
      const { id, ...own } = a;
      expect(lines[n].item, id).toEqual((await runSaved(id, { ...shared, ...own })).json().item);
    }
  });

  it('a batch: a widget without data or unknown answers alone; a bad value refuses the whole request', async () => {
    const res = await runBatch({ parameters: { category: 'Toys' }, widgets: [{ id: 'note' }, { id: 'nope' }, { id: 'kpi' }] });
    expect(res.statusCode).toBe(200);
    const [note, nope, kpi] = linesOf(res.body);
    expect(note.error).toEqual({ status: 422, message: 'Widget note (text) has no data to query' });
    expect(nope.error).toEqual({ status: 404, message: 'Widget not found' });
    expect(kpi.item.rows).toEqual(await hand("select sum(amount) from $T where category = 'Toys'"));
    const bad = await runBatch({ parameters: { period: 'sometime' }, widgets: [{ id: 'bar' }] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toContain('parameter period');
    expect((await runBatch({ widgets: [] })).statusCode).toBe(422);
  });

  it("a batch runs under the owner's access for a reader, and names no dataset the reader could not reach otherwise", async () => {
    const res = await runBatch({ parameters: { category: 'Cafe' }, widgets: [{ id: 'bar' }] }, 'viewer');
    expect(linesOf(res.body)[0].item.rows).toEqual([['Cafe', 225]]);
    expect((await runBatch({ widgets: [{ id: 'bar' }] }, 'outsider')).statusCode).toBe(404);
    const foreign = await as('outsider', 'POST', '/v1/dashboards', { name: 'Mine too', latestState: { ...stateOf(datasetId), parameters: [], widgets: [bar(datasetId, { parameterIds: [] })] } });
    const mine = linesOf((await runBatch({ widgets: [{ id: 'bar' }] }, 'outsider', foreign.json().item.id)).body);
    expect(mine[0].error.status).toBe(404);
    expect(mine[0].item).toBeUndefined();
  });

  it('a KPI bound to a period also answers the previous period of the same length', async () => {
    const res = await runSaved('kpi', { parameters: { period: '2024-03-01..2024-03-31' } });
    // 2024-03-01..31 is 31 days; the 31 days before are 2024-01-30..2024-02-29.
    expect(res.json().item.previous).toEqual((await hand("select sum(amount) from $T where day between '2024-01-30' and '2024-02-29'"))[0]);
  });

  it('tables page by 100 on the server with the total, sorted as asked', async () => {
    const res = await runSaved('table', { sort: { by: 'amount', desc: true }, parameters: { category: 'Cafe' } });
    const item = res.json().item;
    expect(item.total).toBe(12);
    expect(item.columns.map((c: { name: string }) => c.name)).toEqual(['store', 'day', 'amount']);
    expect(item.rows.map((r: unknown[]) => r[2])).toEqual((await hand("select amount from $T where category = 'Cafe' order by amount desc")).map((r) => r[0]));
    expect((await runSaved('table', { page: 1 })).json().item.rows).toEqual([]);
  });

  it('exports a widget as CSV', async () => {
    const res = await as('owner', 'POST', `/v1/dashboards/${dashId}/widgets/bar/query?format=csv`, { parameters: { category: 'Cafe' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('Sales_by_category.csv');
    expect(res.body.trim().split('\n')).toEqual(['category,sum_amount', 'Cafe,225']);
  });

  it('a bad parameter value answers 422 naming the parameter', async () => {
    const res = await runSaved('bar', { parameters: { period: 'sometime' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain('parameter period');
  });

  it('lists a parameter\'s choices from its column, under the owner\'s access', async () => {
    const res = await as('viewer', 'GET', `/v1/dashboards/${dashId}/parameters/category/values`);
    expect(res.json().items).toEqual(['Cafe', 'Fuel', 'Toys']);
  });

  it("a reader runs the dashboard's own widgets under the owner's access, and nothing else on its datasets", async () => {
    // The reader cannot read the dataset itself...
    expect((await as('viewer', 'GET', `/v1/datasets/${datasetId}`)).statusCode).toBe(404);
    // ...but sees the dashboard's widgets.
    const res = await runSaved('bar', { parameters: { category: 'Cafe' } }, 'viewer');
    expect(res.statusCode).toBe(200);
    expect(res.json().item.rows).toEqual([['Cafe', 225]]);
    // A draft widget of their own on the same dataset is refused, also as CSV and as parameter choices.
    const draft = { widget: bar(datasetId, { parameterIds: [] }) };
    expect((await as('viewer', 'POST', '/v1/dashboards/widget-query', draft)).statusCode).toBe(404);
    expect((await as('viewer', 'POST', '/v1/dashboards/widget-query?format=csv', draft)).statusCode).toBe(404);
    expect((await as('viewer', 'POST', '/v1/dashboards/parameter-values', { parameter: { id: 'p', type: 'DROPDOWN', column: 'store', source: { kind: 'DYNAMIC', datasetId, column: 'store' } } })).statusCode).toBe(404);
    // Someone the dashboard is not shared with gets nothing.
    expect((await runSaved('bar', {}, 'outsider')).statusCode).toBe(404);
    // An editor cannot save a widget on a dataset they cannot read: the owner's grant is the owner's, not the saver's.
    const foreign = await as('outsider', 'POST', '/v1/dashboards', { name: 'Mine', latestState: { ...stateOf(datasetId), parameters: [], widgets: [bar(datasetId, { parameterIds: [] })] } });
    expect(foreign.statusCode).toBe(201);
    expect((await as('outsider', 'POST', `/v1/dashboards/${foreign.json().item.id}/widgets/bar/query`, {})).statusCode).toBe(404);
  });

  it('a state of an unknown future version answers 422 and changes nothing', async () => {
    const before = (await as('owner', 'GET', `/v1/dashboards/${dashId}`)).json().item.latestState;
    const res = await as('owner', 'PUT', `/v1/dashboards/${dashId}`, { latestState: { ...stateOf(datasetId), version: DASHBOARD_STATE_VERSION + 1 } });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain('newer studio');
    expect((await as('owner', 'GET', `/v1/dashboards/${dashId}`)).json().item.latestState).toEqual(before);
  });

  it('a version 0 state (widgets without a layout) is upgraded when saved', async () => {
    const { version: _v, layout: _l, ...v0 } = stateOf(datasetId);
    const res = await as('owner', 'POST', '/v1/dashboards', { name: 'Old', latestState: v0 });
    expect(res.statusCode).toBe(201);
    const saved = res.json().item.latestState;
    expect(saved.version).toBe(DASHBOARD_STATE_VERSION);
    expect(saved.layout.map((l: { i: string }) => l.i)).toEqual(['bar', 'kpi', 'table', 'note']);
  });

  it('publishes with a password: anonymous readers need it, then run the widgets with the grant', async () => {
    const pub = await as('owner', 'POST', `/v1/insights/${dashId}/publish/resources`, { uploadOptions: { password: 'open sesame' } });
    expect(pub.statusCode, pub.body).toBe(201);
    expect(pub.json().item.passwordProtected).toBe(true);
    expect(pub.json().item.datasetIds).toEqual([datasetId]);
    const anon = (method: string, url: string, payload?: object, headers: Record<string, string> = {}) => ctx.s.app.inject({ method: method as 'GET', url, payload, headers });
    const closed = await anon('GET', `/v1/insights/${dashId}/published-insight`);
    expect(closed.statusCode).toBe(401);
    expect(closed.json().details).toBe('passwordRequired');
    expect((await anon('POST', `/v1/insights/${dashId}/published-insight/password`, { password: 'wrong' })).statusCode).toBe(403);
    const open = await anon('POST', `/v1/insights/${dashId}/published-insight/password`, { password: 'open sesame' });
    expect(open.statusCode).toBe(200);
    const grant = open.json().grant.token as string;
    expect((await anon('POST', `/v1/insights/${dashId}/published-insight/widgets/bar/query`, {})).statusCode).toBe(401);
    const rows = await anon('POST', `/v1/insights/${dashId}/published-insight/widgets/bar/query`, { parameters: { category: 'Fuel' } }, { 'x-publication-grant': grant });
    expect(rows.json().item.rows).toEqual(await hand("select category, sum(amount) from $T where category = 'Fuel' group by 1"));
    // The page's batch: refused without the grant, the same rows with it.
    const batch = { parameters: { category: 'Fuel' }, widgets: [{ id: 'bar' }, { id: 'kpi' }] };
    expect((await anon('POST', `/v1/insights/${dashId}/published-insight/widgets/query`, batch)).statusCode).toBe(401);
    const lines = linesOf((await anon('POST', `/v1/insights/${dashId}/published-insight/widgets/query`, batch, { 'x-publication-grant': grant })).body);
    expect(lines[0].item.rows).toEqual(rows.json().item.rows);
    expect(lines[1].item.rows).toEqual(await hand("select sum(amount) from $T where category = 'Fuel'"));
    // The info needs no password; the lists name it.
    expect((await anon('GET', `/v1/insights/${dashId}/published-insight?infoOnly=true`)).json().item.passwordProtected).toBe(true);
    expect((await as('owner', 'GET', '/v1/insights/published')).json().items.map((i: { id: string }) => i.id)).toContain(dashId);
    expect((await as('owner', 'GET', `/v1/insights/published/list?insights=${dashId},${otherId}`)).json().items).toHaveLength(1);
    // A viewer cannot publish; the owner unpublishes and readers get 404.
    expect((await as('viewer', 'POST', `/v1/insights/${dashId}/publish/insight`, {})).statusCode).toBe(403);
    expect((await as('owner', 'DELETE', `/v1/insights/${dashId}/unpublish`)).statusCode).toBe(204);
    expect((await anon('GET', `/v1/insights/${dashId}/published-insight?infoOnly=true`)).statusCode).toBe(404);
  });

  it('sends a report: a snapshot readers open without signing in, updated and invited to', async () => {
    const made = await as('owner', 'POST', '/v1/reports/published/resources', { datasets: [datasetId], uploadOptions: { insightId: dashId, title: 'Q1 sales' } });
    expect(made.statusCode, made.body).toBe(201);
    const report = made.json().item;
    expect(report.name).toBe('Q1 sales');
    const got = await ctx.s.app.inject({ method: 'GET', url: `/v1/reports/published/${report.id}` });
    expect(got.statusCode).toBe(200);
    expect(got.json().item.latestState.widgets).toHaveLength(4);
    // Only the dashboard's datasets may be named.
    expect((await as('owner', 'POST', '/v1/reports/published/resources', { datasets: [otherId], uploadOptions: { insightId: dashId } })).statusCode).toBe(422);
    // Update: a password now protects it.
    expect((await as('owner', 'POST', `/v1/reports/published/${report.id}`, { uploadOptions: { password: 'pw' } })).statusCode).toBe(200);
    expect((await ctx.s.app.inject({ method: 'GET', url: `/v1/reports/published/${report.id}` })).statusCode).toBe(401);
    expect((await ctx.s.app.inject({ method: 'GET', url: `/v1/reports/published/${report.id}`, headers: { 'x-publication-password': 'pw' } })).statusCode).toBe(200);
    // Invitations without SMTP answer the links; only someone who may share the dashboard invites.
    const inv = await as('owner', 'POST', `/v1/reports/published/${report.id}/invite`, { emails: ['Reader@Example.com'], description: 'Have a look' });
    expect(inv.json().items).toEqual([{ email: 'reader@example.com', url: expect.stringMatching(new RegExp(`/public/report/${report.id}$`)), sent: false }]);
    expect((await as('viewer', 'POST', `/v1/reports/published/${report.id}/invite`, { emails: ['x@example.com'] })).statusCode).toBe(403);
  });

  it('mails invitations through SMTP_URL when it is set', async () => {
    const mail = await startMailCatcher();
    const received = () => mail.received.map((m) => `${m.to.join(',')}|${m.from}|${m.raw}`);
    const config = ctx.s.services.config as { smtpUrl: string | null; smtpFrom: string | null };
    config.smtpUrl = mail.url;
    config.smtpFrom = 'reports@studio.example';
    try {
      const report = (await as('owner', 'POST', '/v1/reports/published/resources', { uploadOptions: { insightId: dashId, title: 'Mailed' } })).json().item;
      const inv = await as('owner', 'POST', `/v1/reports/published/${report.id}/invite`, { emails: ['a@example.com', 'b@example.com'], description: 'Weekly numbers' });
      expect(inv.statusCode, inv.body).toBe(200);
      expect(inv.json().items.map((i: { sent: boolean }) => i.sent)).toEqual([true, true]);
      expect(received()).toHaveLength(2);
      // Sent by the studio's address, answered to the inviter.
      expect(received()[0]).toMatch(/^a@example\.com\|reports@studio\.example\|/);
      expect(received()[0]).toMatch(/^Reply-To: owner@acme\.test\r?$/m);
      expect(received()[0]).toContain('Weekly numbers');
      // Quoted-printable wraps long lines with a soft break ("=" at the end of a line).
      expect(received()[0]!.replaceAll('=\r\n', '')).toContain(`/public/report/${report.id}`);
    } finally {
      config.smtpUrl = null;
      config.smtpFrom = null;
      await mail.close();
    }
  });

  it('a widget whose dataset was deleted fails alone', async () => {
    const up = await as('owner', 'POST', '/v1/datasets/data?name=Doomed', 'k,v\na,1\n', { 'content-type': 'text/csv' });
    const doomed = up.json().item.id;
    const state = stateOf(datasetId);
    state.widgets.push({ id: 'gone', kind: 'bar', title: '', parameterIds: [], options: { numberFormat: 'number', decimals: 0 }, query: { datasetId: doomed, dimensions: ['k'], measures: [{ fn: 'count' }], columns: [], filters: [], limit: 10 } });
    const dash = (await as('owner', 'POST', '/v1/dashboards', { name: 'Two sources', latestState: state })).json().item;
    expect((await as('owner', 'DELETE', `/v1/datasets/${doomed}`)).statusCode).toBe(204);
    expect((await as('owner', 'POST', `/v1/dashboards/${dash.id}/widgets/gone/query`, {})).statusCode).toBe(404);
    expect((await as('owner', 'POST', `/v1/dashboards/${dash.id}/widgets/bar/query`, {})).statusCode).toBe(200);
    const [gone, fine] = linesOf((await runBatch({ widgets: [{ id: 'gone' }, { id: 'bar' }] }, 'owner', dash.id)).body);
    expect(gone.error).toEqual({ status: 404, message: 'Dataset not found' });
    expect(fine.item.rows.length).toBeGreaterThan(0);
  });
});
