import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const STORES_CSV = 'store,category,sales,lat,lng\nA,food,10,37.77,-122.41\nB,food,30,37.78,-122.42\nC,fuel,5,37.79,-122.43\nD,fuel,,37.80,-122.44\nE,toys,7,37.81,-122.45\n';

describe.each(STORES)('query pipeline API on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  let datasetId: string;
  const query = (pipeline: unknown, format = 'json', who: 'owner' | 'outsider' = 'owner') =>
    s.app.inject({ method: 'POST', url: `/v1/query?format=${format}`, payload: pipeline as object, headers: { authorization: cast.tokens[who] } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    const res = await s.app.inject({ method: 'POST', url: '/v1/datasets/data?name=Stores', payload: STORES_CSV, headers: { authorization: cast.tokens.owner, 'content-type': 'text/csv' } });
    datasetId = res.json().item.id;
  });
  afterAll(async () => s?.dispose());

  const grouped = () => ({
    type: 'sort',
    by: ['desc(total)'],
    input: [{ type: 'group', by: ['category'], expressions: ['sum(sales) AS total', 'count(*) AS n'], input: [{ type: 'filter', expression: "store != 'E'", input: [{ type: 'dataset', uuid: datasetId, input: [] }] }] }],
  });

  it('answers filter, group and sort as JSON with figures worked out by hand', async () => {
    const res = await query(grouped());
    expect(res.statusCode).toBe(200);
    // food: 10 + 30 = 40 over 2 stores; fuel: 5 (D's sales are NULL and skipped) over 2 stores.
    expect(res.json().items).toEqual([
      { category: 'food', total: 40, n: 2 },
      { category: 'fuel', total: 5, n: 2 },
    ]);
  });

  it('answers the same rows as Arrow and CSV', async () => {
    const arrow = await query(grouped(), 'arrow');
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    expect(tableFromIPC(arrow.rawPayload).toArray().map((r) => r.category)).toEqual(['food', 'fuel']);
    const csv = await query(grouped(), 'csv');
    expect(csv.body.trim().split('\n')).toEqual(['category,total,n', 'food,40,2', 'fuel,5,2']);
  });

  it('refuses an invalid pipeline with the node path, before running anything', async () => {
    const res = await query({ type: 'limit', length: 0, input: [{ type: 'dataset', uuid: datasetId, input: [] }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toMatch(/limit/);
  });

  it('refuses a pipeline over a dataset the caller cannot read', async () => {
    const res = await query({ type: 'dataset', uuid: datasetId, input: [] }, 'json', 'outsider');
    expect([res.statusCode, res.json().message]).toEqual([404, 'Dataset not found']);
  });

  it('answers an unknown column as 422, not 500', async () => {
    const res = await query({ type: 'filter', expression: 'nope > 1', input: [{ type: 'dataset', uuid: datasetId, input: [] }] });
    expect(res.statusCode).toBe(422);
  });

  it('indexes points to H3 through an expression', async () => {
    const res = await query({ type: 'select', expressions: ['store', 'h3_latlng_to_cell(lat, lng, 9) AS hex'], input: [{ type: 'dataset', uuid: datasetId, input: [] }] });
    const { latLngToCell } = await import('h3-js');
    expect(res.json().items[0]).toEqual({ store: 'A', hex: latLngToCell(37.77, -122.41, 9) });
  });

  it('shapifies H3 cells into GeoJSON', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/v1/shapify', payload: { geos: ['89283082803ffff'], shape: 'point' }, headers: { authorization: cast.tokens.owner } });
    expect(res.json().item.features[0].geometry.type).toBe('Point');
    const bad = await s.app.inject({ method: 'POST', url: '/v1/shapify', payload: { geos: ['nope'] }, headers: { authorization: cast.tokens.owner } });
    expect([bad.statusCode, bad.json().message]).toEqual([422, 'Invalid H3 cell']);
  });

  it('keeps a materialized result as a temporary view for later pipelines, for its maker only', async () => {
    const made = await query(grouped(), 'json');
    expect(made.statusCode).toBe(200);
    const res = await s.app.inject({ method: 'POST', url: '/v1/query?materialize=true', payload: grouped(), headers: { authorization: cast.tokens.owner } });
    expect(res.statusCode).toBe(201);
    const view = res.json().item;
    expect(view).toMatchObject({ name: expect.stringMatching(/^temp_[a-z0-9]{6}$/), rowCount: 2 });
    expect(new Date(view.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    const reuse = await query({ type: 'filter', expression: 'total > 10', input: [{ type: 'dataset', uuid: view.name, input: [] }] });
    expect(reuse.json().items).toEqual([{ category: 'food', total: 40, n: 2 }]);
    const other = await query({ type: 'dataset', uuid: view.name, input: [] }, 'json', 'outsider');
    expect(other.statusCode).toBe(404);
    await s.services.tempViews.drop(view.name);
    expect((await query({ type: 'dataset', uuid: view.name, input: [] })).statusCode).toBe(404);
  });

  it('refuses a 101st live temporary view with 429', async () => {
    const live: string[] = [];
    // The node's 100, filled by several users (one user may hold at most 20: STUDIO_TEMP_VIEWS_PER_USER).
    const makers = Object.values(cast.users).map((u) => u.id).filter((id) => id !== cast.users.owner.id);
    for (let i = 0; s.services.tempViews.size < 100; i++) live.push((await s.services.tempViews.create(makers[i % makers.length]!, { sql: 'SELECT 1 AS one', params: [] })).name);
    const res = await s.app.inject({ method: 'POST', url: '/v1/query?materialize=true', payload: grouped(), headers: { authorization: cast.tokens.owner } });
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toMatch(/^Too many temporary views \(at most 100\)/);
    for (const name of live) await s.services.tempViews.drop(name);
  });
});
