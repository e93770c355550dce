import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { unstorableTextAt } from '../src/http/text-check';
import { STORES, useStudio } from './harness';

/** #11 item 5: text the catalog cannot store answers 422 before anything is written (it used to be a 500 after the write). */

describe('unstorable text', () => {
  it.each([
    ['plain text', 'Café ☕ 🗺️', null],
    ['a whole surrogate pair', '\ud83d\uddfa', null],
    ['NUL', 'a\u0000b', '(value)'],
    ['a lone high surrogate', '\ud83d', '(value)'],
    ['two high surrogates', '\ud83d\ud83d', '(value)'],
    ['a lone low surrogate', 'x\udc00', '(value)'],
    ['a nested value', { a: [{ b: 'ok' }, { c: 'x\u0000' }] }, 'a[1].c'],
    ['a key', { 'bad\ud800': 1 }, 'bad\ud800'],
  ])('%s', (_n, value, at) => expect(unstorableTextAt(value)).toBe(at));
});

describe.each(STORES)('unstorable text through the API on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const catalogVersion = async () => Number((await sql<{ version: string | number }>`select version from catalog_version`.execute(ctx.s.services.db)).rows[0]!.version);

  let mapId = '';
  it('keeps storing text with whole surrogate pairs', async () => {
    const res = await as('owner', 'POST', '/v1/maps', { name: 'Map 🗺️' });
    expect([res.statusCode, res.json().item.name]).toEqual([201, 'Map 🗺️']);
    mapId = res.json().item.id;
  });

  it.each([
    ['a tag named with two high surrogates', 'POST', () => '/v1/tags', { name: '\ud83d\ud83d' }, 'request body: name'],
    ['a map renamed with a lone surrogate', 'PUT', () => `/v1/maps/${mapId}`, { name: 'x\udc00' }, 'request body: name'],
    ['a map state holding NUL', 'PUT', () => `/v1/maps/${mapId}`, { latestState: { config: { title: 'a\u0000b' } } }, 'request body: latestState.config.title'],
    ['an upload named with NUL', 'POST', () => '/v1/datasets/data?name=%00x', 'a,b\n1,2\n', 'query parameters: name'],
  ])('refuses %s with 422 and writes nothing', async (_n, method, url, payload, where) => {
    const before = await catalogVersion();
    const res = await as('owner', method as 'POST', url(), payload as object);
    expect([res.statusCode, res.json().message]).toEqual([422, `Invalid ${where}: text must not contain NUL characters or unpaired UTF-16 surrogates`]);
    expect(await catalogVersion()).toBe(before);
  });

  // The failure that used to follow a kept write: the audit insert. A check constraint makes it fail on purpose.
  it.each([
    ['a new tag', 'POST', () => '/v1/tags', { name: 'Kept only with its audit record' }, 'tag.create'],
    ['a renamed map', 'PUT', () => `/v1/maps/${mapId}`, { name: 'Renamed without a trace' }, 'map.update'],
    ['a deleted map', 'DELETE', () => `/v1/maps/${mapId}`, undefined, 'map.delete'],
  ])('keeps nothing of %s when its audit record cannot be written', async (_n, method, url, payload, action) => {
    const db = ctx.s.services.db;
    const audited = async () => Number((await sql<{ n: string | number }>`select count(*) as n from audit_log`.execute(db)).rows[0]!.n);
    const [before, auditBefore] = [await catalogVersion(), await audited()];
    await sql.raw(`alter table audit_log add constraint audit_refused check (action <> '${action}')`).execute(db);
    try {
      const res = await as('owner', method as 'POST', url(), payload as object);
      expect(res.statusCode).toBe(500);
    } finally {
      await sql.raw('alter table audit_log drop constraint audit_refused').execute(db);
    }
    expect([await catalogVersion(), await audited()]).toEqual([before, auditBefore]);
    const map = await as('owner', 'GET', `/v1/maps/${mapId}`);
    expect([map.statusCode, map.json().item.name]).toEqual([200, 'Map 🗺️']);
    const tags = await as('owner', 'GET', '/v1/tags');
    expect(JSON.stringify(tags.json())).not.toContain('Kept only with its audit record');
  });
});
