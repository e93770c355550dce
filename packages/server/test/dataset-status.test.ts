import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrowCopyKey } from '@studio/engine';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

/**
 * What an ingestion leaves behind, as a user sees it on the dataset and in the store (#12, the
 * `dataset-status` mutation module): the metadata it records, the data a replacement frees, the
 * content encodings it takes or refuses.
 */
const CSV = 'name,visits\nFerry Building,10\nCoit Tower,4\n';

describe.each(STORES)('dataset ingestion on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const call = (method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: body, headers: { authorization: cast.tokens.owner, ...headers } });
  const storageKeyOf = async (id: string) =>
    ((await s.services.db.selectFrom('resources').select('attrs').where('id', '=', id).executeTakeFirstOrThrow()).attrs as { storageKey: string }).storageKey;

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('records the media type without its parameters, when the data came, and how many rows', async () => {
    const before = Date.now();
    const res = await call('POST', '/v1/datasets/data?name=Typed', CSV, { 'content-type': 'text/csv; charset=utf-8' });
    expect(res.statusCode).toBe(201);
    const { metadata, status } = res.json().item;
    expect([status, metadata.contentType, metadata.rowCount, metadata.errorMessage]).toEqual(['ready', 'text/csv', 2, null]);
    expect(new Date(metadata.ingestedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('frees the data a replacement replaced, and its Arrow copy, once the new data is ready', async () => {
    const made = (await call('POST', '/v1/datasets/data?name=Replaced', CSV, { 'content-type': 'text/csv' })).json().item;
    const first = await storageKeyOf(made.id);
    await expect.poll(() => s.services.engine.store.exists(arrowCopyKey(first)), { timeout: 15_000 }).toBe(true);
    const replaced = await call('PUT', `/v1/datasets/${made.id}/data`, 'name,visits\nAlcatraz,99\n', { 'content-type': 'text/csv' });
    expect([replaced.statusCode, replaced.json().item.metadata.rowCount]).toEqual([200, 1]);
    const second = await storageKeyOf(made.id);
    expect(second).not.toBe(first);
    expect([await s.services.engine.store.exists(first), await s.services.engine.store.exists(arrowCopyKey(first)), await s.services.engine.store.exists(second)]).toEqual([false, false, true]);
    expect((await call('GET', `/v1/datasets/${made.id}/data`)).body).toContain('Alcatraz');
  });

  it.each([
    ['identity', 201],
    ['IDENTITY', 201],
    ['br', 422],
  ])('takes content encoding %s as it should', async (encoding, status) => {
    const res = await call('POST', `/v1/datasets/data?name=${encoding}`, CSV, { 'content-type': 'text/csv', 'content-encoding': encoding });
    expect(res.statusCode).toBe(status);
    if (status === 422) expect(res.json().message).toBe(`Unsupported content encoding ${encoding}`);
  });
});
