import { beforeAll, describe, expect, it } from 'vitest';
import { defaultParameters, labelsOf, runTemplate, type PanelLabels } from '@studio/analytics';
import { DASHBOARD_STATE_VERSION, type DashboardState, type Widget } from '@studio/schema';
import { periodOfRange } from '../src/services/dashboards/analytic-widgets';
import { STORES, useSamplePanel, useStudio } from './harness';

/**
 * Dashboard widgets answered by the analytic sets' templates: their numbers must be the view's own
 * (runTemplate on the same panel, the reference the analytic-set tests hold to place-visits.md), with
 * dashboard parameters and cross-filters applied as a reader expects.
 */
const samplePanel = useSamplePanel();

const OPTIONS = { numberFormat: 'number', decimals: 0 } as const;
const analyticWidget = (templateId: string, parameters: Record<string, unknown>, cols: { x?: string; series?: string; y?: string }, extra: Partial<Widget> = {}): Widget => ({
  id: templateId,
  kind: 'bar',
  title: templateId,
  parameterIds: [],
  options: OPTIONS,
  analytic: { groupId: 'foot-traffic', templateId, parameters, ...cols },
  ...extra,
});

describe('analytic periods from a dashboard period', () => {
  it.each([
    ['MONTHLY', { from: '2025-02-10', to: '2025-05-31' }, { start: '2025-02', end: '2025-05' }],
    ['QUARTERLY', { from: '2025-02-10', to: '2025-10-01' }, { start: '2025-Q1', end: '2025-Q4' }],
    ['DAILY', { from: '2025-02-10', to: '2025-02-20' }, { start: '2025-02-10', end: '2025-02-20' }],
  ] as const)('%s', (type, range, expected) => {
    expect(periodOfRange(type, range)).toEqual({ periodType: type, ...expected });
  });
});

describe.each(STORES)('analytic-set widgets on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  let labels: PanelLabels;
  const reference = (templateId: string, parameters: unknown) => ctx.s.services.engine.withConnection((c) => runTemplate(c, templateId, parameters, samplePanel().tables));
  const draft = (widget: Widget, body: Record<string, unknown> = {}, parameterDefs: DashboardState['parameters'] = []) =>
    as('owner', 'POST', '/v1/dashboards/widget-query', { widget, parameterDefs, ...body });
  const close = (rows: unknown[][]) => rows.map((r) => r.map((v) => (typeof v === 'number' && !Number.isInteger(v) ? expect.closeTo(v, 6) : v)));

  beforeAll(async () => {
    ctx.s.services.analytics.sampleDir = samplePanel().dir;
    labels = await ctx.s.services.engine.withConnection((c) => labelsOf(c, samplePanel().tables));
  });

  it.each([
    ['change-in-visits', { x: 'geography_value', series: 'place_taxonomy_value', y: 'percent_change' }],
    ['audience-age', { x: 'age', y: 'fair_share_index' }],
    ['trends-dwell', { x: 'periodEpochMs', series: 'placeTaxonomyValue', y: 'medianDwellTimeMinutes' }],
    ['cross-visitation', { x: 'secondary_place_taxonomy_value', series: 'place_taxonomy_value', y: 'overlap' }],
  ])('%s: the widget draws the template rows of the view, cut to its columns', async (templateId, cols) => {
    const parameters = defaultParameters(templateId, labels) as Record<string, unknown>;
    const expected = await reference(templateId, parameters);
    expect(expected.length).toBeGreaterThan(0);
    const res = await draft(analyticWidget(templateId, parameters, cols));
    expect(res.statusCode, res.body).toBe(200);
    const names = [cols.x, ...('series' in cols ? [cols.series] : []), cols.y];
    expect(res.json().item.columns.map((c: { name: string }) => c.name)).toEqual(names);
    expect(res.json().item.rows).toEqual(close(expected.map((r) => names.map((n) => r[n!] ?? null))));
  });

  it('a table without chosen columns shows every column, 100 rows a page, sorted on request', async () => {
    const parameters = defaultParameters('movement-pivot', labels) as Record<string, unknown>;
    const expected = await reference('movement-pivot', parameters);
    const table = analyticWidget('movement-pivot', parameters, {}, { kind: 'table' });
    const res = await draft(table, { sort: { by: 'raw_visits', desc: true } });
    expect(res.statusCode, res.body).toBe(200);
    const item = res.json().item;
    expect(item.total).toBe(expected.length);
    expect(item.columns.map((c: { name: string }) => c.name)).toEqual(Object.keys(expected[0]!));
    expect(item.rows.length).toBe(Math.min(100, expected.length));
    const most = Math.max(...expected.map((r) => Number(r.raw_visits)));
    expect(item.rows[0][item.columns.findIndex((c: { name: string }) => c.name === 'raw_visits')]).toBe(most);
  });

  it('a bound period parameter runs the template over that period; a click on another widget filters the rows', async () => {
    const parameters = defaultParameters('change-in-visits', labels) as Record<string, unknown>;
    const widget = analyticWidget('change-in-visits', parameters, { x: 'geography_value', series: 'place_taxonomy_value', y: 'percent_change' }, { parameterIds: ['period'] });
    const defs: DashboardState['parameters'] = [{ id: 'period', label: 'Period', type: 'RANGE_PERIOD', column: 'period', source: { kind: 'STATIC', values: [] } }];
    const res = await draft(widget, { parameters: { period: '2025-03-01..2025-05-31' } }, defs);
    expect(res.statusCode, res.body).toBe(200);
    const expected = await reference('change-in-visits', { ...parameters, period: { periodType: (parameters.period as { periodType: string }).periodType, start: '2025-03', end: '2025-05' } });
    expect(res.json().item.rows).toEqual(close(expected.map((r) => [r.geography_value, r.place_taxonomy_value, r.percent_change])));

    const place = expected[0]!.place_taxonomy_value as string;
    const filtered = await draft(widget, { parameters: { period: '2025-03-01..2025-05-31' }, crossFilters: [{ widgetId: 'other', column: 'place_taxonomy_value', value: place }] }, defs);
    expect(filtered.json().item.rows).toEqual(close(expected.filter((r) => r.place_taxonomy_value === place).map((r) => [r.geography_value, r.place_taxonomy_value, r.percent_change])));
    // Its own click does not filter the widget that was clicked.
    const own = await draft(widget, { parameters: { period: '2025-03-01..2025-05-31' }, crossFilters: [{ widgetId: widget.id, column: 'place_taxonomy_value', value: place }] }, defs);
    expect(own.json().item.rows).toHaveLength(expected.length);
  });

  it('bad input answers 422 and names what is wrong', async () => {
    const parameters = defaultParameters('change-in-visits', labels) as Record<string, unknown>;
    const w = analyticWidget('change-in-visits', parameters, { x: 'geography_value', y: 'percent_change' });
    const unknown = await draft({ ...w, analytic: { ...w.analytic!, templateId: 'nope' } });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().message).toMatch(/Unknown template nope/);
    const column = await draft({ ...w, analytic: { ...w.analytic!, y: 'no_such_column' } });
    expect(column.statusCode).toBe(422);
    expect(column.json().message).toMatch(/no column no_such_column/);
    const defs: DashboardState['parameters'] = [{ id: 'store', label: '', type: 'TEXT', column: 'store', source: { kind: 'STATIC', values: [] } }];
    const unbindable = await draft({ ...w, parameterIds: ['store'] }, { parameters: { store: 'A' } }, defs);
    expect(unbindable.statusCode).toBe(422);
    expect(unbindable.json().message).toMatch(/Parameter store filters store/);
    const period = await draft({ ...w, analytic: { ...w.analytic!, parameters: { ...parameters, period: { periodType: 'MONTHLY', start: '2025-13', end: '2025-01' } } } });
    expect(period.statusCode).toBe(422);
    const both = await draft({ ...w, query: { datasetId: '00000000-0000-4000-8000-000000000000', dimensions: [], measures: [], columns: ['a'], filters: [], limit: 10 } });
    expect(both.statusCode).toBe(422);
  });

  it('a saved dashboard of analytic widgets answers its viewers under the owner\'s grant, and exports CSV', async () => {
    const parameters = defaultParameters('audience-gender', labels) as Record<string, unknown>;
    const state: DashboardState = {
      version: DASHBOARD_STATE_VERSION,
      widgets: [analyticWidget('audience-gender', parameters, { x: 'gender', y: 'norm_visit_share' }, { id: 'gender' })],
      parameters: [],
      layout: [],
      analyticSet: { groupId: 'foot-traffic', viewId: 'audience-insight' },
    };
    const dash = await as('owner', 'POST', '/v1/dashboards', { name: 'Audience', latestState: state });
    expect(dash.statusCode, dash.body).toBe(201);
    const id = dash.json().item.id;
    const expected = await reference('audience-gender', parameters);
    expect((await as('viewer', 'POST', `/v1/dashboards/${id}/widgets/gender/query`, {})).statusCode).toBe(404);
    const shared = await as('owner', 'POST', `/v1/dashboards/${id}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }] });
    expect(shared.statusCode, shared.body).toBeLessThan(300);
    const read = await as('viewer', 'POST', `/v1/dashboards/${id}/widgets/gender/query`, {});
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().item.rows).toEqual(close(expected.map((r) => [r.gender, r.norm_visit_share])));
    const csv = await as('viewer', 'POST', `/v1/dashboards/${id}/widgets/gender/query?format=csv`, {});
    expect(csv.statusCode, csv.body).toBe(200);
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('gender,norm_visit_share');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(expected.map((r) => r.gender));
  });
});
