import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tableFromIPC } from 'apache-arrow';
import {
  RedisBacking, ResultCache, TEMPLATE_IDS, defaultParameters, generateSamplePanel, labelsOf, runTemplate,
  type PanelLabels, type SamplePanel,
} from '@studio/analytics';
import { Redis } from 'ioredis';
import { AnalyticsService } from '../src/services/analytics';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/** One tiny panel for every store: generation takes ~2 s, so the suite stays quick. */
let panel: SamplePanel;
let panelRoot: string;
beforeAll(async () => {
  panelRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-analytics-'));
  panel = await generateSamplePanel({ dir: path.join(panelRoot, 'sample'), visits: 4000 });
});
afterAll(async () => {
  if (panelRoot) await fs.rm(panelRoot, { recursive: true, force: true });
});

const PLACES = `place_id,name,chain_id,chain,category_id,category,latitude,longitude,country,dma_id,dma_name
p1,Alpha One,alpha,Alpha Coffee,coffee,Coffee Shop,37.77,-122.41,US,sf,SF market
p2,Alpha Two,alpha,Alpha Coffee,coffee,Coffee Shop,37.78,-122.42,US,sf,SF market
p3,Beta One,beta,Beta Burgers,food,Fast Food,37.76,-122.40,US,sf,SF market
p4,Corner,,,food,Fast Food,37.75,-122.43,US,sf,SF market
`;
const DEVICES = `device_id,age,gender,income,weight
d1,18-24,Female,Under 25k,100
d2,35-44,Male,50k-100k,250
d3,Over 65,Female,Over 100k,80
`;
const VISITS = (() => {
  const rows = ['visit_id,device_id,place_id,visit_start,dwell_minutes'];
  let n = 0;
  for (let m = 1; m <= 6; m++) {
    const mm = String(m).padStart(2, '0');
    rows.push(`v${++n},d1,p1,2025-${mm}-03 08:10:00,12`, `v${++n},d1,p3,2025-${mm}-03 12:30:00,20`);
    rows.push(`v${++n},d2,p2,2025-${mm}-10 09:00:00,15`, `v${++n},d2,p4,2025-${mm}-10 18:00:00,30`);
    if (m % 2) rows.push(`v${++n},d3,p3,2025-${mm}-15 13:00:00,25`, `v${++n},d3,p1,2025-${mm}-15 16:00:00,9`);
  }
  return `${rows.join('\n')}\n`;
})();
/** Expected rows with doubles compared to 1e-6: DuckDB's parallel sums may differ in the last bit between runs. */
const approx = (rows: unknown[]) => JSON.parse(JSON.stringify(rows)).map((r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' && !Number.isInteger(v) ? expect.closeTo(v, 6) : v])));

const ORG_PARAMS = { geographies: ['country:US'], places: ['chain:alpha', 'chain:beta'], period: { periodType: 'MONTHLY', start: '2025-01', end: '2025-06' } };

describe.each(STORES)('analytic sets on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let labels: PanelLabels;
  const auth = (who: keyof typeof cast.tokens) => ({ authorization: cast.tokens[who] });
  /** The audit log of one record, oldest first: [action, actor's email]. */
  const auditOf = async (resourceType: string, id: string) =>
    (await s.services.db.selectFrom('audit_log').select(['action', 'actor_email']).where('resource_type', '=', resourceType).where('resource_id', '=', id).orderBy('id').execute()).map((r) => [r.action, r.actor_email]);
  const query = (who: keyof typeof cast.tokens, templateId: string, parameters: unknown, headers: Record<string, string> = {}, qs = '') =>
    s.app.inject({ method: 'POST', url: `/v1/query/foot-traffic/template/${templateId}${qs}`, payload: { parameters }, headers: { ...auth(who), accept: 'application/json', ...headers } });
  const upload = async (name: string, csv: string, who: keyof typeof cast.tokens = 'owner') => {
    const res = await s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: csv, headers: { ...auth(who), 'content-type': 'text/csv' } });
    expect(res.statusCode).toBe(201);
    return res.json().item.id as string;
  };

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    s.services.analytics.sampleDir = panel.dir;
    labels = await s.services.engine.withConnection((c) => labelsOf(c, panel.tables));
  });
  afterAll(async () => s?.dispose());

  it('lists the sets with labels of the sample, 404 for an unknown group, impersonation for administrators only', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/analytic-sets/foot-traffic', headers: auth('owner') });
    expect(res.statusCode).toBe(200);
    const { item } = res.json();
    expect(item.id).toBe('foot-traffic');
    expect(item.sets.map((t: { id: string }) => t.id)).toEqual([...TEMPLATE_IDS]);
    const geo = item.sets[0].queryParameters.find((q: { id: string }) => q.id === 'geographies');
    expect(geo.availableValues).toEqual(labels.geographies.availableValues);
    expect(geo.defaultValue).toEqual(defaultParameters('indexed-foot-traffic', labels).geographies);
    const pivot = item.sets.find((t: { id: string }) => t.id === 'movement-pivot');
    expect(pivot.templateParameters[0]).toMatchObject({ id: 'movement_pivot_canExport', value: false });
    expect(item.views).toHaveLength(7);
    expect((await s.app.inject({ method: 'GET', url: '/v1/analytic-sets/nope', headers: auth('owner') })).statusCode).toBe(404);
    const imp = `/v1/analytic-sets/foot-traffic?impersonateOrganizationId=${cast.otherOrg.id}`;
    expect((await s.app.inject({ method: 'GET', url: imp, headers: auth('owner') })).statusCode).toBe(403);
    expect((await s.app.inject({ method: 'GET', url: imp, headers: auth('admin') })).statusCode).toBe(200);
  });

  it.each(TEMPLATE_IDS.map((t) => [t]))('answers %s with the figures of runTemplate on the same panel', async (templateId) => {
    const parameters = defaultParameters(templateId, labels);
    const expected = await s.services.engine.withConnection((c) => runTemplate(c, templateId, parameters, panel.tables));
    const res = await query('owner', templateId, parameters);
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual(approx(expected));
  });

  it('streams Arrow IPC and CSV; the Movement Pivot CSV is an export (403 unless allowed)', async () => {
    const parameters = defaultParameters('indexed-foot-traffic', labels);
    const expected = await s.services.engine.withConnection((c) => runTemplate(c, 'indexed-foot-traffic', parameters, panel.tables));
    const arrow = await query('owner', 'indexed-foot-traffic', parameters, { accept: 'application/vnd.apache.arrow.stream' });
    expect(arrow.statusCode, arrow.body.slice(0, 300)).toBe(200);
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.numRows).toBe(expected.length);
    expect(Number(table.get(0)?.toJSON().normalized_visits)).toBeCloseTo(Number(expected[0]!.normalized_visits));
    const csv = await query('owner', 'indexed-foot-traffic', parameters, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\n')).toHaveLength(expected.length + 1);
    const pivot = await query('owner', 'movement-pivot', defaultParameters('movement-pivot', labels), { accept: 'text/csv' });
    expect([pivot.statusCode, pivot.json().message]).toEqual([403, 'Export is not enabled for this analytic set']);
  });

  it('caches JSON answers, bypasses with cache-control: no-cache, forgets on invalidate', async () => {
    const spy = vi.spyOn(s.services.engine, 'withConnection');
    const parameters = { ...defaultParameters('change-in-visits', labels), period: { periodType: 'QUARTERLY', start: '2025-Q1', end: '2025-Q4' } };
    const first = await query('owner', 'change-in-visits', parameters);
    expect(spy).toHaveBeenCalledTimes(1);
    // Same parameters in another key order and wrapped differently: still a hit.
    const reordered = { period: parameters.period, places: parameters.places, geographies: parameters.geographies };
    expect((await query('owner', 'change-in-visits', reordered)).json()).toEqual(first.json());
    expect(spy).toHaveBeenCalledTimes(1);
    await query('owner', 'change-in-visits', parameters, { 'cache-control': 'no-cache' });
    expect(spy).toHaveBeenCalledTimes(2);
    await query('owner', 'change-in-visits', parameters);
    expect(spy).toHaveBeenCalledTimes(2);
    expect((await s.app.inject({ method: 'POST', url: '/v1/invalidate/foot-traffic/default', headers: auth('owner') })).statusCode).toBe(403);
    expect((await s.app.inject({ method: 'POST', url: '/v1/invalidate/foot-traffic/default', headers: auth('admin') })).statusCode).toBe(204);
    await query('owner', 'change-in-visits', parameters);
    expect(spy).toHaveBeenCalledTimes(3);
    // An organization's makers may forget their own organization's results, not another's.
    expect((await s.app.inject({ method: 'POST', url: `/v1/invalidate/foot-traffic/org/${cast.org.id}`, headers: auth('owner') })).statusCode).toBe(204);
    expect((await s.app.inject({ method: 'POST', url: `/v1/invalidate/foot-traffic/org/${cast.otherOrg.id}`, headers: auth('owner') })).statusCode).toBe(403);
    await query('owner', 'change-in-visits', parameters);
    expect(spy).toHaveBeenCalledTimes(4);
    expect((await s.app.inject({ method: 'POST', url: '/v1/invalidate/labels', headers: auth('admin') })).statusCode).toBe(204);
    spy.mockRestore();
  });

  it.each([
    ['8 geographies', 'change-in-visits', { geographies: Array.from({ length: 8 }, (_, i) => `dma:m${i}`) }, 'Change in Visits takes at most 7 geographies (got 8)'],
    ['a category in Cross-Visitation', 'cross-visitation', { places: ['category:coffee'] }, undefined],
    ['a bad period format', 'indexed-foot-traffic', { period: { periodType: 'QUARTERLY', start: '2025-01', end: '2025-03' } }, 'A QUARTERLY period is written YYYY-Q#'],
    ['an empty pivot selection', 'movement-pivot', { geographies: [] }, 'Movement Pivot needs at least one geography'],
    ['a malformed geography', 'audience-age', { geographies: ['berlin'] }, undefined],
  ])('refuses %s with 422 and caches nothing', async (_label, templateId, patch, message) => {
    const spy = vi.spyOn(s.services.engine, 'withConnection');
    const res = await query('owner', templateId, { ...defaultParameters(templateId, labels), ...patch });
    expect(res.statusCode).toBe(422);
    if (message) expect(res.json().message).toBe(message);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('validates only with expectData=false; unknown template 422', async () => {
    const ok = await query('owner', 'audience-age', defaultParameters('audience-age', labels), {}, '?expectData=false');
    expect(ok.statusCode).toBe(204);
    expect((await query('owner', 'nope', defaultParameters('audience-age', labels))).statusCode).toBe(422);
  });

  it('keeps answering an identical request when another client aborts the shared computation', async () => {
    const address = await s.app.listen({ port: 0, host: '127.0.0.1' });
    const parameters = { ...defaultParameters('customer-journey', labels), period: { periodType: 'MONTHLY', start: '2024-03', end: '2025-02' } };
    await s.app.inject({ method: 'POST', url: '/v1/invalidate/foot-traffic/default', headers: auth('admin') });
    const send = (signal?: AbortSignal) => fetch(`${address}/v1/query/foot-traffic/template/customer-journey`, {
      method: 'POST', signal, body: JSON.stringify({ parameters }), headers: { ...auth('owner'), 'content-type': 'application/json', accept: 'application/json' },
    });
    // A remount in the web app: the first request goes away while its computation runs, and the same one
    // is sent again. The computation waits on a gate until the second request has joined it (events, not
    // fixed waits: on a fast machine it used to finish before the abort, on a loaded one after the join).
    const engine = s.services.engine;
    const original = engine.withConnection.bind(engine);
    const joined = vi.spyOn(s.services.analytics.cache, 'run');
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const connections = vi.spyOn(engine, 'withConnection').mockImplementation(((fn: (c: never) => Promise<unknown>) =>
      original(async (c) => {
        if (joined.mock.calls.length > 0) await gate;
        return fn(c as never);
      })) as typeof engine.withConnection);
    let again: Response;
    try {
      const first = new AbortController();
      const gone = send(first.signal).catch((e: Error) => e.name);
      await expect.poll(() => joined.mock.calls.length, { timeout: 15_000 }).toBe(1);
      first.abort();
      expect(await gone).toBe('AbortError');
      const pending = send();
      await expect.poll(() => joined.mock.calls.length, { timeout: 15_000 }).toBe(2);
      openGate();
      again = await pending;
    } finally {
      openGate();
      connections.mockRestore();
      joined.mockRestore();
    }
    expect(again.status).toBe(200);
    const expected = await s.services.engine.withConnection((c) => runTemplate(c, 'customer-journey', parameters, panel.tables));
    expect((await again.json()).items).toEqual(approx(expected));
  });

  it('stops the query when its only client goes away, and caches nothing', async () => {
    const address = await s.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}`);
    const engine = s.services.engine;
    const original = engine.withConnection.bind(engine);
    const outcomes: string[] = [];
    // A busy engine: the connection comes only after the client has gone (the test opens the gate then).
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const spy = vi.spyOn(engine, 'withConnection').mockImplementation(((fn: (c: never) => Promise<unknown>) => original(async (c) => {
      await gate;
      return fn(c as never).then((v) => (outcomes.push('ran'), v), (e: Error) => (outcomes.push(e.message), Promise.reject(e)));
    })) as typeof engine.withConnection);
    const openConnections = () => new Promise<number>((r) => s.app.server.getConnections((_e, n) => r(n)));
    try {
      const parameters = { ...defaultParameters('audience-age', labels), period: { periodType: 'QUARTERLY', start: '2024-Q2', end: '2024-Q3' } };
      const client = new AbortController();
      const res = fetch(`${address}/v1/query/foot-traffic/template/audience-age`, {
        method: 'POST', signal: client.signal, body: JSON.stringify({ parameters }), headers: { ...auth('owner'), 'content-type': 'application/json', accept: 'application/json' },
      }).catch((e: Error) => e.name);
      // Leave once the query has asked for its connection (a fixed wait raced a loaded machine).
      await expect.poll(() => spy.mock.calls.length, { timeout: 15_000 }).toBeGreaterThan(0);
      const during = await openConnections();
      client.abort();
      expect(await res).toBe('AbortError');
      // The server has seen the client leave (its connection closed): now the engine's connection comes.
      await expect.poll(openConnections, { timeout: 15_000 }).toBeLessThan(during);
      openGate();
      await expect.poll(() => outcomes, { timeout: 15_000 }).toEqual(['aborted']);
      spy.mockClear();
      // Nothing was cached: the same query computes afresh.
      expect((await query('owner', 'audience-age', parameters)).statusCode).toBe(200);
      expect(outcomes).toEqual(['aborted', 'ran']);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers the labels of the bound data', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/v1/labels', headers: auth('viewer') });
    expect(res.json().item).toEqual(labels);
  });

  it('binds an organization\'s datasets: checked, readable only, figures of its own data', async () => {
    const lookup = `/v1/bi/analytic-set-configs/foot-traffic/org/${cast.org.id}`;
    const none = await s.app.inject({ method: 'GET', url: lookup, headers: auth('owner') });
    expect([none.statusCode, none.json().message]).toEqual([404, 'The requested config was not found']);
    const sampleFigures = (await query('owner', 'indexed-foot-traffic', ORG_PARAMS)).json().items;

    const datasets = { places: await upload('places', PLACES), devices: await upload('devices', DEVICES), visits: await upload('visits', VISITS) };
    // Visits pointing at a device that is not in the devices dataset: a data error, nothing saved.
    const orphan = await upload('orphan-visits', `${VISITS}v999,d9,p1,2025-02-01 10:00:00,5\n`);
    const bad = await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets: { ...datasets, visits: orphan } } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/^Visits reference unknown devices or places: 1 visits with an unknown device/);
    // A template override that drops a parameter the SQL reads fails the package's setup check.
    const override = await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets, templateOverrides: { 'change-in-visits': { queryParameters: [{ id: 'geographies' }, { id: 'places' }] } } } });
    expect([override.statusCode, override.json().message]).toEqual([422, 'Parameter period is not listed in queryParameters']);
    // Someone in another organization cannot bind datasets they cannot read, nor bind for Acme.
    const outsider = await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('outsider'), payload: { groupId: 'foot-traffic', orgId: cast.otherOrg.id, datasets } });
    expect([outsider.statusCode, outsider.json().message]).toEqual([404, 'Dataset not found']);
    const foreign = await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('outsider'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets } });
    expect(foreign.statusCode).toBe(403);
    // A viewer of the organization may read but not bind.
    expect((await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('colleague'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets } })).statusCode).toBe(403);

    const created = await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets } });
    expect(created.statusCode).toBe(201);
    const config = created.json().item;
    expect(config).toMatchObject({ groupId: 'foot-traffic', orgId: cast.org.id, datasets });
    expect((await s.app.inject({ method: 'GET', url: lookup, headers: auth('colleague') })).json().item.id).toBe(config.id);
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/analytic-set-configs/${config.id}`, headers: auth('owner') })).json().item).toEqual(config);
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/analytic-set-configs/${config.id}`, headers: auth('outsider') })).statusCode).toBe(404);
    expect((await s.app.inject({ method: 'POST', url: '/v1/bi/analytic-set-configs', headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets } })).statusCode).toBe(409);

    const orgFigures = (await query('colleague', 'indexed-foot-traffic', ORG_PARAMS)).json().items;
    expect(orgFigures).not.toEqual(sampleFigures);
    const expected = await s.services.engine.withConnection(async (c) => {
      const { tables } = await s.services.analytics.datasetTables((await s.services.auth.authenticate(cast.tokens.owner))!, datasets, false);
      return runTemplate(c, 'indexed-foot-traffic', ORG_PARAMS, tables);
    });
    expect(orgFigures).toEqual(approx(expected));
    // January, Alpha Coffee in the US: d1 (100) + d2 (250) + d3 (80) = 430, scaled by 30.4375 / 31.
    expect(orgFigures[0]).toMatchObject({ place_taxonomy_value: 'Alpha Coffee', period_value: '2025-01', raw_visits: 3 });
    expect(orgFigures[0].normalized_visits).toBeCloseTo((430 * 30.4375) / 31, 9);
    const sets = (await s.app.inject({ method: 'GET', url: '/v1/analytic-sets/foot-traffic', headers: auth('owner') })).json().item;
    expect(sets.sets[0].queryParameters.find((q: { id: string }) => q.id === 'places').availableValues).toEqual(['chain:alpha', 'chain:beta', 'category:coffee', 'category:food']);
    // Globex still reads the sample.
    expect((await query('outsider', 'indexed-foot-traffic', ORG_PARAMS)).json().items).toEqual(approx(sampleFigures));

    // Export switched on by the config's template parameter.
    const pivotParams = { ...ORG_PARAMS, pivot: { rows: ['place', 'age'], columns: ['period'] } };
    expect((await query('owner', 'movement-pivot', pivotParams, { accept: 'text/csv' })).statusCode).toBe(403);
    const put = await s.app.inject({ method: 'PUT', url: `/v1/bi/analytic-set-configs/${config.id}`, headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, datasets, templateParameters: { movement_pivot_canExport: true } } });
    expect(put.statusCode).toBe(200);
    const exported = await query('owner', 'movement-pivot', pivotParams, { accept: 'text/csv' });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toContain('movement-pivot.csv');
    expect(exported.body.split('\n')[0]).toContain('normalized_visits');

    expect((await s.app.inject({ method: 'DELETE', url: `/v1/bi/analytic-set-configs/${config.id}`, headers: auth('colleague') })).statusCode).toBe(403);
    expect((await s.app.inject({ method: 'DELETE', url: `/v1/bi/analytic-set-configs/${config.id}`, headers: auth('owner') })).statusCode).toBe(204);
    expect((await query('owner', 'indexed-foot-traffic', ORG_PARAMS)).json().items).toEqual(approx(sampleFigures));
  });

  it('reports more than one config for a group and organization as a server error', async () => {
    const bi = s.services.analytics.bi;
    for (let i = 0; i < 2; i++) {
      await bi.db.insertInto('bi_analytic_set_configs').values({ id: randomUUID(), group_id: 'foot-traffic', organization_id: cast.otherOrg.id, datasets: null, template_parameters: '{}', template_overrides: '{}', created_by: null }).execute();
    }
    const res = await s.app.inject({ method: 'GET', url: `/v1/bi/analytic-set-configs/foot-traffic/org/${cast.otherOrg.id}`, headers: auth('outsider') });
    expect([res.statusCode, res.json().message]).toEqual([500, 'Multiple configs found for template group and organization']);
    await bi.db.deleteFrom('bi_analytic_set_configs').where('organization_id', '=', cast.otherOrg.id).execute();
  });

  it('keeps default query parameters per group and per organization', async () => {
    const url = '/v1/bi/query-param-configs/foot-traffic/default';
    expect((await s.app.inject({ method: 'GET', url, headers: auth('owner') })).statusCode).toBe(404);
    expect((await s.app.inject({ method: 'PUT', url, headers: auth('owner'), payload: { parameters: {} } })).statusCode).toBe(403);
    const geo = labels.geographies.availableValues.find((g) => g.startsWith('dma:'))!;
    const def = await s.app.inject({ method: 'PUT', url, headers: auth('admin'), payload: { parameters: { geographies: [geo] } } });
    expect(def.json().item).toMatchObject({ groupId: 'foot-traffic', orgId: null, parameters: { geographies: [geo] } });
    expect((await s.app.inject({ method: 'PUT', url, headers: auth('admin'), payload: { parameters: { geographies: ['nowhere'] } } })).statusCode).toBe(422);
    const period = { periodType: 'QUARTERLY', start: '2024-Q1', end: '2024-Q4' };
    const created = await s.app.inject({ method: 'POST', url: '/v1/bi/query-param-configs', headers: auth('owner'), payload: { groupId: 'foot-traffic', orgId: cast.org.id, parameters: { period } } });
    expect(created.statusCode).toBe(201);
    const id = created.json().item.id;
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/query-param-configs/foot-traffic/org/${cast.org.id}`, headers: auth('colleague') })).json().item.id).toBe(id);
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/query-param-configs/${id}`, headers: auth('outsider') })).statusCode).toBe(404);
    const sets = (await s.app.inject({ method: 'GET', url: '/v1/analytic-sets/foot-traffic', headers: auth('owner') })).json().item.sets;
    const qp = (id: string) => sets[0].queryParameters.find((q: { id: string }) => q.id === id).defaultValue;
    expect([qp('geographies'), qp('period')]).toEqual([[geo], period]);
    const other = (await s.app.inject({ method: 'GET', url: '/v1/analytic-sets/foot-traffic', headers: auth('outsider') })).json().item.sets;
    expect(other[0].queryParameters.find((q: { id: string }) => q.id === 'period').defaultValue).toEqual(defaultParameters('indexed-foot-traffic', labels).period);
    const put = await s.app.inject({ method: 'PUT', url: `/v1/bi/query-param-configs/${id}`, headers: auth('owner'), payload: { parameters: { period: { ...period, end: '2024-Q2' } } } });
    expect(put.json().item.parameters.period.end).toBe('2024-Q2');
    expect((await s.app.inject({ method: 'DELETE', url: `/v1/bi/query-param-configs/${id}`, headers: auth('owner') })).statusCode).toBe(204);
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/query-param-configs/${id}`, headers: auth('owner') })).statusCode).toBe(404);
    await s.app.inject({ method: 'DELETE', url: `/v1/bi/query-param-configs/${def.json().item.id}`, headers: auth('admin') });
    // Each change is in the audit log, with who made it.
    expect(await auditOf('query-param-config', id)).toEqual([
      ['bi.query-param-config.create', 'owner@acme.test'],
      ['bi.query-param-config.update', 'owner@acme.test'],
      ['bi.query-param-config.delete', 'owner@acme.test'],
    ]);
    expect((await auditOf('query-param-config', def.json().item.id)).map(([action]) => action)).toEqual(['bi.query-param-config.default', 'bi.query-param-config.delete']);
  });

  it('saves parameters and shares them with invited e-mails', async () => {
    const parameters = defaultParameters('customer-journey', labels);
    const created = await s.app.inject({ method: 'POST', url: '/v1/bi/shared-parameters', headers: auth('owner'), payload: { groupId: 'foot-traffic', templateId: 'customer-journey', name: 'Journey', parameters } });
    expect(created.statusCode).toBe(201);
    const id = created.json().item.id;
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/shared-parameters/${id}`, headers: auth('viewer') })).statusCode).toBe(404);
    expect((await s.app.inject({ method: 'POST', url: `/v1/bi/shared-parameters/${id}/invite`, headers: auth('colleague'), payload: { emails: ['viewer@globex.test'] } })).statusCode).toBe(403);
    expect((await s.app.inject({ method: 'POST', url: `/v1/bi/shared-parameters/${id}/invite`, headers: auth('owner'), payload: { emails: ['not an email'] } })).statusCode).toBe(422);
    const invited = await s.app.inject({ method: 'POST', url: `/v1/bi/shared-parameters/${id}/invite`, headers: auth('owner'), payload: { emails: ['Viewer@globex.test'], description: 'Have a look' } });
    expect(invited.json().item.invitations).toMatchObject([{ email: 'viewer@globex.test', description: 'Have a look' }]);
    const read = await s.app.inject({ method: 'GET', url: `/v1/bi/shared-parameters/${id}`, headers: auth('viewer') });
    expect(read.json().item).toMatchObject({ templateId: 'customer-journey', name: 'Journey', parameters: { places: parameters.places } });
    expect(read.json().item.invitations).toBeUndefined();
    expect((await s.app.inject({ method: 'GET', url: `/v1/bi/shared-parameters/${id}`, headers: auth('outsider') })).statusCode).toBe(404);
    expect((await s.app.inject({ method: 'POST', url: '/v1/bi/shared-parameters', headers: auth('owner'), payload: { groupId: 'foot-traffic', templateId: 'customer-journey', parameters: { geographies: ['x'] } } })).statusCode).toBe(422);
    expect(await auditOf('shared-parameters', id)).toEqual([['bi.shared-parameters.create', 'owner@acme.test'], ['bi.shared-parameters.invite', 'owner@acme.test']]);
  });

  it.runIf(kind === STORES[0])("keeps its Redis entries under the installation's STUDIO_REDIS_PREFIX", async () => {
    const prefix = `studio-test-${randomUUID()}:`;
    const previous = s.services.analytics.cache;
    s.services.analytics.cache = AnalyticsService.cacheFor({ redisUrl: 'redis://127.0.0.1:6379', redisPrefix: prefix });
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      expect((await query('owner', 'trends-dwell', defaultParameters('trends-dwell', labels))).statusCode).toBe(200);
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((k) => k.startsWith(`${prefix}analytics:`))).toBe(true);
      await redis.del(...keys);
    } finally {
      await s.services.analytics.cache.close();
      s.services.analytics.cache = previous;
      redis.disconnect();
    }
  });

  it.runIf(kind === STORES[0])('shares cached results through Redis when configured', async () => {
    const prefix = `studio:analytics:test:${randomUUID()}:`;
    const previous = s.services.analytics.cache;
    const redis = new ResultCache({ backing: new RedisBacking(prefix) });
    s.services.analytics.cache = redis;
    try {
      const spy = vi.spyOn(s.services.engine, 'withConnection');
      const parameters = defaultParameters('trends-dwell', labels);
      const a = await query('owner', 'trends-dwell', parameters);
      // A second node: its own ResultCache on the same Redis sees the entry.
      s.services.analytics.cache = new ResultCache({ backing: new RedisBacking(prefix) });
      const b = await query('owner', 'trends-dwell', parameters);
      expect(b.json()).toEqual(a.json());
      expect(spy).toHaveBeenCalledTimes(1);
      await s.app.inject({ method: 'POST', url: `/v1/invalidate/foot-traffic/org/${cast.org.id}`, headers: auth('admin') });
      await query('owner', 'trends-dwell', parameters);
      expect(spy).toHaveBeenCalledTimes(2);
      spy.mockRestore();
      await s.services.analytics.cache.close();
    } finally {
      await redis.close();
      s.services.analytics.cache = previous;
    }
  });
});
