import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * "Ask for edit" (#50): someone who may edit a record another user is editing asks for the lock; the holder's
 * page polls and grants (the lock is handed over) or declines; the asker's page reads the answer. Requests
 * live in the catalog, so the holder's poll may reach any node.
 */
const TAB_A = 'tab-aaaa-1111';
const TAB_B = 'tab-bbbb-2222';

describe.each(STORES)('lock requests on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  const tab = (id: string) => ({ 'x-studio-tab': id });
  const openAs = async (who: 'owner' | 'editor', id: string, tabId: string) => (await as(who, 'GET', `/v1/maps/${id}?acquireLock=true`, undefined, tab(tabId))).json().item;
  /** A map the owner is editing in tab A, shared with the editor (and viewable by the viewer). */
  async function lockedMap() {
    const { id } = await create('/v1/maps', { name: 'Harbour' });
    for (const [email, role] of [['editor@globex.test', 'editor'], ['viewer@globex.test', 'viewer']]) {
      expect((await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: id, role, email })).statusCode).toBe(201);
    }
    await openAs('owner', id, TAB_A);
    return id;
  }
  const requests = (who: 'owner' | 'editor' | 'viewer', id: string) => as(who, 'GET', `/v1/locks/map/${id}/requests`);
  const answer = (who: 'owner' | 'editor', id: string, requestId: string, a: string) => as(who, 'POST', `/v1/locks/map/${id}/requests/${requestId}/answer`, { answer: a }, tab(TAB_A));

  it('lets the editor ask once, the holder see the request and grant it: the lock is the asker’s, who then saves', async () => {
    const id = await lockedMap();
    const asked = await as('editor', 'POST', `/v1/locks/map/${id}/requests`);
    expect(asked.statusCode, asked.body).toBe(201);
    const request = asked.json().item;
    expect(request).toMatchObject({ status: 'pending', requester: { id: ctx.cast.users.editor.id, email: 'editor@globex.test' }, answeredAt: null });
    // Asking again while the first waits is the first.
    expect((await as('editor', 'POST', `/v1/locks/map/${id}/requests`)).json().item.id).toBe(request.id);
    expect((await requests('owner', id)).json().items.map((r: { id: string }) => r.id)).toEqual([request.id]);

    // Only the holder answers.
    const notYours = await answer('editor', id, request.id, 'grant');
    expect([notYours.statusCode, notYours.json().message]).toEqual([403, 'Only the person editing this map can answer']);
    const granted = await answer('owner', id, request.id, 'grant');
    expect([granted.statusCode, granted.json().item.status]).toEqual([200, 'granted']);
    expect((await requests('editor', id)).json().items[0]).toMatchObject({ id: request.id, status: 'granted' });
    expect((await requests('owner', id)).statusCode).toBe(200);

    // The asker's page takes the lock from any tab and saves; the former holder's save is refused.
    expect((await openAs('editor', id, TAB_B)).lock).toMatchObject({ ownerId: ctx.cast.users.editor.id, tabId: TAB_B });
    expect((await as('editor', 'PUT', `/v1/maps/${id}?acquireLock=true`, { name: 'Editor’s turn' }, tab(TAB_B))).statusCode).toBe(200);
    expect((await as('owner', 'PUT', `/v1/maps/${id}?acquireLock=true`, { name: 'Mine' }, tab(TAB_A))).statusCode).toBe(409);
    const twice = await answer('editor', id, request.id, 'decline');
    expect([twice.statusCode, twice.json().message]).toEqual([409, 'This request was granted already']);
  });

  it('lets the holder decline, keeping the lock; the asker reads the answer and may ask again', async () => {
    const id = await lockedMap();
    const request = (await as('editor', 'POST', `/v1/locks/map/${id}/requests`)).json().item;
    expect((await answer('owner', id, request.id, 'decline')).json().item.status).toBe('declined');
    expect((await requests('owner', id)).json().items).toEqual([]);
    expect((await requests('editor', id)).json().items[0]).toMatchObject({ id: request.id, status: 'declined' });
    expect((await requests('viewer', id)).statusCode).toBe(403);
    expect((await as('owner', 'GET', `/v1/maps/${id}`)).json().item.lock.ownerId).toBe(ctx.cast.users.owner.id);
    const again = (await as('editor', 'POST', `/v1/locks/map/${id}/requests`)).json().item;
    expect(again.id).not.toBe(request.id);
  });

  it('refuses a request nobody can answer or nobody should make, changing nothing', async () => {
    const { id } = await create('/v1/maps', { name: 'Free' });
    const free = await as('owner', 'POST', `/v1/locks/map/${id}/requests`);
    expect([free.statusCode, free.json().message]).toEqual([409, 'Nobody is editing this map']);
    const locked = await lockedMap();
    const own = await as('owner', 'POST', `/v1/locks/map/${locked}/requests`);
    expect(own.statusCode).toBe(409);
    // A viewer may not edit, so may not ask; an outsider does not see the map.
    expect((await as('viewer', 'POST', `/v1/locks/map/${locked}/requests`)).statusCode).toBe(403);
    expect((await as('outsider', 'POST', `/v1/locks/map/${locked}/requests`)).statusCode).toBe(404);
    expect((await answer('owner', locked, '00000000-0000-4000-8000-000000000000', 'grant')).statusCode).toBe(404);
    const bad = await as('owner', 'POST', `/v1/locks/map/${locked}/requests/00000000-0000-4000-8000-000000000000/answer`, { answer: 'maybe' }, tab(TAB_A));
    expect(bad.statusCode).toBe(422);
    expect((await requests('owner', locked)).json().items).toEqual([]);
  });

  it('keeps when the lock was taken across renewals, so "editing since" is the first open', async () => {
    const id = await lockedMap();
    const first = (await as('owner', 'GET', `/v1/maps/${id}`)).json().item.lock;
    await new Promise((r) => setTimeout(r, 20));
    const renewed = (await openAs('owner', id, TAB_A)).lock;
    expect(renewed.acquiredAt).toBe(first.acquiredAt);
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt));
  });
});
