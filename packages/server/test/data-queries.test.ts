import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

describe.each(STORES)('data queries on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens, method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });
  const rowOf = (id: string) => s.services.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it.each([
    ['bookmarks', { name: 'Top venues', query: 'select * from venues limit 10' }, { query: 'select * from venues limit 10', parameters: [], connectionId: null }],
    ['templates', { name: 'By city', query: 'select * from venues where city = {{city}}', parameters: [{ name: 'city', type: 'TEXT', defaultValue: 'Oslo' }] }, { version: 1, parameters: [{ name: 'city', type: 'TEXT', defaultValue: 'Oslo' }] }],
  ])('creates, reads, saves and deletes %s; the query is stored as written', async (collection, body, expected) => {
    const base = `/v1/data-queries/${collection}`;
    const created = await as('owner', 'POST', base, body);
    expect(created.statusCode).toBe(201);
    const item = created.json().item;
    expect(item).toMatchObject({ name: body.name, ...expected });
    expect((await as('owner', 'GET', `${base}/${item.id}`)).json().item).toMatchObject({ query: body.query });
    expect((await as('owner', 'GET', base)).json().items.map((i: { id: string }) => i.id)).toContain(item.id);
    const saved = await as('owner', 'PUT', `${base}/${item.id}`, { query: 'select 1' });
    expect(saved.json().item).toMatchObject({ name: body.name, query: 'select 1' });
    expect((await as('viewer', 'GET', `${base}/${item.id}`)).statusCode).toBe(404);
    expect((await as('owner', 'DELETE', `${base}/${item.id}`)).statusCode).toBe(204);
    expect((await as('owner', 'GET', `${base}/${item.id}`)).statusCode).toBe(404);
  });

  it('lists bookmarks for the organization', async () => {
    const item = (await as('owner', 'POST', '/v1/data-queries/bookmarks', { name: 'Org', query: 'select 2' })).json().item;
    const org = await as('colleague', 'GET', '/v1/data-queries/bookmarks/for-organization');
    expect(org.json().items.map((i: { id: string }) => i.id)).toContain(item.id);
  });

  it('keeps each replaced template version and pages the history newest first', async () => {
    const t = (await as('owner', 'POST', '/v1/data-queries/templates', { name: 'v1', query: 'select 1' })).json().item;
    for (const n of [2, 3, 4, 5]) {
      const res = await as('owner', 'PUT', `/v1/data-queries/templates/${t.id}`, { name: `v${n}`, query: `select ${n}` });
      expect(res.json().item).toMatchObject({ version: n, query: `select ${n}` });
    }
    const page = async (qs: string) => (await as('owner', 'GET', `/v1/data-queries/templates/${t.id}/history${qs}`)).json();
    const all = await page('');
    expect(all.total).toBe(4);
    expect(all.items.map((v: { version: number; query: string; name: string }) => [v.version, v.query, v.name])).toEqual([
      [4, 'select 4', 'v4'], [3, 'select 3', 'v3'], [2, 'select 2', 'v2'], [1, 'select 1', 'v1'],
    ]);
    expect(all.items[0]).toMatchObject({ savedBy: cast.users.owner.id, savedAt: expect.any(String), parameters: [] });
    expect((await page('?offset=1&limit=2')).items.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    expect((await page('?offset=10')).items).toEqual([]);
    expect((await as('owner', 'GET', `/v1/data-queries/templates/${t.id}/history?limit=0`)).statusCode).toBe(422);
    expect((await as('outsider', 'GET', `/v1/data-queries/templates/${t.id}/history`)).statusCode).toBe(404);
  });

  it("answers 'Could not parse query template' for a stored template that does not parse, and changes nothing", async () => {
    const t = (await as('owner', 'POST', '/v1/data-queries/templates', { name: 'broken', query: 'select 1' })).json().item;
    await s.services.db.updateTable('resources').set({ attrs: JSON.stringify({ query: 42 }) }).where('id', '=', t.id).execute();
    const before = await rowOf(t.id);
    for (const [method, body] of [['GET', undefined], ['PUT', { query: 'select 9' }]] as const) {
      const res = await as('owner', method, `/v1/data-queries/templates/${t.id}`, body);
      expect([res.statusCode, res.json().message]).toEqual([422, 'Could not parse query template']);
    }
    expect(await rowOf(t.id)).toEqual(before);
    expect((await as('owner', 'GET', '/v1/data-queries/templates')).json().items.map((i: { id: string }) => i.id)).not.toContain(t.id);
  });

  it.each([
    ['bookmarks', 'an empty query', { name: 'x', query: '  ' }],
    ['bookmarks', 'a query of wrong type', { name: 'x', query: 1 }],
    ['bookmarks', 'a bad connection id', { name: 'x', query: 'select 1', connectionId: 'nope' }],
    ['templates', 'duplicate parameter names', { name: 'x', query: 'q', parameters: [{ name: 'a' }, { name: 'a' }] }],
    ['templates', 'a parameter name with spaces', { name: 'x', query: 'q', parameters: [{ name: 'a b' }] }],
    ['templates', 'no name', { query: 'q' }],
  ])('refuses %s with %s (422) and creates nothing', async (collection, _label, body) => {
    const base = `/v1/data-queries/${collection}`;
    const before = (await as('owner', 'GET', base)).json().total;
    expect((await as('owner', 'POST', base, body)).statusCode).toBe(422);
    expect((await as('owner', 'GET', base)).json().total).toBe(before);
  });

  it('refuses a connection the caller cannot read', async () => {
    const conn = (await as('outsider', 'POST', '/v1/data-connections', { type: 'gcs', name: 'theirs', bucket: 'abc' })).json().item;
    const res = await as('owner', 'POST', '/v1/data-queries/bookmarks', { name: 'x', query: 'select 1', connectionId: conn.id });
    expect([res.statusCode, res.json().message]).toEqual([404, 'Data connection not found']);
  });
});
