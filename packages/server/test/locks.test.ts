import { describe, expect, it } from 'vitest';
import { LOCK_TTL_SECONDS } from '@studio/schema';
import { STORES, useStudio } from './harness';

/**
 * Edit locks as users meet them (#15): a lock is held by one browser tab (its x-studio-tab header) in one
 * session; the same user's other tab sees it held and may take it over; closing the tab (DELETE) or
 * signing out releases it; nobody else takes a live lock; API clients (no tab) act as their user.
 */
const STATE = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.78, longitude: -122.4, zoom: 11 } } };
const TAB_A = 'tab-aaaa-1111';
const TAB_B = 'tab-bbbb-2222';

describe.each(STORES)('edit locks on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  /** Moves a lock's end into the past, as if its holder left it to run out. */
  const runOut = (id: string) => ctx.s.services.db.updateTable('resources').set({ lock_expires_at: new Date(Date.now() - 1000) }).where('id', '=', id).execute();
  const tab = (id: string) => ({ 'x-studio-tab': id });
  const open = async (mapId: string, tabId: string, extra = '') => (await as('owner', 'GET', `/v1/maps/${mapId}?acquireLock=true${extra}`, undefined, tab(tabId))).json().item;
  const save = (mapId: string, tabId: string, name: string) => as('owner', 'PUT', `/v1/maps/${mapId}?acquireLock=true`, { name }, tab(tabId));
  const newMap = () => create('/v1/maps', { name: 'Harbour', latestState: STATE });
  const shareForEditing = async (id: string) => {
    const res = await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: id, role: 'editor', email: 'editor@globex.test' });
    expect(res.statusCode).toBe(201);
  };

  it("keeps a lock in the tab that took it; the user's other tab reads, is refused a save, and may take it over", async () => {
    const { id } = await newMap();
    expect((await open(id, TAB_A)).lock).toMatchObject({ ownerId: ctx.cast.users.owner.id, tabId: TAB_A });
    expect((await open(id, TAB_B)).lock.tabId).toBe(TAB_A);
    const refused = await save(id, TAB_B, 'From B');
    expect([refused.statusCode, refused.json().message, refused.json().details]).toEqual([409, 'You are editing this map in another tab', 'Take over the edit lock to save from here']);
    expect((await save(id, TAB_A, 'From A')).statusCode).toBe(200);
    expect((await open(id, TAB_B, '&takeOver=true')).lock.tabId).toBe(TAB_B);
    expect((await save(id, TAB_A, 'From A again')).statusCode).toBe(409);
    expect((await save(id, TAB_B, 'From B')).json().item.name).toBe('From B');
  });

  it('lets an API client (no tab) save as its user, and nobody else take a live lock, even asking to', async () => {
    const { id } = await newMap();
    await open(id, TAB_A);
    expect((await as('owner', 'PUT', `/v1/maps/${id}`, { name: 'From a script' })).statusCode).toBe(200);
    await shareForEditing(id);
    const taken = (await as('editor', 'GET', `/v1/maps/${id}?acquireLock=true&takeOver=true`, undefined, tab(TAB_B))).json().item;
    expect(taken.lock).toMatchObject({ ownerId: ctx.cast.users.owner.id, tabId: TAB_A });
    const refused = await as('editor', 'PUT', `/v1/maps/${id}`, { name: 'Mine now' }, tab(TAB_B));
    expect([refused.statusCode, refused.json().message]).toEqual([409, `This map is being edited by ${ctx.cast.users.owner.name} (owner@acme.test)`]);
  });

  it("releases a tab's lock when it closes; another user's release is refused naming the holder", async () => {
    const { id } = await newMap();
    await open(id, TAB_A);
    await shareForEditing(id);
    const other = await as('editor', 'DELETE', `/v1/locks/map/${id}`);
    expect([other.statusCode, other.json().message]).toEqual([409, `This map is being edited by ${ctx.cast.users.owner.name} (owner@acme.test)`]);
    expect((await as('owner', 'DELETE', `/v1/locks/map/${id}`, undefined, tab(TAB_A))).statusCode).toBe(204);
    expect((await as('owner', 'GET', `/v1/maps/${id}`)).json().item.lock).toBeNull();
    // Now free: the editor takes it.
    expect((await as('editor', 'GET', `/v1/maps/${id}?acquireLock=true`, undefined, tab(TAB_B))).json().item.lock).toMatchObject({ ownerId: ctx.cast.users.editor.id, tabId: TAB_B });
  });

  it("releases the locks of a session when it signs out, not those of the user's other sessions", async () => {
    const [first, second] = [await newMap(), await newMap()];
    // A second session of the same user (another device): its locks go when it signs out.
    const laptop = await ctx.s.tokenOf('owner@acme.test');
    await ctx.s.app.inject({ method: 'GET', url: `/v1/maps/${first.id}?acquireLock=true`, headers: { authorization: laptop, ...tab(TAB_A) } });
    await open(second.id, TAB_B);
    const out = await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-out', headers: { authorization: laptop } });
    expect(out.statusCode).toBeLessThan(300);
    expect((await as('owner', 'GET', `/v1/maps/${first.id}`)).json().item.lock).toBeNull();
    expect((await as('owner', 'GET', `/v1/maps/${second.id}`)).json().item.lock).toMatchObject({ tabId: TAB_B });
  });

  it('refuses a tab id that is not one', async () => {
    const { id } = await newMap();
    const res = await as('owner', 'GET', `/v1/maps/${id}?acquireLock=true`, undefined, tab('not a tab; drop table'));
    expect([res.statusCode, res.json().message]).toEqual([422, 'Invalid x-studio-tab header']);
  });

  it("gives a lock an administrator hands over to the new holder's every tab", async () => {
    const { id } = await newMap();
    await open(id, TAB_A);
    await shareForEditing(id);
    expect((await as('admin', 'PUT', `/v1/locks/map/${id}/owner?isAdmin=true`, { ownerId: ctx.cast.users.editor.id })).statusCode).toBe(200);
    const held = (await as('editor', 'GET', `/v1/maps/${id}?acquireLock=true`, undefined, tab(TAB_B))).json().item.lock;
    expect(held).toMatchObject({ ownerId: ctx.cast.users.editor.id, tabId: TAB_B });
    expect((await save(id, TAB_A, 'Owner again')).statusCode).toBe(409);
  });

  it('tells when a lock was taken and until when it holds; a lock that ran out shows as none and blocks nobody', async () => {
    const { id } = await newMap();
    const before = Date.now();
    const lock = (await open(id, TAB_A)).lock;
    const taken = Date.parse(lock.acquiredAt);
    expect(taken).toBeGreaterThanOrEqual(before - 1000);
    expect(taken).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(lock.expiresAt) - taken).toBe(LOCK_TTL_SECONDS * 1000);
    await shareForEditing(id);
    const refused = await as('editor', 'PUT', `/v1/maps/${id}`, { name: 'Not yet' }, tab(TAB_B));
    expect([refused.statusCode, refused.json().details]).toEqual([409, `Locked until ${lock.expiresAt}`]);
    await runOut(id);
    expect((await as('owner', 'GET', `/v1/maps/${id}`)).json().item.lock).toBeNull();
    // Nothing stands in the editor's way now.
    const saved = await as('editor', 'PUT', `/v1/maps/${id}`, { name: 'After the lock ran out' }, tab(TAB_B));
    expect(saved.statusCode, saved.body).toBe(200);
  });

  it("refuses to delete a record someone else is editing, naming them", async () => {
    const { id } = await newMap();
    await shareForEditing(id);
    expect((await as('editor', 'GET', `/v1/maps/${id}?acquireLock=true`, undefined, tab(TAB_B))).json().item.lock).toMatchObject({ ownerId: ctx.cast.users.editor.id });
    const refused = await as('owner', 'DELETE', `/v1/maps/${id}`);
    expect([refused.statusCode, refused.json().message]).toEqual([409, `This map is being edited by ${ctx.cast.users.editor.name} (editor@globex.test)`]);
    expect((await as('owner', 'GET', `/v1/maps/${id}`)).statusCode).toBe(200);
  });

  it("lets a lock taken by the user's script (no tab) be saved from the user's browser tab, and the script take back a tab's lock", async () => {
    const { id } = await newMap();
    expect((await as('owner', 'GET', `/v1/maps/${id}?acquireLock=true`)).json().item.lock).toMatchObject({ tabId: null });
    expect((await save(id, TAB_A, 'From the browser')).statusCode).toBe(200);
    expect((await open(id, TAB_A)).lock.tabId).toBe(TAB_A);
    const script = (await as('owner', 'GET', `/v1/maps/${id}?acquireLock=true`)).json().item.lock;
    expect(script).toMatchObject({ ownerId: ctx.cast.users.owner.id, tabId: null });
  });
});
