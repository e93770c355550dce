import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const COLLECTIONS = [
  ['insight-states', '/v1/insights'],
  ['studiostates', '/v1/maps'],
  ['workbook-states', '/v1/workbooks'],
] as const;

describe.each(STORES)('state collections on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens, method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it.each(COLLECTIONS)('%s: the creator reads, saves (with the lock) and deletes; others do not see it', async (collection) => {
    const state = { filters: [{ field: 'city', value: 'Oslo' }], zoom: 9 };
    const created = await as('owner', 'POST', `/v1/${collection}`, { state });
    expect(created.statusCode).toBe(201);
    const item = created.json().item;
    expect(item).toMatchObject({ state, recordId: null, ownerId: cast.users.owner.id });
    expect((await as('owner', 'GET', `/v1/${collection}/${item.id}`)).json().item.state).toEqual(state);
    const saved = await as('owner', 'PUT', `/v1/${collection}/${item.id}?acquireLock=true`, { state: { zoom: 10 } });
    expect(saved.json().item).toMatchObject({ state: { zoom: 10 }, lock: { ownerId: cast.users.owner.id } });
    for (const who of ['colleague', 'outsider'] as const) expect((await as(who, 'GET', `/v1/${collection}/${item.id}`)).statusCode).toBe(404);
    expect((await as('owner', 'DELETE', `/v1/${collection}/${item.id}`)).statusCode).toBe(204);
    expect((await as('owner', 'GET', `/v1/${collection}/${item.id}`)).statusCode).toBe(404);
  });

  it.each(COLLECTIONS)('%s: follows the record it points to', async (collection, records) => {
    const record = (await as('owner', 'POST', records, { name: 'R' })).json().item;
    await as('owner', 'POST', `${records}/${record.id}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }, { email: 'editor@globex.test', role: 'editor' }] });
    const item = (await as('owner', 'POST', `/v1/${collection}`, { recordId: record.id, state: { a: 1 } })).json().item;
    expect(item.recordId).toBe(record.id);
    expect((await as('viewer', 'GET', `/v1/${collection}/${item.id}`)).statusCode).toBe(200);
    expect((await as('viewer', 'PUT', `/v1/${collection}/${item.id}`, { state: { a: 2 } })).statusCode).toBe(403);
    expect((await as('editor', 'PUT', `/v1/${collection}/${item.id}`, { state: { a: 3 } })).json().item.state).toEqual({ a: 3 });
    expect((await as('outsider', 'GET', `/v1/${collection}/${item.id}`)).statusCode).toBe(404);
    const theirs = (await as('outsider', 'POST', records, { name: 'T' })).json().item;
    const refused = await as('owner', 'POST', `/v1/${collection}`, { recordId: theirs.id, state: {} });
    expect(refused.statusCode).toBe(404);
  });

  it.each([
    ['no state', {}],
    ['a bad record id', { recordId: 'x', state: {} }],
  ])('refuses %s (422)', async (_label, body) => {
    expect((await as('owner', 'POST', '/v1/studiostates', body)).statusCode).toBe(422);
  });
});
