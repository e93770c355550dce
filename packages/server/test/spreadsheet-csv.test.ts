import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_STATE_VERSION, type Widget } from '@studio/schema';
import { STORES, useStudio } from './harness';

/**
 * CSV for people (#45): every CSV download a screen offers (a dataset, a workbook cell's result, a dashboard
 * widget) is exact through the API by default, for programs, and with ?spreadsheet=safe — what the web app's
 * buttons ask for — opens in a spreadsheet without running a formula: text (and a column name) starting with
 * = + - @ gets a leading apostrophe; numbers, negative ones too, stay numbers.
 */
const LINK = '=HYPERLINK("http://127.0.0.1/x","y")';
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
const CSV = ['label,n,"@total"', `${quoted(LINK)},-5,1`, '+cmd,3,2', 'plain,4,3'].join('\n');

const EXACT = ['label,n,@total', `${quoted(LINK)},-5,1`, '+cmd,3,2', 'plain,4,3'];
const SAFE = ["label,n,'@total", `${quoted(`'${LINK}`)},-5,1`, "'+cmd,3,2", 'plain,4,3'];

const table = (datasetId: string): Widget => ({
  id: 'rows',
  kind: 'table',
  title: 'Rows',
  parameterIds: [],
  options: { numberFormat: 'number', decimals: 0 },
  query: { datasetId, dimensions: [], measures: [], columns: ['label', 'n', '@total'], filters: [], limit: 1000 },
});

describe.each(STORES)('CSV downloads, exact for programs and safe for spreadsheets, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  let datasetId: string;
  let dashboardId: string;
  let viewName: string;

  beforeAll(async () => {
    const up = await as('owner', 'POST', '/v1/datasets/data?name=Links', CSV, { 'content-type': 'text/csv' });
    expect(up.statusCode).toBe(201);
    datasetId = up.json().item.id;
    const dash = await as('owner', 'POST', '/v1/dashboards', { name: 'Links', latestState: { version: DASHBOARD_STATE_VERSION, parameters: [], widgets: [table(datasetId)], layout: [] } });
    expect(dash.statusCode).toBe(201);
    dashboardId = dash.json().item.id;
    const row = await ctx.s.services.records.get(datasetId);
    const file = await ctx.s.services.engine.store.localPath((row!.attrs as { storageKey: string }).storageKey);
    viewName = (await ctx.s.services.tempViews.create(ctx.cast.users.owner.id, { sql: `SELECT * FROM read_parquet('${file}') ORDER BY "@total"`, params: [] })).name;
  });

  const routes: [string, (query: string) => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>][] = [
    ['GET /v1/datasets/{id}/data', (q) => as('owner', 'GET', `/v1/datasets/${datasetId}/data${q}`)],
    ['GET /v1/query/views/{name}/data (a workbook result)', (q) => as('owner', 'GET', `/v1/query/views/${viewName}/data${q}`)],
    ['POST /v1/dashboards/{id}/widgets/{widgetId}/query', (q) => as('owner', 'POST', `/v1/dashboards/${dashboardId}/widgets/rows/query?format=csv${q.replace('?', '&')}`, { sort: { by: 'n', desc: false } })],
    ['POST /v1/dashboards/widget-query (a draft widget)', (q) => as('owner', 'POST', `/v1/dashboards/widget-query?format=csv${q.replace('?', '&')}`, { widget: table(datasetId), parameterDefs: [], sort: { by: 'n', desc: false } })],
  ];
  // The dataset and the view keep the file's order; the widgets are sorted by n (-5, 3, 4): the same order.
  it.each(routes)('%s: exact by default (and with spreadsheet=exact), no cell starting like a formula with spreadsheet=safe', async (_route, get) => {
    for (const [q, lines] of [['', EXACT], ['?spreadsheet=exact', EXACT], ['?spreadsheet=safe', SAFE]] as const) {
      const res = await get(q);
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/^text\/csv/);
      expect(res.body.trimEnd().split('\n'), q).toEqual(lines);
    }
  });

  it('refuses another value of spreadsheet with a 422 naming the two', async () => {
    const res = await as('owner', 'GET', `/v1/datasets/${datasetId}/data?spreadsheet=excel`);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain('spreadsheet');
    expect(res.json().message).toMatch(/exact.*safe/);
  });

  it('documents both forms in the OpenAPI description of each route', async () => {
    const doc = (await ctx.s.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, { summary: string; parameters: { name: string }[] }>> };
    for (const [path, method] of [['/v1/datasets/{id}/data', 'get'], ['/v1/query/views/{name}/data', 'get'], ['/v1/dashboards/{id}/widgets/{widgetId}/query', 'post'], ['/v1/dashboards/widget-query', 'post'], ['/v1/insights/{id}/published-insight/widgets/{widgetId}/query', 'post']] as const) {
      const op = doc.paths[path]?.[method];
      expect(op?.summary, path).toContain('?spreadsheet=safe');
      expect(op?.parameters.map((p) => p.name), path).toContain('spreadsheet');
    }
  });
});
