import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, warehouseConnection, type Cast, type TestStudio } from './harness';
import { arbitraryOf, type JsonSchema, type Pools } from './schema-arbitrary';
import { allRoutes } from '../src/routes';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The whole run's time limit (the suite's default fits a single API test, not a pass over every route). */
const FUZZ_BUDGET_MS = 600_000;
/** Seeded calls per operation: 15 × 351 operations = 5,265 calls on each catalog (#20: at least 5,000). */
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 15);
/** What an answer must never show: a stack frame, or where the server or its data live on disk. */
const LEAKS = [/\n\s+at [\w.<>]+ \(/, /node_modules/, /packages\/server\/src/];

/** Calls that got past authentication, validation and the resource guard into a handler (the fuzz's reach). */
let reachedHandler = 0;
for (const route of allRoutes) {
  const handler = route.handler;
  route.handler = (ctx) => {
    reachedHandler++;
    return handler(ctx);
  };
}

interface Operation {
  parameters: { name: string; in: 'path' | 'query'; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

/** encodeURIComponent refuses a lone surrogate; a client can still send its WTF-8 bytes. */
const pathSegment = (v: unknown) => {
  try {
    return encodeURIComponent(String(v));
  } catch {
    return '%ED%A0%BD';
  }
};

/** Values that have broken servers before: wrong types, traversal, overlong, unicode, injection. */
const nasty = fc.oneof(
  fc.uuid(),
  fc.string(),
  fc.constantFrom('', ' ', '..%2F..%2Fetc%2Fpasswd', "'; drop table users; --", '%00', 'null', 'true', '-1', '1e309', 'NaN', '😀', 'a'.repeat(5000), 'map', 'dataset', '0'),
  // Text the catalog cannot store (#11): NUL, lone surrogates, and over-long values.
  fc.constantFrom('\u0000', 'a\u0000b', '\ud83d\ud83d', 'x\udc00', '\udfff', 'a'.repeat(100_000)),
  fc.integer().map(String),
);
const nastyBody = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.string(), fc.dictionary(fc.constantFrom('name', 'description', 'query', 'email', 'tags', 'latestState'), nasty, { maxKeys: 3 }));
const CSV = 'name,lat,lng\nA,52.5,13.4\nB,48.1,11.6\n';

/** Records to aim at, by kind: every call may name them, so calls get past "not found" to the handlers. */
async function seedRecords(s: TestStudio, cast: Cast): Promise<Pools> {
  const call = async (url: string, payload: unknown, contentType = 'application/json') => {
    const res = await s.app.inject({ method: 'POST', url, payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { authorization: cast.tokens.owner, 'content-type': contentType } });
    if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
    return (res.json().item as { id: string }).id;
  };
  const dataset = await call('/v1/datasets/data?name=Stores', CSV, 'text/csv');
  const connection = await call('/v1/data-connections', { name: 'Warehouse', ...warehouseConnection('postgres') });
  const byKind: Pools['byKind'] = {
    // The second left a malformed line out ("skip bad rows"): its rejected lines can be read.
    dataset: [dataset, await call('/v1/datasets/data?name=Second&skipBadRows=true', `${CSV}C,1,2,3\n`, 'text/csv')],
    map: [await call('/v1/maps', { name: 'Fuzz map', datasets: [dataset] }), await call('/v1/maps', { name: 'Second map', latestState: { version: 1, kepler: {} } })],
    tag: [await call('/v1/tags', { name: 'fuzz' })],
    project: [await call('/v1/projects', { name: 'Fuzz project' })],
    'map-asset': [await call('/v1/map-assets', { assetType: 'color-palette', name: 'Palette', palette: { type: 'qualitative', colors: ['#112233', '#445566'] } })],
    'data-connection': [connection],
    'query-template': [await call('/v1/data-queries/templates', { name: 'Fuzz template', query: 'SELECT 1 AS one' })],
    organization: [cast.org.id, cast.otherOrg.id],
    // Never the administrator's own account: the fuzz calls as that administrator.
    user: Object.entries(cast.users).filter(([k]) => k !== 'admin').map(([, u]) => u.id),
  };
  for (const c of ['insight', 'workbook', 'dashboard']) byKind[c] = [await call(`/v1/${c}s`, { name: `Fuzz ${c}` })];
  // A background job (GET /v1/jobs/{id}, its cancel): the hex tiles of the first dataset.
  const tiles = await s.app.inject({ method: 'POST', url: '/v1/datasets/hextile', payload: { source: dataset, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 6, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] }, headers: { authorization: cast.tokens.admin } });
  if (tiles.statusCode !== 201) throw new Error(`POST /v1/datasets/hextile: ${tiles.statusCode} ${tiles.body}`);
  byKind.job = [tiles.json().job.id];
  // SQL that runs, for the `query` of SQL calls (data queries, templates, workbook SQL cells).
  const texts = { query: ['select 1 as one', 'SELECT count(*) AS n FROM Stores'] };
  // Version numbers of the history calls (/versions/{n}, /diff/{b}): the second map's first version exists.
  const numbers = { n: [1], a: [1], b: [1] };
  return { byKind, emails: Object.entries(cast.users).filter(([k]) => k !== 'admin').map(([, u]) => u.email), texts, numbers };
}

/** The kind a path parameter names: `{id}` takes it from the collection before it (/v1/maps/{id} -> map). */
const hintOf = (path: string, name: string) => {
  if (name !== 'id') return name;
  const segments = path.split('/');
  return segments[segments.indexOf('{id}') - 1];
};

describe.each(STORES)('OpenAPI fuzz on %s', (kind) => {
  let s: TestStudio;
  let cast: Cast;
  let pools: Pools;
  beforeAll(async () => {
    // Without job workers: a job's writes would land during later calls, which must each write with an audit
    // record; the jobs stay queued, so their calls (one job, cancel) answer.
    s = await startStudio(kind, { role: 'api' });
    cast = await seedCast(s);
    pools = await seedRecords(s, cast);
  });
  afterAll(async () => s?.dispose());

  // One round trip before and one after each call (two each until 2026-11-28: the run's longest file in CI).
  const state = async () => {
    const row = (await sql<{ v: string | number; n: string | number }>`select (select version from catalog_version) as v, (select count(*) from audit_log) as n`.execute(s.services.db)).rows[0]!;
    return { version: Number(row.v), audited: Number(row.n) };
  };

  it('answers no 500, writes nothing without its audit record, and reaches the handlers', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    // Deletions and account merges last, so that the records every other call aims at still exist.
    const last = (o: { method: string; path: string }) => Number(o.method === 'DELETE' || o.path.includes('merge-accounts'));
    const operations = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })))
      .sort((a, b) => last(a) - last(b));
    expect(operations.length).toBeGreaterThan(100);
    const failures: string[] = [];
    const unaudited: string[] = [];
    const leaks: string[] = [];
    let calls = 0;
    reachedHandler = 0;
    let succeeded = 0;
    const operationsSucceeding = new Set<string>();
    for (const { path, method, op } of operations) {
      // A temporary view lives 60 s: one made now, by the administrator the calls run as, for the view calls.
      const view = path.startsWith('/v1/query/views/') ? await s.services.tempViews.create(cast.users.admin.id, { sql: 'SELECT 1 AS one', params: [] }) : null;
      const opPools = view ? { ...pools, texts: { ...pools.texts, name: [view.name] } } : pools;
      const pathParams = op.parameters.filter((p) => p.in === 'path');
      // isAdmin is the run's own switch (adminMode below).
      const queryParams = op.parameters.filter((p) => p.in === 'query' && p.name !== 'isAdmin');
      const jsonSchema = op.requestBody?.content['application/json']?.schema;
      const raw = Boolean(op.requestBody?.content['*/*']);
      // Mostly values valid for the schema (real ids of the right kind among them), sometimes hostile ones.
      const validOrNasty = (schema: JsonSchema | undefined, hint: string) => fc.oneof({ weight: 7, arbitrary: arbitraryOf(schema, opPools, hint) }, { weight: 1, arbitrary: nasty });
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            pathValues: fc.tuple(...pathParams.map((p) => validOrNasty(p.schema, hintOf(path, p.name)!))),
            query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, validOrNasty(p.schema, p.name)])), { requiredKeys: [] }),
            adminMode: fc.boolean(),
            body: raw ? fc.constantFrom(CSV, '', 'not,a\n"broken') : fc.oneof({ weight: 7, arbitrary: jsonSchema ? arbitraryOf(jsonSchema, pools) : nastyBody }, { weight: 1, arbitrary: nastyBody }),
            withToken: fc.oneof({ weight: 15, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
          }),
          async ({ pathValues, query, adminMode, body, withToken }) => {
            let i = 0;
            const url = path.replace(/\{\w+\}/g, () => pathSegment(pathValues[i++]));
            const entries = Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string]);
            if (adminMode) entries.push(['isAdmin', 'true']);
            const qs = new URLSearchParams(entries).toString();
            const payload = method === 'GET' ? undefined : typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
            // A fresh session each call: a fuzzed sign-out must not end the rest of the run.
            const token = withToken ? `Bearer ${(await s.services.auth.issue(cast.users.admin.id)).accessToken}` : undefined;
            const before = await state();
            // FUZZ_TRACE=1 prints each call and its answer: the way to find a call that hangs.
            if (process.env.FUZZ_TRACE) console.log('CALL', method, url, qs, String(payload).slice(0, 300));
            const res = await s.app.inject({
              method: method as 'GET',
              url: `${url}${qs ? `?${qs}` : ''}`,
              payload,
              headers: { ...(token && { authorization: token }), ...(payload !== undefined && { 'content-type': raw ? 'text/csv' : 'application/json' }) },
            });
            const after = await state();
            calls++;
            if (process.env.FUZZ_TRACE) console.log('DONE', res.statusCode, res.body.slice(0, 200));
            const label = `${method} ${url}?${qs} -> ${res.statusCode}`;
            if (res.statusCode >= 500) failures.push(`${label} ${res.body.slice(0, 200)}`);
            if ([...LEAKS, new RegExp(escapeRegExp(s.dataDir))].some((leak) => leak.test(res.body))) leaks.push(`${label} ${res.body.slice(0, 300)}`);
            if (res.statusCode < 300) {
              succeeded++;
              operationsSucceeding.add(`${method} ${path}`);
            }
            // A reader opening a published map is counted (published_maps.views): a write, but not an action to audit.
            const countsAView = method === 'GET' && path === '/v1/maps/{id}/published-map';
            if (after.version !== before.version && after.audited === before.audited && !countsAView) unaudited.push(label);
            return true;
          },
        ),
        { numRuns: RUNS_PER_OPERATION, seed: 42 },
      );
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(unaudited.slice(0, 20)).toEqual([]);
    expect(leaks.slice(0, 20)).toEqual([]);
    expect(calls).toBeGreaterThanOrEqual(Math.min(5_000, RUNS_PER_OPERATION * operations.length));
    // The fuzz proves its reach: a run that stops at 401/404/422 before the handlers tests nothing.
    console.log(`fuzz on ${kind}: ${calls} calls, ${reachedHandler} reached a handler, ${succeeded} answered 2xx; ${operationsSucceeding.size} of ${operations.length} operations answered 2xx at least once`);
    expect(reachedHandler / calls).toBeGreaterThan(0.6);
    expect(succeeded / calls).toBeGreaterThan(0.3);
    expect(operationsSucceeding.size / operations.length).toBeGreaterThan(0.5);
    // Its own time budget: 15 calls for each of 350 operations, more with every route added (measured 2026-11-28 on
    // a 2-core machine: 25 s on PGlite, 20 s on PostgreSQL alone; eight calls an operation took 150 s a catalog in a
    // CI run beside the browser tests).
  }, FUZZ_BUDGET_MS);
});
