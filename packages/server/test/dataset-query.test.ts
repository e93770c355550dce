import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

describe.each(STORES)('datasets from SQL queries on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let storesId: string;
  const post = (url: string, payload: unknown, who: 'owner' | 'outsider' = 'owner') =>
    s.app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const up = (name: string, csv: string) =>
      s.app.inject({ method: 'POST', url: `/v1/datasets/data?name=${name}`, payload: csv, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    storesId = (await up('Store list', 'store,city\nA,SF\nB,LA\nC,SF\n')).json().item.id;
    await up('sales', 'store,amount\nA,10\nA,5\nB,7\n');
  });
  afterAll(async () => s?.dispose());

  it('materializes a join of two datasets named by id and by name', async () => {
    const res = await post('/v1/datasets/query', {
      name: 'Sales by city',
      query: `select s.city, sum(x.amount) as total from "${storesId}" s join sales x using (store) group by s.city order by s.city`,
    });
    expect(res.statusCode).toBe(201);
    const ds = res.json().item;
    expect(ds).toMatchObject({ status: 'ready', metadata: { rowCount: 2, source: 'query' } });
    const csv = await s.app.inject({ method: 'GET', url: `/v1/datasets/${ds.id}/data`, headers: { authorization: cast.tokens.owner } });
    // SF: A's 10 + 5 = 15 (C has no sales); LA: B's 7.
    const [header, ...lines] = csv.body.trim().split('\n');
    expect(header).toBe('city,total');
    expect(lines.map((l) => l.split(',')).map(([c, t]) => [c, Number(t)])).toEqual([['LA', 7], ['SF', 15]]);
    const exec = await s.app.inject({ method: 'GET', url: `/v1/datasets/${ds.id}/query-execution`, headers: { authorization: cast.tokens.owner } });
    expect(exec.json().item).toMatchObject({ status: 'success', query: expect.stringContaining('sum(x.amount)') });
  });

  it.each([
    ['a table function', "select * from read_csv('/etc/passwd')", 'Table functions are not allowed in queries: read_csv'],
    ['a file function in a subquery', "select * from (select * from read_parquet('/x.parquet'))", 'Table functions are not allowed in queries: read_parquet'],
    ['a statement other than SELECT', 'copy (select 1) to \'/tmp/x.csv\'', /^Could not parse query/],
    ['two statements', 'select 1; select 2', 'Exactly one SELECT statement is allowed'],
    ['an unknown table', 'select * from nowhere', 'Unknown table nowhere: name a dataset you can read by its id or name'],
  ])('refuses %s with 422 and creates nothing', async (_label, query, message) => {
    const before = (await s.app.inject({ method: 'GET', url: '/v1/datasets', headers: { authorization: cast.tokens.owner } })).json().total;
    const res = await post('/v1/datasets/query', { query });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(message);
    expect((await s.app.inject({ method: 'GET', url: '/v1/datasets', headers: { authorization: cast.tokens.owner } })).json().total).toBe(before);
  });

  it("refuses a dataset the caller cannot read, by id", async () => {
    const res = await post('/v1/datasets/query', { query: `select * from "${storesId}"` }, 'outsider');
    expect([res.statusCode, res.json().message]).toEqual([404, 'Dataset not found']);
  });

  it('replaces data from a workbench query', async () => {
    const target = (await post('/v1/datasets/query', { name: 'Workbench', query: 'select 1 as one' })).json().item;
    const res = await post(`/v1/datasets/${target.id}/workbench`, { tableName: 'sales' });
    expect(res.json().item.metadata.rowCount).toBe(3);
  });
});
