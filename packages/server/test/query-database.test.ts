import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, useWarehouse, warehouseConnection, type TestStudio } from './harness';

const WAREHOUSE = useWarehouse('studio_dbq', `
  create table sales (store text, amount int);
  insert into sales values ('A', 10), ('B', 30), ('C', 5);
`);

/**
 * The databaseQuery node (catalog §3) in POST /v1/query: its SQL runs on the connection (for callers who
 * may run queries there), its rows feed the rest of the pipeline on DuckDB, and `params` bind its
 * parameters in order.
 */
describe.each(STORES)('databaseQuery pipelines on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let connectionId: string;
  const query = (pipeline: unknown, who: 'owner' | 'outsider' = 'owner') =>
    s.app.inject({ method: 'POST', url: '/v1/query?format=json', payload: pipeline as object, headers: { authorization: cast.tokens[who] } });
  const dbq = (q: string, params?: string[]) => ({ type: 'databaseQuery', connectionId, query: q, ...(params && { params }), input: [] });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const res = await s.app.inject({ method: 'POST', url: '/v1/data-connections', payload: { name: 'wh', ...warehouseConnection(WAREHOUSE) }, headers: { authorization: cast.tokens.owner } });
    expect(res.statusCode, res.body).toBe(201);
    connectionId = res.json().item.id;
  });
  afterAll(async () => s?.dispose());

  it('runs the query on the warehouse and the rest of the pipeline over its rows', async () => {
    const res = await query({ type: 'filter', expression: 'amount > 6', input: [dbq('select store, amount from sales order by store')] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items).toEqual([{ store: 'A', amount: 10 }, { store: 'B', amount: 30 }]);
  });

  it('binds params to the query parameters in the order they appear', async () => {
    const res = await query(dbq('select store from sales where amount >= {{least}} and store <> {{skip}} order by store', ['6', 'A']));
    expect(res.json().items).toEqual([{ store: 'B' }]);
    const short = await query(dbq('select store from sales where amount >= {{least}}'));
    expect([short.statusCode, short.json().message]).toEqual([422, 'databaseQuery node: the query has 1 parameter (least); params gives 0']);
  });

  it("runs a workbook's SQL cell on the warehouse over cells that all live there, each cell's values bound apart", async () => {
    const made = await s.app.inject({ method: 'POST', url: '/v1/datasets/query', payload: { name: 'live sales', connectionId, query: 'select * from sales', live: true }, headers: { authorization: cast.tokens.owner } });
    const live = { type: 'dataset', uuid: made.json().item.id, input: [] };
    const cells = { big: { type: 'filter', expression: 'amount > 6', input: [live] }, just_c: { type: 'filter', expression: "store = 'C'", input: [live] } };
    // initcap is PostgreSQL's, not DuckDB's: this runs on the warehouse or not at all.
    const sql = (who: 'owner' | 'outsider') =>
      s.app.inject({
        method: 'POST',
        url: '/v1/query/sql?preview=5',
        payload: { query: 'select (select count(*) from big) as big, (select initcap(min(store)) from just_c) as c', tables: {}, pipelines: cells },
        headers: { authorization: cast.tokens[who] },
      });
    const res = await sql('owner');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().item).toMatchObject({ engine: 'postgres', rowCount: 1, rows: [{ big: 2, c: 'C' }] });
    expect((await sql('outsider')).statusCode).toBe(404);
  });

  it("refuses a connection the caller cannot read, as it would the connection's own page, and keeps nothing", async () => {
    const before = s.services.tempViews.size;
    const res = await query(dbq('select 1 as one'), 'outsider');
    expect([res.statusCode, res.json().message]).toEqual([404, 'Data connection not found']);
    expect(s.services.tempViews.size).toBe(before);
  });
});
