import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, jobEnded, seedCast, startStudio, type TestStudio } from './harness';

type Who = 'owner' | 'outsider' | 'viewer' | 'admin';

describe.each(STORES)('query executions on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let salesId: string;
  let storesId: string;
  const call = (who: Who, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who], ...headers } });
  const countExecutions = async () => Number((await s.services.db.withTables<{ query_executions: { id: string } }>().selectFrom('query_executions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const up = async (name: string, csv: string) =>
      (await s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: csv, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } })).json().item.id as string;
    salesId = await up('sales', 'store,amount\nA,10\nA,5\nB,7\nC,1\n');
    storesId = await up('Store list', "store,city\nA,SF\nB,LA\nC,SF\nD,x'; drop table users; --\n");
  });
  afterAll(async () => s?.dispose());

  // Sums worked out by hand: A 10+5 = 15, B 7, C 1; SF = A + C = 16, LA = B = 7.
  it.each([
    ['a dataset by name', 'select store, sum(amount) as total from sales group by store order by store', [{ store: 'A', total: 15 }, { store: 'B', total: 7 }, { store: 'C', total: 1 }]],
    ['a join by id and name', () => `select s.city, sum(x.amount) as total from "${storesId}" s join sales x using (store) group by s.city order by s.city`, [{ city: 'LA', total: 7 }, { city: 'SF', total: 16 }]],
    ['a CTE and a filter', 'with big as (select * from sales where amount > 6) select count(*) as n from big', [{ n: 2 }]],
  ] as const)('runs %s and answers rows through /json', async (_name, query, rows) => {
    const q = typeof query === 'function' ? query() : query;
    const res = await call('owner', 'POST', '/v1/data-queries/json', { query: q });
    expect([res.statusCode, res.body]).toEqual([200, expect.any(String)]);
    expect(res.json().items).toEqual(rows);
  });

  it('records an execution: success, row count, cache expiry 2678400 s after it finished; result as CSV and Arrow', async () => {
    const res = await call('owner', 'POST', '/v1/data-queries', { query: 'select store, amount from sales order by amount desc' }, { 'cache-control': 'no-cache' });
    expect(res.statusCode).toBe(200);
    const item = res.json().item;
    expect(item).toMatchObject({ status: 'success', rowCount: 4, fromCache: false, errorMessage: null, connectionId: null });
    expect(new Date(item.cacheExpiresAt).getTime() - new Date(item.finishedAt).getTime()).toBe(2_678_400_000);
    const got = await call('owner', 'GET', `/v1/data-queries/${item.queryExecutionId}`);
    expect(got.json().item).toMatchObject({ queryExecutionId: item.queryExecutionId, status: 'success', rowCount: 4 });
    const csv = await call('owner', 'GET', `/v1/data-queries/${item.queryExecutionId}/result`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.trim().split('\n')).toEqual(['store,amount', 'A,10', 'B,7', 'A,5', 'C,1']);
    const arrow = await call('owner', 'GET', `/v1/data-queries/${item.queryExecutionId}/result`, undefined, { accept: 'application/vnd.apache.arrow.stream' });
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.numRows).toBe(4);
    expect([...table.getChild('amount')!.toArray()].map(Number)).toEqual([10, 7, 5, 1]);
    const list = (await call('owner', 'GET', '/v1/data-queries?limit=1000')).json();
    expect(list.items.map((i: { id: string }) => i.id)).toContain(item.id);
  });

  it('answers an identical query from cache, but not with cache-control: no-cache', async () => {
    const body = { query: 'select count(*) as n from sales where amount >= $min', parameters: { min: 5 } };
    const first = (await call('owner', 'POST', '/v1/data-queries', body, { 'cache-control': 'no-cache' })).json().item;
    const cached = (await call('owner', 'POST', '/v1/data-queries', body)).json().item;
    expect(cached).toMatchObject({ queryExecutionId: first.queryExecutionId, fromCache: true });
    const fresh = (await call('owner', 'POST', '/v1/data-queries', body, { 'cache-control': 'no-cache' })).json().item;
    expect(fresh.queryExecutionId).not.toBe(first.queryExecutionId);
    // Another caller never gets the owner's execution.
    const other = (await call('admin', 'POST', '/v1/data-queries', body)).json().item;
    expect(other.queryExecutionId).not.toBe(first.queryExecutionId);
    // Other parameter values are another query.
    const other2 = (await call('owner', 'POST', '/v1/data-queries/json', { ...body, parameters: { min: 8 } })).json();
    expect(other2.items).toEqual([{ n: 1 }]);
  });

  it.each([
    ['a number', { min: 7 }, 'select count(*) as n from sales where amount >= $min', [{ n: 2 }]],
    ['an injection string comes back as a value', { s: "x'; drop table users; --" }, 'select $s as v', [{ v: "x'; drop table users; --" }]],
    ['an injection string matches only as a value', { s: "x'; drop table users; --" }, 'select store from "Store list" where city = $s', [{ store: 'D' }]],
    ['a list', { xs: ['A', 'C'] }, 'select sum(amount) as t from sales where list_contains($xs, store)', [{ t: 16 }]],
    ['the list form of parameters', [{ name: 'min', value: 10 }], 'select count(*) as n from sales where amount >= $min', [{ n: 1 }]],
  ] as const)('binds parameters by value: %s', async (_n, parameters, query, rows) => {
    const res = await call('owner', 'POST', '/v1/data-queries/json', { query, parameters });
    expect([res.statusCode, res.json().items]).toEqual([200, rows]);
  });

  it.each([
    ['a missing parameter', { query: 'select $nope as x' }, 'Missing value for parameter $nope'],
    ['a positional parameter', { query: 'select $1 as x', parameters: {} }, 'Use named parameters'],
    ['a write', { query: 'drop table sales' }, 'Could not parse query'],
    ['a file read', { query: "select * from read_csv('/etc/passwd')" }, 'Table functions are not allowed'],
    ['an unknown table', { query: 'select * from nowhere' }, 'Unknown table nowhere'],
    ['neither query nor template', {}, 'Either query or queryTemplateId is required'],
    ['an oversize json limit', { query: 'select 1', limit: 10_001 }, 'Invalid request body'],
  ])('refuses %s with a 422 and records nothing', async (_n, body, message) => {
    const before = await countExecutions();
    const res = await call('owner', 'POST', 'limit' in body ? '/v1/data-queries/json' : '/v1/data-queries', body);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toContain(message);
    expect(await countExecutions()).toBe(before);
  });

  it('records a query that fails while running as a failure', async () => {
    const res = await call('owner', 'POST', '/v1/data-queries', { query: "select cast(store as integer) as n from sales" });
    expect(res.json().item).toMatchObject({ status: 'failure', rowCount: null, errorMessage: expect.stringContaining('Could not convert') });
    const result = await call('owner', 'GET', `/v1/data-queries/${res.json().item.id}/result`);
    expect(result.statusCode).toBe(409);
  });

  it('keeps datasets and executions to those who may read them', async () => {
    const before = await countExecutions();
    for (const query of ['select * from sales', `select * from "${salesId}"`]) {
      const res = await call('outsider', 'POST', '/v1/data-queries', { query });
      expect(res.statusCode, query).toBeGreaterThanOrEqual(404);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect(await countExecutions()).toBe(before);
    const mine = (await call('owner', 'POST', '/v1/data-queries', { query: 'select 1 as one' })).json().item;
    for (const url of [`/v1/data-queries/${mine.id}`, `/v1/data-queries/${mine.id}/result`]) {
      expect((await call('outsider', 'GET', url)).statusCode).toBe(404);
      expect((await call('admin', 'GET', url)).statusCode).toBe(404);
      expect((await call('admin', 'GET', `${url}?isAdmin=true`)).statusCode).toBe(200);
    }
    expect((await call('outsider', 'GET', '/v1/data-queries')).json().items.map((i: { id: string }) => i.id)).not.toContain(mine.id);
  });

  it.each([
    ['store', 100, ['A', 'B', 'C']],
    ['store', 2, ['A', 'B']],
    ['amount', 100, [1, 5, 7, 10]],
  ] as const)('lists distinct values of %s (limit %s)', async (column, limit, values) => {
    const res = await call('owner', 'GET', `/v1/data-queries/column-distinct?datasetId=${salesId}&column=${column}&limit=${limit}`);
    expect([res.statusCode, res.json().items]).toEqual([200, values]);
  });

  it.each([
    ['an unknown column', 'owner', 'column=%22store%22%3B%20drop', 422],
    ['an outsider', 'outsider', 'column=store', 404],
  ] as const)('refuses column-distinct for %s', async (_n, who, q, status) => {
    expect((await call(who, 'GET', `/v1/data-queries/column-distinct?datasetId=${salesId}&${q}`)).statusCode).toBe(status);
  });

  it('runs templates with defaults and parameters, linked to a map; the map shows its executions', async () => {
    const template = (await call('owner', 'POST', '/v1/data-queries/templates', {
      name: 'Sales above',
      query: 'select count(*) as n, sum(amount) as total from dataset where amount >= $min',
      parameters: [{ name: 'min', type: 'NUMBER', defaultValue: 6 }],
    })).json().item;
    const map = (await call('owner', 'POST', '/v1/maps', { name: 'Sales map' })).json().item;
    const byDefault = await call('owner', 'POST', `/v1/data-queries/templates/${template.id}`, { datasetId: salesId, mapId: map.id });
    expect(byDefault.json().item).toMatchObject({ status: 'success', queryTemplateId: template.id, recordId: map.id, parameters: { min: 6 }, rowCount: 1 });
    const rows = (await call('owner', 'POST', '/v1/data-queries/json', { queryTemplateId: template.id, datasetId: salesId, parameters: { min: 1 } })).json().items;
    expect(rows).toEqual([{ n: 4, total: 23 }]);
    const second = (await call('owner', 'POST', `/v1/data-queries/templates/${template.id}/executions`, { datasetId: salesId, mapId: map.id, parameters: { min: 10 } })).json().item;
    expect(second).toMatchObject({ status: 'success', parameters: { min: 10 } });
    const latest = await call('owner', 'GET', `/v1/maps/${map.id}/query-executions/templates/${template.id}`);
    expect(latest.json().item.id).toBe(second.id);
    expect((await call('owner', 'GET', `/v1/maps/${map.id}/query-executions/${byDefault.json().item.id}`)).json().item.parameters).toEqual({ min: 6 });
    // Not linked to this map: not found; another caller without the map: not found.
    const unlinked = (await call('owner', 'POST', '/v1/data-queries', { query: 'select 2 as two' })).json().item;
    expect((await call('owner', 'GET', `/v1/maps/${map.id}/query-executions/${unlinked.id}`)).statusCode).toBe(404);
    expect((await call('outsider', 'GET', `/v1/maps/${map.id}/query-executions/${second.id}`)).statusCode).toBe(404);
    // The outsider cannot run the template, nor link to the map.
    expect((await call('outsider', 'POST', `/v1/data-queries/templates/${template.id}`, { datasetId: salesId })).statusCode).toBe(404);
    expect((await call('outsider', 'POST', '/v1/data-queries', { query: 'select 1 as x', mapId: map.id })).statusCode).toBe(404);
  });

  describe('with Prefer: respond-async (a background job of the same id)', () => {
    const async = { prefer: 'respond-async', 'cache-control': 'no-cache' };
    const ended = (id: string) => jobEnded((url) => call('owner', 'GET', url), id);

    it('answers 202 at once; the job runs it, the execution ends in success with its result, and the Jobs panel lists it', async () => {
      const res = await call('owner', 'POST', '/v1/data-queries', { query: 'select store, count(*) as n from sales group by store order by store' }, async);
      expect([res.statusCode, res.headers['preference-applied'], res.headers.location]).toEqual([202, 'respond-async', `/v1/data-queries/${res.json().item.id}`]);
      const id = res.json().item.id as string;
      expect(['queued', 'running']).toContain(res.json().item.status);
      expect(await ended(id)).toMatchObject({ status: 'succeeded', message: null });
      expect((await call('owner', 'GET', `/v1/data-queries/${id}`)).json().item).toMatchObject({ status: 'success', rowCount: 3 });
      expect((await call('owner', 'GET', `/v1/data-queries/${id}/result`)).body.trim().split('\n')).toEqual(['store,n', 'A,2', 'B,1', 'C,1']);
      const jobs = (await call('owner', 'GET', '/v1/jobs?status=finished')).json().items as { id: string; kind: string }[];
      expect(jobs.find((j) => j.id === id)).toMatchObject({ kind: 'query-execution' });
      // Nobody else sees the job or the execution.
      expect((await call('outsider', 'GET', `/v1/jobs/${id}`)).statusCode).toBe(404);
      expect((await call('outsider', 'GET', `/v1/data-queries/${id}`)).statusCode).toBe(404);
    });

    it('refuses bad input and datasets the caller may not read at once, recording no execution and no job', async () => {
      const before = await countExecutions();
      const jobs = async () => (await call('owner', 'GET', '/v1/jobs?limit=100')).json().items.length as number;
      const jobsBefore = await jobs();
      expect((await call('owner', 'POST', '/v1/data-queries', { query: "select * from read_csv('/etc/passwd')" }, async)).statusCode).toBe(422);
      // A dataset the caller may not read is no table of theirs (422 by name, 404 by id).
      expect((await call('outsider', 'POST', '/v1/data-queries', { query: 'select * from sales' }, async)).statusCode).toBe(422);
      expect((await call('outsider', 'POST', '/v1/data-queries', { query: `select * from "${salesId}"` }, async)).statusCode).toBe(404);
      expect(await countExecutions()).toBe(before);
      expect(await jobs()).toBe(jobsBefore);
    });

    it('ends a query that fails while running as a failure, and its job failed with the same reason, not retried', async () => {
      const res = await call('owner', 'POST', '/v1/data-queries', { query: 'select cast(store as integer) as n from sales' }, async);
      expect(res.statusCode).toBe(202);
      const job = await ended(res.json().item.id);
      expect(job).toMatchObject({ status: 'failed', message: expect.stringContaining('Could not convert') });
      expect((job as unknown as { attempt: number }).attempt).toBe(0);
      expect((await call('owner', 'GET', `/v1/data-queries/${res.json().item.id}`)).json().item).toMatchObject({ status: 'failure', errorMessage: job.message });
    });

    it('answers an identical query from the cache at once (200, no job) when the client allows it', async () => {
      const body = { query: 'select count(*) as n from sales' };
      const first = await call('owner', 'POST', '/v1/data-queries', body, async);
      await ended(first.json().item.id);
      const again = await call('owner', 'POST', '/v1/data-queries', body, { prefer: 'respond-async' });
      expect([again.statusCode, again.json().item.id, again.json().item.fromCache]).toEqual([200, first.json().item.id, true]);
    });
  });

  it('cancels a running query when its signal fires, and records it cancelled', async () => {
    const caller = (await s.services.auth.authenticate(cast.tokens.owner))!;
    const abort = new AbortController();
    const plan = {
      query: 'slow',
      parameters: {},
      cacheBasis: 'slow',
      produce: (file: string, signal: AbortSignal) =>
        (s.services.executions as unknown as { copyToParquet: (sql: string, p: object, f: string, sig: AbortSignal) => Promise<number> }).copyToParquet(
          'select sum(a.range * b.range) as x from range(200000) a, range(200000) b',
          {},
          file,
          signal,
        ),
    };
    setTimeout(() => abort.abort(), 300);
    const started = Date.now();
    const { row } = await s.services.executions.execute(caller, plan, { useCache: false, signal: abort.signal });
    expect(row.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
