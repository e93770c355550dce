import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const STORES_CSV = 'store,category,sales,lat,lng\nA,food,10,37.77,-122.41\nB,food,30,37.78,-122.42\nC,fuel,5,37.79,-122.43\nD,toys,7,37.8,-122.44\n';

/**
 * A workbook's SQL cell (POST /v1/query/sql): SQL over the results of the cells above it, which are
 * temporary views named by the cells' names, run in the SQL sandbox and kept as a view in turn.
 */
describe.each(STORES)('SQL over temporary views (workbook SQL cells) on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let datasetId: string;
  const as = (who: 'owner' | 'outsider') => ({ authorization: cast.tokens[who] });
  const materialize = (pipeline: unknown) =>
    s.app.inject({ method: 'POST', url: '/v1/query?materialize=true', payload: pipeline as object, headers: as('owner') });
  const sqlCell = (query: string, tables: Record<string, string> = {}, who: 'owner' | 'outsider' = 'owner') =>
    s.app.inject({ method: 'POST', url: '/v1/query/sql', payload: { query, tables }, headers: as(who) });
  const rows = async (view: string) => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/query?format=json', payload: { type: 'sort', by: ['category'], input: [{ type: 'dataset', uuid: view, input: [] }] }, headers: as('owner') });
    return res.json().items;
  };

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const res = await s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Stores', payload: STORES_CSV, headers: { ...as('owner'), 'content-type': 'text/csv' } });
    datasetId = res.json().item.id;
  });
  afterAll(async () => s?.dispose());

  it('runs SQL over a cell by its name and keeps the result as a view that pipelines read', async () => {
    const filtered = (await materialize({ type: 'filter', expression: "category != 'toys'", input: [{ type: 'dataset', uuid: datasetId, input: [] }] })).json().item;
    const res = await sqlCell('select category, sum(sales) as total from Filtered group by category', { filtered: filtered.name });
    expect(res.statusCode).toBe(201);
    const view = res.json().item;
    expect(view).toMatchObject({ name: expect.stringMatching(/^temp_[a-z0-9]{6}$/), rowCount: 2 });
    // food: 10 + 30; fuel: 5 (toys filtered out by the cell above).
    expect(await rows(view.name)).toEqual([{ category: 'food', total: 40 }, { category: 'fuel', total: 5 }]);
  });

  it('answers the first rows of a new view with their DuckDB types when asked (preview=N)', async () => {
    const filtered = (await s.app.inject({ method: 'POST', url: '/v1/query?materialize=true&preview=1', payload: { type: 'sort', by: ['store'], input: [{ type: 'dataset', uuid: datasetId, input: [] }] }, headers: as('owner') })).json().item;
    expect(filtered).toMatchObject({ rowCount: 4, columns: [{ name: 'store', type: 'VARCHAR' }, { name: 'category', type: 'VARCHAR' }, { name: 'sales', type: 'BIGINT' }, { name: 'lat', type: 'DOUBLE' }, { name: 'lng', type: 'DOUBLE' }], rows: [{ store: 'A', category: 'food', sales: 10, lat: 37.77, lng: -122.41 }] });
    const res = await s.app.inject({ method: 'POST', url: '/v1/query/sql?preview=5', payload: { query: 'select count(*) as n, avg(sales) as mean from cell', tables: { cell: filtered.name } }, headers: as('owner') });
    expect(res.json().item).toMatchObject({ rowCount: 1, columns: [{ name: 'n', type: 'BIGINT' }, { name: 'mean', type: 'DOUBLE' }], rows: [{ n: 4, mean: 13 }] });
    expect((await sqlCell('select 1')).json().item.rows).toBeUndefined();
    const tooMany = await s.app.inject({ method: 'POST', url: '/v1/query/sql?preview=1001', payload: { query: 'select 1' }, headers: as('owner') });
    expect(tooMany.statusCode).toBe(422);
  });

  it('joins a cell with a dataset named as in the SQL workspace', async () => {
    const top = (await materialize({ type: 'limit', length: 1, input: [{ type: 'sort', by: ['desc(sales)'], input: [{ type: 'dataset', uuid: datasetId, input: [] }] }] })).json().item;
    const res = await sqlCell('select s.category, count(*) as n from top t join Stores s using (category) group by 1', { top: top.name });
    expect(res.statusCode).toBe(201);
    expect(await rows(res.json().item.name)).toEqual([{ category: 'food', n: 2 }]);
  });

  it.each([
    ["select * from read_csv('/etc/passwd')", /Table functions are not allowed in queries: read_csv/],
    ["ATTACH '/tmp/x.db' AS x", /Could not parse query/],
    ['INSTALL httpfs', /Could not parse query/],
    ["COPY (select 1) TO '/tmp/out.csv'", /Could not parse query/],
    ['select * from nowhere', /Unknown table nowhere/],
  ])('refuses %s with 422 and keeps no view', async (query, message) => {
    const before = s.services.tempViews.size;
    const res = await sqlCell(query);
    expect(res.statusCode).toBe(422);
    expect(`${res.json().message} ${res.json().details ?? ''}`).toMatch(message);
    expect(s.services.tempViews.size).toBe(before);
  });

  it("does not read another user's view, named directly or through a cell name", async () => {
    const mine = (await materialize({ type: 'dataset', uuid: datasetId, input: [] })).json().item;
    expect((await sqlCell(`select count(*) from ${mine.name}`)).statusCode).toBe(201);
    const direct = await sqlCell(`select count(*) from ${mine.name}`, {}, 'outsider');
    const aliased = await sqlCell('select count(*) from cell', { cell: mine.name }, 'outsider');
    expect([direct.statusCode, aliased.statusCode]).toEqual([404, 404]);
    expect(aliased.json().message).toBe(`Temporary view ${mine.name} not found or expired`);
  });

  it('answers an expired cell as 404, so the workbook runs that cell again', async () => {
    const gone = (await materialize({ type: 'dataset', uuid: datasetId, input: [] })).json().item;
    await s.services.tempViews.drop(gone.name);
    const res = await sqlCell('select * from cell', { cell: gone.name });
    expect([res.statusCode, res.json().message]).toEqual([404, `Temporary view ${gone.name} not found or expired`]);
  });

  it('downloads a view in each format, to its maker only', async () => {
    const view = (await materialize({ type: 'filter', expression: "category = 'food'", input: [{ type: 'dataset', uuid: datasetId, input: [] }] })).json().item;
    const get = (format: string, who: 'owner' | 'outsider' = 'owner') => s.app.inject({ method: 'GET', url: `/v1/query/views/${view.name}/data?format=${format}`, headers: as(who) });
    const csv = await get('csv');
    expect([csv.headers['content-disposition'], csv.body.trim().split('\n')]).toEqual([`attachment; filename="${view.name}.csv"`, ['store,category,sales,lat,lng', 'A,food,10,37.77,-122.41', 'B,food,30,37.78,-122.42']]);
    const geojson = (await get('geojson')).json();
    expect(geojson.features.map((f: { geometry: { coordinates: number[] }; properties: { store: string } }) => [f.properties.store, f.geometry.coordinates])).toEqual([['A', [-122.41, 37.77]], ['B', [-122.42, 37.78]]]);
    expect((await get('parquet')).rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    expect((await get('arrow')).headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    expect([(await get('csv', 'outsider')).statusCode, (await get('csv', 'outsider')).json().message]).toEqual([404, `Temporary view ${view.name} not found or expired`]);
    const bad = await s.app.inject({ method: 'GET', url: '/v1/query/views/stores/data', headers: as('owner') });
    expect(bad.statusCode).toBe(422);
  });

  it('refuses table names that are not identifiers and views that are not temporary views', async () => {
    expect((await sqlCell('select 1', { 'a b': 'temp_abcdef' })).statusCode).toBe(422);
    expect((await sqlCell('select * from x', { x: datasetId })).statusCode).toBe(422);
    const empty = (await sqlCell('   ')).json();
    expect(`${empty.message} ${JSON.stringify(empty.details ?? '')}`).toMatch(/Query must not be empty/);
  });
});
