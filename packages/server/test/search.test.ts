import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * The workspace search (`GET /v1/search?q=`): every kind at once, among the records the caller reads — their own,
 * those shared with them, their organization's — and never another organization's.
 */
describe.each(STORES)('workspace search (%s)', (store) => {
  const { ctx, as, create } = useStudio(store);
  const search = async (who: 'owner' | 'outsider' | 'colleague', q: string) => {
    const res = await as(who, 'GET', `/v1/search?q=${encodeURIComponent(q)}`);
    expect(res.statusCode).toBe(200);
    return (res.json().items as { kind: string; total: number; items: { name: string }[] }[]).map((g) => [g.kind, g.total, g.items.map((i) => i.name)]);
  };

  it('finds records of every kind by a word of their name, in any case, grouped by kind', async () => {
    await create('/v1/maps', { name: 'Harbor traffic' });
    await create('/v1/dashboards', { name: 'Weekly HARBOR report' });
    await create('/v1/workbooks', { name: 'Harbor cleanup' });
    await create('/v1/projects', { name: 'Harbor 2027' });
    await create('/v1/map-assets', { assetType: 'map-style', name: 'Harbor dark' });
    await create('/v1/map-assets', { assetType: 'color-palette', name: 'Harbor blues', palette: { type: 'qualitative', colors: ['#112233', '#445566'] } });
    await create('/v1/maps', { name: 'Rail freight' });
    expect(await search('owner', 'harbor')).toEqual([
      ['map', 1, ['Harbor traffic']],
      ['insight', 1, ['Weekly HARBOR report']],
      ['workbook', 1, ['Harbor cleanup']],
      ['project', 1, ['Harbor 2027']],
      ['map-style', 1, ['Harbor dark']],
      ['color-palette', 1, ['Harbor blues']],
    ]);
  });

  it("finds what is shared with the caller and their organization's records, never another organization's", async () => {
    const shared = await create('/v1/maps', { name: 'Quay shared' });
    await as('owner', 'POST', `/v1/maps/${shared.id}/share`, { users: [{ userId: ctx.cast.users.colleague.id, role: 'viewer' }] });
    await create('/v1/dashboards', { name: 'Quay private' });
    // The colleague (same organization) finds the shared map and the organization's dashboard; the outsider neither.
    expect(await search('colleague', 'quay')).toEqual([
      ['map', 1, ['Quay shared']],
      ['insight', 1, ['Quay private']],
    ]);
    expect(await search('outsider', 'quay')).toEqual([]);
    // Each found record carries what the caller may do with it: the owner's own, the colleague's share.
    const accessOf = async (who: 'owner' | 'colleague') =>
      ((await as(who, 'GET', '/v1/search?q=quay')).json().items as { kind: string; items: { name: string; access: string }[] }[]).find((g) => g.kind === 'map')!.items.map((i) => [i.name, i.access]);
    expect([await accessOf('owner'), await accessOf('colleague')]).toEqual([[['Quay shared', 'owner']], [['Quay shared', 'viewer']]]);
  });

  it('takes the words as text: % and _ match themselves', async () => {
    await create('/v1/maps', { name: 'Growth 100% plan' });
    await create('/v1/maps', { name: 'Growth 1000 plan' });
    expect(await search('owner', '100%')).toEqual([['map', 1, ['Growth 100% plan']]]);
  });

  it('answers each kind with its newest matches up to limit, and the total', async () => {
    for (const n of [1, 2, 3]) await create('/v1/maps', { name: `Pier ${n}` });
    const res = await as('owner', 'GET', '/v1/search?q=pier&limit=2');
    expect(res.json().items).toMatchObject([{ kind: 'map', total: 3, items: [{ name: 'Pier 3' }, { name: 'Pier 2' }] }]);
  });

  it.each([
    ['no words', '/v1/search?q=', 'Invalid query parameters: q: Type a word to search for'],
    ['a limit past 50', '/v1/search?q=x&limit=51', /Invalid query parameters: limit/],
  ])('refuses %s with 422', async (_label, url, message) => {
    const res = await as('owner', 'GET', url);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(message);
  });
});
