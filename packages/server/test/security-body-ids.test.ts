import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORES, seedCast, startStudio, type Cast, type TestStudio } from './harness';
import { idFieldsOf } from './body-ids';

/**
 * Ids in request bodies follow the rule of ids in paths (#11): an attacker with a maker account in a
 * second organization (the cast's `outsider`, in Globex) names the first organization's resources
 * and users (the `owner`, in Acme) in the bodies of every call that takes ids. Each such call answers
 * 404 and writes nothing: the catalog's version (moved by every committed write, docs/architecture.md)
 * stays where it was.
 */

const CSV = 'name,lat,lng\nsecret place,37.7955,-122.3937\n';
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 } } };
const PG = { type: 'postgres', host: 'warehouse.invalid', port: 5432, database: 'dw', user: 'analyst' };

interface Fixtures {
  victim: { dataset: string; map: string; insight: string; workbook: string; connection: string; template: string; userId: string; orgId: string; apiKey: string };
  mine: { dataset: string; map: string; insight: string; workbook: string; dashboard: string; connection: string; bookmark: string; template: string; project: string; orgId: string };
}

type Request = { method: string; url: string; body: unknown };
/** One body id of one route, named as `idFieldsOf` names it, and the attacker's request that names a foreign id there. */
type Case = [route: string, field: string, request: (f: Fixtures) => Request];

const RECORDS = [['maps', 'map'], ['insights', 'insight'], ['workbooks', 'workbook'], ['dashboards', 'dashboard']] as const;
const mineOf = (f: Fixtures, k: (typeof RECORDS)[number][1]) => f.mine[k];

const CASES: Case[] = [
  ...RECORDS.flatMap(([collection, k]): Case[] => [
    [`POST /v1/${collection}`, 'datasets[]', (f) => ({ method: 'POST', url: `/v1/${collection}`, body: { name: 'x', latestState: STATE, datasets: [f.victim.dataset] } })],
    [`PUT /v1/${collection}/{id}`, 'datasets[]', (f) => ({ method: 'PUT', url: `/v1/${collection}/${mineOf(f, k)}`, body: { datasets: [f.mine.dataset, f.victim.dataset] } })],
    [`POST /v1/${collection}/{id}/share`, 'users[].userId', (f) => ({ method: 'POST', url: `/v1/${collection}/${mineOf(f, k)}/share`, body: { users: [{ userId: f.victim.userId, role: 'editor' }] } })],
    [`POST /v1/${collection}/{id}/share`, 'organizations[].organizationId', (f) => ({ method: 'POST', url: `/v1/${collection}/${mineOf(f, k)}/share`, body: { organizations: [{ organizationId: f.victim.orgId, role: 'viewer' }] } })],
  ]),
  ['POST /v1/datasets', 'dataConnectionId', (f) => ({ method: 'POST', url: '/v1/datasets', body: { name: 'x', type: 'externally-hosted', dataConnectionId: f.victim.connection } })],
  ['POST /v1/datasets/query', 'connectionId', (f) => ({ method: 'POST', url: '/v1/datasets/query', body: { name: 'x', query: 'select 1', connectionId: f.victim.connection } })],
  ['POST /v1/datasets/{id}/workbench', 'connectionId', (f) => ({ method: 'POST', url: `/v1/datasets/${f.mine.dataset}/workbench`, body: { query: 'select 1', connectionId: f.victim.connection } })],
  ['POST /v1/datasets/hextile', 'source', (f) => ({ method: 'POST', url: '/v1/datasets/hextile', body: { name: 'x', source: f.victim.dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 6, outputColumns: [{ sourceColumn: 'name', targetColumn: 'n', aggMethod: 'count' }] } })],
  ['POST /v1/datasets/vectortile', 'datasetId', (f) => ({ method: 'POST', url: '/v1/datasets/vectortile', body: { name: 'x', datasetId: f.victim.dataset } })],
  ['POST /v1/datasets/hextile', 'target', (f) => ({ method: 'POST', url: '/v1/datasets/hextile', body: { source: f.mine.dataset, target: f.victim.dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 6, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] } })],
  ['POST /sdk/v1/datasets/hextile', 'source', (f) => ({ method: 'POST', url: '/sdk/v1/datasets/hextile', body: { source: f.victim.dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 6 } })],
  ['POST /sdk/v1/datasets/hextile', 'target', (f) => ({ method: 'POST', url: '/sdk/v1/datasets/hextile', body: { source: f.mine.dataset, target: f.victim.dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 6 } })],
  ['POST /sdk/v1/datasets/vectortile', 'source', (f) => ({ method: 'POST', url: '/sdk/v1/datasets/vectortile', body: { source: f.victim.dataset } })],
  ['POST /sdk/v1/datasets/vectortile', 'target', (f) => ({ method: 'POST', url: '/sdk/v1/datasets/vectortile', body: { source: f.mine.dataset, target: f.victim.dataset } })],
  ['POST /v1/datasets/vectortile', 'target', (f) => ({ method: 'POST', url: '/v1/datasets/vectortile', body: { datasetId: f.mine.dataset, target: f.victim.dataset } })],
  ['POST /v1/permissions', 'resourceId', (f) => ({ method: 'POST', url: '/v1/permissions', body: { resourceType: 'dataset', resourceId: f.victim.dataset, role: 'viewer', email: 'me@globex.test' } })],
  ['POST /v1/permissions', 'userId', (f) => ({ method: 'POST', url: '/v1/permissions', body: { resourceType: 'map', resourceId: f.mine.map, role: 'viewer', userId: f.victim.userId } })],
  ['POST /v1/permissions', 'organizationId', (f) => ({ method: 'POST', url: '/v1/permissions', body: { resourceType: 'map', resourceId: f.mine.map, role: 'viewer', organizationId: f.victim.orgId } })],
  ['POST /v1/permissions/bulk', 'items[].resourceId', (f) => ({ method: 'POST', url: '/v1/permissions/bulk', body: { items: [{ resourceType: 'map', resourceId: f.mine.map, role: 'viewer', email: 'a@globex.test' }, { resourceType: 'dataset', resourceId: f.victim.dataset, role: 'viewer', email: 'me@globex.test' }] } })],
  ['POST /v1/permissions/bulk', 'items[].userId', (f) => ({ method: 'POST', url: '/v1/permissions/bulk', body: { items: [{ resourceType: 'map', resourceId: f.mine.map, role: 'viewer', email: 'a@globex.test' }, { resourceType: 'map', resourceId: f.mine.map, role: 'viewer', userId: f.victim.userId }] } })],
  ['POST /v1/permissions/bulk', 'items[].organizationId', (f) => ({ method: 'POST', url: '/v1/permissions/bulk', body: { items: [{ resourceType: 'map', resourceId: f.mine.map, role: 'viewer', organizationId: f.victim.orgId }] } })],
  ['PUT /v1/locks/{type}/{id}/owner', 'ownerId', (f) => ({ method: 'PUT', url: `/v1/locks/map/${f.mine.map}/owner`, body: { ownerId: f.victim.userId } })],
  ['POST /v1/tags', 'resourceId', (f) => ({ method: 'POST', url: '/v1/tags', body: { name: 'spy', resourceType: 'map', resourceId: f.victim.map } })],
  ['POST /v1/data-connections', 'parentId', (f) => ({ method: 'POST', url: '/v1/data-connections', body: { ...PG, name: 'child', parentId: f.victim.connection } })],
  ['PUT /v1/data-connections/{id}', 'parentId', (f) => ({ method: 'PUT', url: `/v1/data-connections/${f.mine.connection}`, body: { ...PG, name: 'mine', parentId: f.victim.connection } })],
  ['POST /v1/data-queries/bookmarks', 'connectionId', (f) => ({ method: 'POST', url: '/v1/data-queries/bookmarks', body: { name: 'b', query: 'select 1', connectionId: f.victim.connection } })],
  ['PUT /v1/data-queries/bookmarks/{id}', 'connectionId', (f) => ({ method: 'PUT', url: `/v1/data-queries/bookmarks/${f.mine.bookmark}`, body: { connectionId: f.victim.connection } })],
  ['POST /v1/data-queries/templates', 'connectionId', (f) => ({ method: 'POST', url: '/v1/data-queries/templates', body: { name: 't', query: 'select 1', connectionId: f.victim.connection } })],
  ['PUT /v1/data-queries/templates/{id}', 'connectionId', (f) => ({ method: 'PUT', url: `/v1/data-queries/templates/${f.mine.template}`, body: { connectionId: f.victim.connection } })],
  ['POST /v1/insight-states', 'recordId', (f) => ({ method: 'POST', url: '/v1/insight-states', body: { name: 's', recordId: f.victim.insight, state: {} } })],
  ['POST /v1/studiostates', 'recordId', (f) => ({ method: 'POST', url: '/v1/studiostates', body: { name: 's', recordId: f.victim.map, state: {} } })],
  ['POST /v1/workbook-states', 'recordId', (f) => ({ method: 'POST', url: '/v1/workbook-states', body: { name: 's', recordId: f.victim.workbook, state: {} } })],
  ['POST /v1/bi/analytic-set-configs', 'orgId', (f) => ({ method: 'POST', url: '/v1/bi/analytic-set-configs', body: { groupId: 'place-visits', orgId: f.victim.orgId } })],
  ['POST /v1/bi/analytic-set-configs', 'datasets.places', (f) => ({ method: 'POST', url: '/v1/bi/analytic-set-configs', body: { groupId: 'place-visits', orgId: f.mine.orgId, datasets: { places: f.victim.dataset, devices: f.mine.dataset, visits: f.mine.dataset } } })],
  ['POST /v1/bi/query-param-configs', 'orgId', (f) => ({ method: 'POST', url: '/v1/bi/query-param-configs', body: { groupId: 'place-visits', orgId: f.victim.orgId, parameters: {} } })],
  ...(['/v1/data-queries', '/v1/data-queries/json'] as const).flatMap((url): Case[] => [
    [`POST ${url}`, 'connectionId', (f) => ({ method: 'POST', url, body: { query: 'select 1', connectionId: f.victim.connection } })],
    [`POST ${url}`, 'queryTemplateId', (f) => ({ method: 'POST', url, body: { queryTemplateId: f.victim.template } })],
    [`POST ${url}`, 'datasetId', (f) => ({ method: 'POST', url, body: { queryTemplateId: f.mine.template, datasetId: f.victim.dataset } })],
    [`POST ${url}`, 'mapId', (f) => ({ method: 'POST', url, body: { query: 'select 1', mapId: f.victim.map } })],
    [`POST ${url}`, 'insightId', (f) => ({ method: 'POST', url, body: { query: 'select 1', insightId: f.victim.insight } })],
    [`POST ${url}`, 'workbookId', (f) => ({ method: 'POST', url, body: { query: 'select 1', workbookId: f.victim.workbook } })],
  ]),
  ...(['/v1/data-queries/templates/{id}', '/v1/data-queries/templates/{templateId}/executions'] as const).flatMap((route): Case[] => {
    const url = (f: Fixtures) => route.replace(/\{\w+\}/, f.mine.template);
    return [
      [`POST ${route}`, 'datasetId', (f) => ({ method: 'POST', url: url(f), body: { datasetId: f.victim.dataset } })],
      [`POST ${route}`, 'mapId', (f) => ({ method: 'POST', url: url(f), body: { mapId: f.victim.map } })],
      [`POST ${route}`, 'insightId', (f) => ({ method: 'POST', url: url(f), body: { insightId: f.victim.insight } })],
      [`POST ${route}`, 'workbookId', (f) => ({ method: 'POST', url: url(f), body: { workbookId: f.victim.workbook } })],
    ];
  }),
  ['POST /v1/test-connection', 'connectionId', (f) => ({ method: 'POST', url: '/v1/test-connection', body: { connectionId: f.victim.connection } })],
  ['PUT /v1/data-queries/vector-tiling', 'connectionId', (f) => ({ method: 'PUT', url: '/v1/data-queries/vector-tiling', body: { name: 'x', query: 'select 1', connectionId: f.victim.connection } })],
  ['PUT /v1/api-key', 'id', (f) => ({ method: 'PUT', url: '/v1/api-key', body: { id: f.victim.apiKey, name: 'hijacked' } })],
  ['DELETE /v1/api-key', 'id', (f) => ({ method: 'DELETE', url: '/v1/api-key', body: { id: f.victim.apiKey } })],
  // The Data SDK's adapter (routes/sdk): the same rule through its own bodies.
  ['POST /sdk/v1/maps', 'datasets[]', (f) => ({ method: 'POST', url: '/sdk/v1/maps', body: { name: 'x', latestState: { data: STATE }, datasets: [f.victim.dataset] } })],
  ['PUT /sdk/v1/maps/{id}', 'datasets[]', (f) => ({ method: 'PUT', url: `/sdk/v1/maps/${f.mine.map}`, body: { datasets: [f.mine.dataset, f.victim.dataset] } })],
];

/** Body ids not checked by a case above, each with the reason it cannot reach another organization. */
const EXEMPT: Record<string, string> = {
  'PUT /v1/users/screening-status updates[].userId': 'administrators only: they see every organization',
  'POST /v1/maps/published/featured mapId': 'administrators only',
  ...Object.fromEntries(
    ['datasets', ...RECORDS.map(([c]) => c)].map((c) => [`PUT /v1/${c}/{id} ownerId`, 'changing an owner needs an administrator in admin mode, who sees every user (403 for anyone else)']),
  ),
  'POST /v1/organizations/{id}/link userIds[]': 'administrators only',
  'POST /v1/users/admin userId': 'administrators only',
  'POST /v1/admin/merge-accounts primaryId': 'administrators only',
  'POST /v1/admin/merge-accounts secondaryIds[]': 'administrators only',
  'POST /v1/admin/pipelines/provision-account organizationId': 'administrators only',
  'POST /v1/admin/legal/{id} organizationId': 'administrators only: they publish for any organization',
  'PUT /v1/bi/analytic-set-configs/{id} orgId': 'the config in the path is guarded first; the same checkConfig as POST (case above) runs on the body',
  'PUT /v1/bi/analytic-set-configs/{id} datasets.places': 'the same checkConfig as POST',
  'PUT /v1/bi/analytic-set-configs/{id} datasets.devices': 'the same checkConfig as POST',
  'PUT /v1/bi/analytic-set-configs/{id} datasets.visits': 'the same checkConfig as POST',
  'POST /v1/bi/analytic-set-configs datasets.devices': 'the same guard as datasets.places, one loop over the three roles',
  'POST /v1/bi/analytic-set-configs datasets.visits': 'the same guard as datasets.places, one loop over the three roles',
  'POST /v1/insights/{id}/publish/resources uploadOptions.insightId': 'must equal the guarded insight of the path (422 otherwise; dashboards.test.ts)',
  'POST /v1/insights/{id}/publish/resources uploadOptions.mapId': 'not read when publishing an insight',
  'POST /v1/maps/{id}/publish/resources uploadOptions.mapId': 'must equal the guarded map of the path (422 otherwise; publishing-rules.test.ts)',
  'POST /v1/maps/{id}/publish/resources uploadOptions.insightId': 'refused with 422 when present: a map publication names no insight (publishing-rules.test.ts)',
  'POST /v1/reports/published/resources datasets[]': 'must be datasets the guarded dashboard reads (422 otherwise; dashboards.test.ts): never read under the caller',
  'POST /v1/reports/published/resources uploadOptions.insightId': 'guarded for share before anything (dashboards.test.ts: a viewer gets 403)',
  'POST /v1/reports/published/resources uploadOptions.mapId': 'not read when sending a report',
  'POST /v1/reports/published/{id} datasets[]': "must be datasets of the report's guarded dashboard (422 otherwise)",
  'POST /v1/reports/published/{id} uploadOptions.insightId': "must equal the report's own dashboard (422 otherwise)",
  'POST /v1/reports/published/{id} uploadOptions.mapId': 'not read when updating a report',
  'POST /v1/dashboards/widget-query widget.query.datasetId': "guarded for read under the caller by the pipeline compiler (dashboards.test.ts: 404 for a reader of the dashboard only)",
  'POST /v1/dashboards/widget-query widget.mapId': 'never read by the server: the browser opens /preview/{mapId}, guarded there',
  'POST /v1/dashboards/widget-query parameterDefs[].source.datasetId': 'parameter definitions only filter the widget; their datasets are not read here',
  'POST /v1/dashboards/parameter-values parameter.source.datasetId': 'guarded for read under the caller by the pipeline compiler (dashboards.test.ts: 404)',
  'POST /v1/test-connection parentId': 'an unsaved connection is tested alone: its parent is never read',
  'POST /sdk/v1/datasets/vectortile datasetId': "the SDK's source (case above) under its /v1 name: the body's validator reads it as POST /v1/datasets/vectortile",
  'POST /sdk/v1/maps latestState.id': "never read: a map's state id is the map's own (routes/sdk/sdk-wire.ts)",
  'PUT /sdk/v1/maps/{id} latestState.id': "never read: a map's state id is the map's own (routes/sdk/sdk-wire.ts)",
};

describe('body ids: coverage', () => {
  it('every id field of every request body has a case or a written reason', async () => {
    const { allRoutes } = await import('../src/routes');
    const found = allRoutes.flatMap((r) => idFieldsOf(r.body).map((field) => `${r.method} ${r.url} ${field}`));
    const covered = new Set([...CASES.map(([route, field]) => `${route} ${field}`), ...Object.keys(EXEMPT)]);
    expect(found.filter((k) => !covered.has(k))).toEqual([]);
    // And no stale entries: each case names a field that exists.
    expect([...covered].filter((k) => !found.includes(k))).toEqual([]);
  });
});

describe.each(STORES)('ids in bodies on %s', (kind) => {
  let s: TestStudio;
  let cast: Cast;
  let f: Fixtures;
  const as = async (who: keyof Cast['tokens'] | 'anonymous', method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...(who === 'anonymous' ? {} : { authorization: cast.tokens[who] }), ...headers } });
  const created = async (who: keyof Cast['tokens'], url: string, body: unknown): Promise<string> => {
    const res = await as(who, 'POST', url, body);
    if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.json().item.id;
  };
  const upload = async (who: keyof Cast['tokens']): Promise<string> => {
    const res = await as(who, 'POST', '/v1/datasets/data?name=places', CSV, { 'content-type': 'text/csv' });
    expect(res.statusCode).toBe(201);
    return res.json().item.id;
  };
  const catalogVersion = async () => Number((await sql<{ version: string | number }>`select version from catalog_version`.execute(s.services.db)).rows[0]!.version);

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const victimDataset = await upload('owner');
    const mineDataset = await upload('outsider');
    const key = await as('owner', 'POST', '/v1/api-key', { name: 'ci' });
    f = {
      victim: {
        dataset: victimDataset,
        map: await created('owner', '/v1/maps', { name: 'secret map', latestState: STATE, datasets: [victimDataset] }),
        insight: await created('owner', '/v1/insights', { name: 'secret insight' }),
        workbook: await created('owner', '/v1/workbooks', { name: 'secret workbook' }),
        connection: await created('owner', '/v1/data-connections', { ...PG, name: 'warehouse' }),
        template: await created('owner', '/v1/data-queries/templates', { name: 'secret template', query: 'select 1' }),
        userId: cast.users.owner.id,
        orgId: cast.org.id,
        apiKey: key.json().item.id,
      },
      mine: {
        dataset: mineDataset,
        map: await created('outsider', '/v1/maps', { name: 'my map', latestState: STATE, datasets: [mineDataset] }),
        insight: await created('outsider', '/v1/insights', { name: 'my insight' }),
        workbook: await created('outsider', '/v1/workbooks', { name: 'my workbook' }),
        dashboard: await created('outsider', '/v1/dashboards', { name: 'my dashboard' }),
        connection: await created('outsider', '/v1/data-connections', { ...PG, name: 'mine' }),
        bookmark: await created('outsider', '/v1/data-queries/bookmarks', { name: 'mine', query: 'select 1' }),
        template: await created('outsider', '/v1/data-queries/templates', { name: 'mine', query: 'select 1' }),
        project: await created('outsider', '/v1/projects', { name: 'mine' }),
        orgId: cast.otherOrg.id,
      },
    };
  });
  afterAll(async () => s?.dispose());

  it.each(CASES)('%s with a foreign %s answers 404 and writes nothing', async (_route, _field, request) => {
    const { method, url, body } = request(f);
    const before = await catalogVersion();
    const res = await as('outsider', method, url, body);
    expect([res.statusCode, res.json().message]).toEqual([404, expect.stringMatching(/not found/i)]);
    expect(await catalogVersion()).toBe(before);
    expect(res.body).not.toContain('secret');
  });

  it('the reproduction: a map naming another organization\'s dataset is refused, so nothing of it can be published', async () => {
    const res = await as('outsider', 'POST', '/v1/maps', { name: 'x', datasets: [f.victim.dataset] });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('places');
    expect((await as('outsider', 'PUT', `/v1/maps/${f.mine.map}`, { datasets: [f.victim.dataset] })).statusCode).toBe(404);
    // The link route already answered 404; it still does.
    expect((await as('outsider', 'POST', `/v1/maps/${f.mine.map}/datasets/${f.victim.dataset}`)).statusCode).toBe(404);
    const map = (await as('outsider', 'GET', `/v1/maps/${f.mine.map}`)).json().item;
    expect(map.datasets.map((d: { id: string }) => d.id)).toEqual([f.mine.dataset]);
  });

  it('a link written before the rule existed is never streamed through a publication', async () => {
    // As a catalog from before the fix could hold: the attacker's map linked to the victim's dataset.
    await s.services.db.insertInto('resource_links').values({ resource_id: f.mine.map, linked_id: f.victim.dataset }).execute();
    expect((await as('outsider', 'POST', `/v1/maps/${f.mine.map}/publish/map`, {})).statusCode).toBe(201);
    const stolen = await as('anonymous', 'GET', `/v1/maps/${f.mine.map}/published-map/datasets/${f.victim.dataset}`);
    expect(stolen.statusCode).toBe(404);
    expect((await as('anonymous', 'GET', `/v1/maps/${f.mine.map}/published-map/datasets/${f.victim.dataset}/tiles/link`)).statusCode).toBe(404);
    // The map's own dataset still streams.
    expect((await as('anonymous', 'GET', `/v1/maps/${f.mine.map}/published-map/datasets/${f.mine.dataset}`)).statusCode).toBe(200);
    await s.services.db.deleteFrom('resource_links').where('resource_id', '=', f.mine.map).where('linked_id', '=', f.victim.dataset).execute();
  });

  it('a publication stops serving a dataset its owner can no longer read', async () => {
    // The owner shares a dataset with the outsider, who maps and publishes it, then the share is revoked.
    const shared = await upload('owner');
    // Across organizations a share names an email (user ids of other organizations are not visible).
    expect((await as('owner', 'POST', '/v1/permissions', { resourceType: 'dataset', resourceId: shared, role: 'viewer', email: 'outsider@globex.test' })).statusCode).toBe(201);
    const map = await created('outsider', '/v1/maps', { name: 'from a share', latestState: STATE, datasets: [shared] });
    expect((await as('outsider', 'POST', `/v1/maps/${map}/publish/map`, {})).statusCode).toBe(201);
    expect((await as('anonymous', 'GET', `/v1/maps/${map}/published-map/datasets/${shared}`)).statusCode).toBe(200);
    await s.services.db.deleteFrom('permissions').where('resource_id', '=', shared).execute();
    expect((await as('anonymous', 'GET', `/v1/maps/${map}/published-map/datasets/${shared}`)).statusCode).toBe(404);
  });

  it('shares reach the caller\'s own organization, pending emails, and anyone for administrators', async () => {
    const share = (who: keyof Cast['tokens'], map: string, body: unknown, query = '') => as(who, 'POST', `/v1/maps/${map}/share${query}`, body);
    const own = await share('outsider', f.mine.map, { users: [{ userId: cast.users.editor.id, role: 'editor' }], organizations: [{ organizationId: cast.otherOrg.id, role: 'viewer' }] });
    expect([own.statusCode, own.body]).toEqual([200, expect.anything()]);
    expect((await share('outsider', f.mine.map, { emails: [{ email: 'owner@acme.test', role: 'viewer' }] })).statusCode).toBe(200);
    const another = await created('owner', '/v1/maps', { name: 'shared by an administrator' });
    expect((await share('admin', another, { users: [{ userId: cast.users.outsider.id, role: 'viewer' }], organizations: [{ organizationId: cast.otherOrg.id, role: 'viewer' }] }, '?isAdmin=true')).statusCode).toBe(200);
    // The refusal does not tell an existing foreign user from a made-up id.
    const foreign = await share('outsider', f.mine.map, { users: [{ userId: cast.users.owner.id, role: 'viewer' }] });
    const madeUp = await share('outsider', f.mine.map, { users: [{ userId: '00000000-0000-4000-8000-000000000001', role: 'viewer' }] });
    expect([foreign.statusCode, foreign.json().message]).toEqual([madeUp.statusCode, madeUp.json().message]);
  });

  it('a project resource of someone else cannot be added (the documents\' message, as for an unknown id)', async () => {
    const before = await catalogVersion();
    const res = await as('outsider', 'POST', `/v1/projects/${f.mine.project}/resources`, { resource: { type: 'map', id: f.victim.map } });
    const unknown = await as('outsider', 'POST', `/v1/projects/${f.mine.project}/resources`, { resource: { type: 'map', id: '00000000-0000-4000-8000-000000000001' } });
    expect([res.statusCode, res.json().message]).toEqual([422, 'Could not save project resource']);
    // The same answer but for the request's own id.
    const withoutId = ({ requestId: _id, ...body }: Record<string, unknown>) => body;
    expect(withoutId(res.json())).toEqual(withoutId(unknown.json()));
    expect(await catalogVersion()).toBe(before);
  });

  it('another user\'s API key is neither renamed nor revoked', async () => {
    const keys = (await as('owner', 'GET', '/v1/api-key')).json();
    expect(JSON.stringify(keys)).toContain('ci');
    expect(JSON.stringify(keys)).not.toContain('hijacked');
  });
});
