import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

describe.each(STORES)('administrators list published maps on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens, method: string, url: string, payload?: unknown) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who] } });
  const ids: string[] = [];

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
    for (const name of ['Quiet', 'Popular', 'Middling']) {
      const map = (await as('owner', 'POST', '/v1/maps', { name, latestState: { version: 'v1', config: {} } })).json().item;
      expect((await as('owner', 'POST', `/v1/maps/${map.id}/publish/map`, {})).statusCode).toBeLessThan(300);
      ids.push(map.id);
    }
    // Views: Quiet 0, Popular 3, Middling 1 (each anonymous open of the published map counts one).
    for (const [i, views] of [[1, 3], [2, 1]] as const) {
      for (let v = 0; v < views; v++) await s.app.inject({ method: 'GET', url: `/v1/maps/${ids[i]}/published-map` });
    }
  });
  afterAll(async () => s?.dispose());

  it('sorts by views by default and pages with count', async () => {
    const res = await as('admin', 'GET', '/v1/admin/maps/published');
    expect(res.json().items.map((m: { name: string; views: number }) => [m.name, m.views])).toEqual([['Popular', 3], ['Middling', 1], ['Quiet', 0]]);
    const page = await as('admin', 'GET', '/v1/admin/maps/published?count=1&offset=1');
    expect(page.json().items.map((m: { name: string }) => m.name)).toEqual(['Middling']);
    const byDate = await as('admin', 'GET', '/v1/admin/maps/published?sortBy=date');
    expect(byDate.json().items[0].name).toBe('Middling');
  });

  it("names each map's owner and visibility, and follows an owner change and a visibility change", async () => {
    const owners = async () => (await as('admin', 'GET', '/v1/admin/maps/published')).json().items.map((m: { name: string; ownerEmail: string; visibility: string }) => [m.name, m.ownerEmail, m.visibility]);
    expect(await owners()).toEqual([['Popular', 'owner@acme.test', 'private'], ['Middling', 'owner@acme.test', 'private'], ['Quiet', 'owner@acme.test', 'private']]);
    expect((await as('admin', 'PUT', `/v1/maps/${ids[1]}?isAdmin=true`, { ownerId: cast.users.colleague.id })).statusCode).toBe(200);
    expect((await as('admin', 'PUT', `/v1/admin/map/${ids[2]}/update-visibility`, { privacy: 'public_read' })).statusCode).toBe(200);
    expect(await owners()).toEqual([['Popular', 'colleague@acme.test', 'private'], ['Middling', 'owner@acme.test', 'public_read'], ['Quiet', 'owner@acme.test', 'private']]);
  });

  it('is for administrators only', async () => {
    const res = await as('owner', 'GET', '/v1/admin/maps/published');
    expect([res.statusCode, res.json().message]).toEqual([403, 'Administrators only']);
  });
});
