import { describe, expect, it } from 'vitest';
import { createUser } from '../src/services/users';
import { PASSWORD, STORES, useStudio } from './harness';

/**
 * What each list shows and what an edit keeps (services/records.ts), as the people of the cast see it.
 * Written from the mutants the locks-and-lists module's Stryker run left alive (docs/mutation-testing.md).
 */
describe.each(STORES)('record lists and edits on %s', (kind) => {
  const { ctx, as, create, rowOf } = useStudio(kind);
  const ids = (res: { json: () => { items: { id: string }[] } }) => res.json().items.map((m) => m.id);

  it("a map names what is attached to it in its own place: datasets, map styles and color palettes, each only its kind", async () => {
    const map = await create('/v1/maps', { name: 'Attachments' });
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=stores', 'name,lat,lng\nA,1,2\n', { 'content-type': 'text/csv' })).json().item;
    const style = await create('/v1/map-assets', { assetType: 'map-style', name: 'Night', style: { version: 8, sources: {}, layers: [] } });
    const palette = await create('/v1/map-assets', { assetType: 'color-palette', name: 'Warm', palette: { type: 'qualitative', colors: ['#ff0000', '#00ff00'] } });
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/datasets/${dataset.id}`)).statusCode).toBeLessThan(300);
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/map-assets/${style.id}`)).statusCode).toBeLessThan(300);
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/map-assets/${palette.id}`)).statusCode).toBeLessThan(300);
    const got = (await as('owner', 'GET', `/v1/maps/${map.id}`)).json().item;
    expect(got.datasets).toEqual([{ id: dataset.id, name: 'stores' }]);
    expect(got.mapAssets).toEqual({ mapStyles: [{ id: style.id, name: 'Night' }], colorPalettes: [{ id: palette.id, name: 'Warm' }] });
    // The list answers the same.
    const listed = (await as('owner', 'GET', '/v1/maps')).json().items.find((m: { id: string }) => m.id === map.id);
    expect([listed.datasets, listed.mapAssets]).toEqual([got.datasets, got.mapAssets]);
  });

  it("a record shared with the owner's organization is in its members' shared list, as viewer; an administrator's full list (isAdmin) holds everyone's, as admin", async () => {
    const map = await create('/v1/maps', { name: 'For Acme' });
    const grant = await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: map.id, organizationId: ctx.cast.org.id, role: 'viewer' });
    expect(grant.statusCode, grant.body).toBeLessThan(300);
    const shared = (await as('colleague', 'GET', '/v1/maps/shared-with-user')).json().items.find((m: { id: string }) => m.id === map.id);
    expect(shared?.access).toBe('viewer');
    expect(ids(await as('editor', 'GET', '/v1/maps/shared-with-user'))).not.toContain(map.id);
    const all = (await as('admin', 'GET', '/v1/maps?isAdmin=true&limit=100')).json().items;
    expect(all.find((m: { id: string }) => m.id === map.id)?.access).toBe('admin');
    // Without isAdmin, an administrator lists their own records like anyone.
    expect(ids(await as('admin', 'GET', '/v1/maps?limit=100'))).not.toContain(map.id);
  });

  it('search matches % and _ as themselves, not as wildcards', async () => {
    const percent = await create('/v1/maps', { name: 'Growth 50% stores' });
    const underscore = await create('/v1/maps', { name: 'north_east' });
    const decoy = await create('/v1/maps', { name: 'Growth 500 stores northXeast' });
    const found = ids(await as('owner', 'GET', `/v1/maps?search=${encodeURIComponent('50%')}`));
    expect(found).toContain(percent.id);
    expect(found).not.toContain(decoy.id);
    const under = ids(await as('owner', 'GET', `/v1/maps?search=${encodeURIComponent('h_e')}`));
    expect(under).toEqual([underscore.id]);
  });

  it('a page past the last still tells the total; pages do not overlap', async () => {
    for (const n of [1, 2, 3]) await create('/v1/maps', { name: `Paged ${n}` });
    const all = (await as('owner', 'GET', '/v1/maps?search=Paged&sortBy=name&sortOrder=asc')).json();
    expect(all.total).toBe(3);
    const first = (await as('owner', 'GET', '/v1/maps?search=Paged&sortBy=name&sortOrder=asc&limit=2')).json();
    const second = (await as('owner', 'GET', '/v1/maps?search=Paged&sortBy=name&sortOrder=asc&limit=2&offset=2')).json();
    expect([...first.items, ...second.items].map((m: { name: string }) => m.name)).toEqual(['Paged 1', 'Paged 2', 'Paged 3']);
    const past = (await as('owner', 'GET', '/v1/maps?search=Paged&limit=2&offset=10')).json();
    expect(past).toEqual({ items: [], total: 3 });
  });

  it('the organization list leaves samples out; the samples list has only samples, read-only for everyone, their owner included', async () => {
    const mine = await create('/v1/maps', { name: 'Org map' });
    const sample = await create('/v1/maps', { name: 'Sample harbor' });
    await ctx.s.services.db.updateTable('resources').set({ is_sample: true, visibility: 'public_read' }).where('id', '=', sample.id).execute();
    const org = ids(await as('colleague', 'GET', '/v1/maps/for-organization'));
    expect(org).toContain(mine.id);
    expect(org).not.toContain(sample.id);
    const samples = (await as('viewer', 'GET', '/v1/maps/samples')).json().items;
    expect(samples.map((m: { id: string }) => m.id)).toEqual([sample.id]);
    expect(samples[0].access).toBe('viewer');
    expect((await as('owner', 'GET', '/v1/maps/samples')).json().items[0].access).toBe('viewer');
  });

  it('a shared list answers each record with the role it was shared with', async () => {
    const asEditor = await create('/v1/maps', { name: 'Edit me' });
    const asViewer = await create('/v1/maps', { name: 'Look at me' });
    await as('owner', 'POST', `/v1/maps/${asEditor.id}/share`, { emails: [{ email: 'editor@globex.test', role: 'editor' }] });
    await as('owner', 'POST', `/v1/maps/${asViewer.id}/share`, { emails: [{ email: 'editor@globex.test', role: 'viewer' }] });
    const shared = (await as('editor', 'GET', '/v1/maps/shared-with-user')).json().items;
    const access = Object.fromEntries(shared.map((m: { id: string; access: string }) => [m.id, m.access]));
    expect(access[asEditor.id]).toBe('editor');
    expect(access[asViewer.id]).toBe('viewer');
    // The owner's own records are not "shared with" them.
    expect(ids(await as('owner', 'GET', '/v1/maps/shared-with-user'))).not.toContain(asEditor.id);
  });

  it('an edit changes what it names and keeps the rest; a new record is private, not a sample, unlocked', async () => {
    const created = await create('/v1/maps', { name: 'Kept', description: 'as written', latestState: { a: 1 } });
    expect(created).toMatchObject({ visibility: 'private', isSample: false, lock: null });
    const renamed = (await as('owner', 'PUT', `/v1/maps/${created.id}`, { name: 'Renamed' })).json().item;
    expect(renamed).toMatchObject({ name: 'Renamed', description: 'as written', latestState: { a: 1 } });
    const described = (await as('owner', 'PUT', `/v1/maps/${created.id}`, { description: 'new words' })).json().item;
    expect(described).toMatchObject({ name: 'Renamed', description: 'new words', latestState: { a: 1 } });
    const restated = (await as('owner', 'PUT', `/v1/maps/${created.id}`, { latestState: { b: 2 } })).json().item;
    expect(restated).toMatchObject({ name: 'Renamed', description: 'new words', latestState: { b: 2 } });
  });

  it('a clone of a sample (by any maker who reads it) is not a sample, private, with the same state; a viewer seat may not copy', async () => {
    const sample = await create('/v1/maps', { name: 'Sample clone source', latestState: { s: 1 } });
    await ctx.s.services.db.updateTable('resources').set({ is_sample: true, visibility: 'public_read' }).where('id', '=', sample.id).execute();
    const refused = await as('colleague', 'POST', `/v1/maps/${sample.id}/clone`);
    expect([refused.statusCode, refused.json().message]).toEqual([403, 'Viewers cannot create records; ask an administrator for a maker seat']);
    // A maker of another organization duplicates it (samples are everyone's to start from).
    expect((await as('viewer', 'POST', `/v1/maps/${sample.id}/clone`)).statusCode).toBe(201);
    const res = await as('owner', 'POST', `/v1/maps/${sample.id}/clone`);
    expect(res.statusCode, res.body).toBe(201);
    const copy = res.json().item;
    expect(copy).toMatchObject({ name: 'Copy of Sample clone source', isSample: false, latestState: { s: 1 }, access: 'owner', visibility: 'private' });
    expect(ids(await as('owner', 'GET', '/v1/maps'))).toContain(copy.id);
    expect(ids(await as('viewer', 'GET', '/v1/maps/samples'))).not.toContain(copy.id);
  });

  it('someone granted two roles on a record (by address and through their organization) works with the higher, whichever came first', async () => {
    const viewerFirst = await create('/v1/maps', { name: 'Viewer first' });
    const editorFirst = await create('/v1/maps', { name: 'Editor first' });
    const shareWith = (id: string, body: object) => as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: id, ...body });
    const byAddress = { email: 'colleague@acme.test', role: 'viewer' };
    const byOrganization = () => ({ organizationId: ctx.cast.org.id, role: 'editor' });
    for (const res of [await shareWith(viewerFirst.id, byAddress), await shareWith(viewerFirst.id, byOrganization())]) expect(res.statusCode, res.body).toBeLessThan(300);
    for (const res of [await shareWith(editorFirst.id, byOrganization()), await shareWith(editorFirst.id, byAddress)]) expect(res.statusCode, res.body).toBeLessThan(300);
    const shared = (await as('colleague', 'GET', '/v1/maps/shared-with-user')).json().items;
    const access = Object.fromEntries(shared.map((m: { id: string; access: string }) => [m.id, m.access]));
    expect([access[viewerFirst.id], access[editorFirst.id]]).toEqual(['editor', 'editor']);
  });

  it("a listed record shows its tags (by name) apart from what is attached to it", async () => {
    const map = await create('/v1/maps', { name: 'Tagged and linked' });
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=linked', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/datasets/${dataset.id}`)).statusCode).toBeLessThan(300);
    for (const name of ['zeta', 'alpha']) expect((await as('owner', 'POST', '/v1/tags', { name, resourceId: map.id, resourceType: 'map' })).statusCode).toBe(201);
    const listed = (await as('owner', 'GET', '/v1/maps?search=Tagged')).json().items[0];
    expect(listed.tags.map((t: { name: string }) => t.name)).toEqual(['alpha', 'zeta']);
    expect(listed.datasets).toEqual([{ id: dataset.id, name: 'linked' }]);
  });

  it('a record read alone, and each map that uses a dataset, shows its own tags (by name, with their colours) apart from what is attached', async () => {
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=used', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    const first = await create('/v1/maps', { name: 'Uses it first' });
    const second = await create('/v1/maps', { name: 'Uses it second' });
    for (const map of [first, second]) expect((await as('owner', 'POST', `/v1/maps/${map.id}/datasets/${dataset.id}`)).statusCode).toBeLessThan(300);
    const tag = async (map: { id: string }, name: string, color: string) => expect((await as('owner', 'POST', '/v1/tags', { name, color, resourceId: map.id, resourceType: 'map' })).statusCode).toBe(201);
    await tag(first, 'zeta', '#aa0000');
    await tag(first, 'alpha', '#00aa00');
    await tag(second, 'beta', '#0000aa');
    const tagsOf = (item: { tags: { name: string; color: string }[] }) => item.tags.map((t) => [t.name, t.color]);
    const alone = (await as('owner', 'GET', `/v1/maps/${first.id}`)).json().item;
    expect(tagsOf(alone)).toEqual([['alpha', '#00aa00'], ['zeta', '#aa0000']]);
    expect(alone.datasets).toEqual([{ id: dataset.id, name: 'used' }]);
    // Several records answered together (the maps using the dataset): each keeps its own.
    const using = (await as('owner', 'GET', `/v1/datasets/${dataset.id}/maps`)).json().items as { id: string; tags: { name: string; color: string }[]; datasets: unknown[] }[];
    const byId = new Map(using.map((m) => [m.id, m]));
    expect([tagsOf(byId.get(first.id)!), tagsOf(byId.get(second.id)!)]).toEqual([[['alpha', '#00aa00'], ['zeta', '#aa0000']], [['beta', '#0000aa']]]);
    expect([byId.get(first.id)!.datasets, byId.get(second.id)!.datasets]).toEqual([[{ id: dataset.id, name: 'used' }], [{ id: dataset.id, name: 'used' }]]);
  });

  it("the organization list answers each record with the caller's standing: their own as owner, one shared with them as editor, a colleague's as viewer", async () => {
    const own = await create('/v1/maps', { name: 'Org standing: own' });
    const sharedToMe = (await as('admin', 'POST', '/v1/maps', { name: 'Org standing: shared' })).json().item;
    const colleagues = (await as('admin', 'POST', '/v1/maps', { name: 'Org standing: colleague' })).json().item;
    await as('admin', 'POST', `/v1/maps/${sharedToMe.id}/share`, { emails: [{ email: 'owner@acme.test', role: 'editor' }] });
    const listed = (await as('owner', 'GET', '/v1/maps/for-organization?search=Org%20standing&limit=100')).json().items as { id: string; access: string }[];
    const access = Object.fromEntries(listed.map((m) => [m.id, m.access]));
    expect([access[own.id], access[sharedToMe.id], access[colleagues.id]]).toEqual(['owner', 'editor', 'viewer']);
  });

  it('someone in no organization lists what was shared with them by address', async () => {
    await createUser(ctx.s.services.db, { email: 'no.org.lists@example.test', password: PASSWORD, organizationId: null });
    const token = await ctx.s.tokenOf('no.org.lists@example.test');
    const map = await create('/v1/maps', { name: 'For someone without an organization' });
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'no.org.lists@example.test', role: 'viewer' }] });
    const res = await ctx.s.app.inject({ method: 'GET', url: '/v1/maps/shared-with-user', headers: { authorization: token } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((m: { id: string; access: string }) => [m.id, m.access])).toEqual([[map.id, 'viewer']]);
    // And finds it by a word of its name.
    const found = await ctx.s.app.inject({ method: 'GET', url: '/v1/search?q=without', headers: { authorization: token } });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().items.flatMap((g: { items: { id: string }[] }) => g.items.map((i) => i.id))).toEqual([map.id]);
  });

  it("a save naming the map's datasets replaces them and keeps its map styles", async () => {
    const csv = (name: string) => as('owner', 'POST', `/v1/datasets/data?name=${name}`, 'a\n1\n', { 'content-type': 'text/csv' }).then((r) => r.json().item);
    const [first, second] = [await csv('first'), await csv('second')];
    const map = await create('/v1/maps', { name: 'Relinked', datasets: [first.id] });
    const style = await create('/v1/map-assets', { assetType: 'map-style', name: 'Kept style', style: { version: 8, sources: {}, layers: [] } });
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/map-assets/${style.id}`)).statusCode).toBeLessThan(300);
    const saved = await as('owner', 'PUT', `/v1/maps/${map.id}`, { datasets: [second.id, second.id] });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().item.datasets).toEqual([{ id: second.id, name: 'second' }]);
    expect(saved.json().item.mapAssets.mapStyles).toEqual([{ id: style.id, name: 'Kept style' }]);
  });

  it('only an administrator in admin mode moves a record to another owner, and only to someone who exists', async () => {
    const map = await create('/v1/maps', { name: 'Handed on' });
    const colleagueId = ctx.cast.users.colleague.id;
    const refused = await as('owner', 'PUT', `/v1/maps/${map.id}`, { ownerId: colleagueId });
    expect([refused.statusCode, refused.json().message]).toEqual([403, 'Only administrators in admin mode can change the owner']);
    // Naming the owner it already has is no change, and allowed.
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { ownerId: ctx.cast.users.owner.id, name: 'Still mine' })).statusCode).toBe(200);
    const nobody = await as('admin', 'PUT', `/v1/maps/${map.id}?isAdmin=true`, { ownerId: '00000000-0000-4000-8000-000000000000' });
    expect([nobody.statusCode, nobody.json().message]).toEqual([404, 'New owner not found']);
    expect((await rowOf(map.id)).owner_id).toBe(ctx.cast.users.owner.id);
    const moved = await as('admin', 'PUT', `/v1/maps/${map.id}?isAdmin=true`, { ownerId: colleagueId });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await rowOf(map.id)).owner_id).toBe(colleagueId);
  });

  it("a copy keeps what it was made of — attached datasets, an asset's kind, an unsaved state — and fits a long name", async () => {
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=carried', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    const map = await create('/v1/maps', { name: 'x'.repeat(495), datasets: [dataset.id] });
    const copy = (await as('owner', 'POST', `/v1/maps/${map.id}/clone`)).json().item;
    expect(copy.name).toBe(`Copy of ${'x'.repeat(492)}`);
    expect(copy.datasets).toEqual([{ id: dataset.id, name: 'carried' }]);
    expect(copy.latestState).toBeNull();
    expect((await rowOf(copy.id)).latest_state).toBeNull();
    const palette = await create('/v1/map-assets', { assetType: 'color-palette', name: 'Cool', palette: { type: 'qualitative', colors: ['#0000ff', '#00ffff'] } });
    // Record kinds with attributes (a map asset's kind) keep them in the catalog's copy.
    const caller = (await ctx.s.services.auth.authenticate(ctx.cast.tokens.owner))!;
    const paletteCopy = await ctx.s.services.records.clone(caller, await rowOf(palette.id));
    expect([paletteCopy.name, paletteCopy.attrs]).toEqual(['Copy of Cool', (await rowOf(palette.id)).attrs]);
    expect(paletteCopy.attrs).toMatchObject({ assetType: 'color-palette' });
  });

  it('the catalog refuses to attach what does not exist or is not a dataset, naming it, and attaches a repeated id once', async () => {
    const caller = (await ctx.s.services.auth.authenticate(ctx.cast.tokens.owner))!;
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=once', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    const other = (await as('owner', 'POST', '/v1/datasets/data?name=twice', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    const aMap = await create('/v1/maps', { name: 'Not a dataset' });
    const missing = '00000000-0000-4000-8000-00000000abcd';
    for (const wrong of [missing, aMap.id]) {
      // Among several that exist, only the one that does not is named.
      const err = await ctx.s.services.records.create(caller, 'map', { name: 'Refused', description: '', datasets: [dataset.id, other.id, wrong] }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 404, message: 'Dataset not found', details: wrong });
    }
    const saved = await as('owner', 'PUT', `/v1/maps/${aMap.id}`, { datasets: [dataset.id, other.id, missing] });
    expect([saved.statusCode, saved.json().message]).toEqual([404, 'Dataset not found']);
    expect((await as('owner', 'GET', `/v1/maps/${aMap.id}`)).json().item.datasets).toEqual([]);
    const made = await ctx.s.services.records.create(caller, 'map', { name: 'Once', description: '', datasets: [dataset.id, dataset.id] });
    const links = await ctx.s.services.db.selectFrom('resource_links').select('linked_id').where('resource_id', '=', made.id).execute();
    expect(links).toEqual([{ linked_id: dataset.id }]);
  });

  it('a save naming where a map was imported from keeps it, and a save that does not name it leaves it', async () => {
    const map = await create('/v1/maps', { name: 'Imported' });
    expect((await as('owner', 'GET', `/v1/maps/${map.id}`)).json().item.importSource).toBeNull();
    const saved = await as('owner', 'PUT', `/v1/maps/${map.id}`, { importSource: 'kepler.gl' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().item.importSource).toBe('kepler.gl');
    expect((await as('owner', 'PUT', `/v1/maps/${map.id}`, { name: 'Imported, renamed' })).json().item).toMatchObject({ name: 'Imported, renamed', importSource: 'kepler.gl' });
  });

  it('detaching what is not attached answers 404 and changes nothing', async () => {
    const map = await create('/v1/maps', { name: 'Detach' });
    const dataset = (await as('owner', 'POST', '/v1/datasets/data?name=detached', 'a\n1\n', { 'content-type': 'text/csv' })).json().item;
    const res = await as('owner', 'DELETE', `/v1/maps/${map.id}/datasets/${dataset.id}`);
    expect([res.statusCode, res.json().message]).toEqual([404, 'Dataset is not attached']);
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/datasets/${dataset.id}`)).statusCode).toBeLessThan(300);
    expect((await as('owner', 'DELETE', `/v1/maps/${map.id}/datasets/${dataset.id}`)).statusCode).toBeLessThan(300);
    expect((await as('owner', 'GET', `/v1/maps/${map.id}`)).json().item.datasets).toEqual([]);
  });
});
