import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, seedCast, startStudio, type TestStudio } from './harness';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d1a1e10000000049454e44ae426082', 'hex');

describe.each(STORES)('records on %s', (kind) => {
  let s: TestStudio;
  let cast: Awaited<ReturnType<typeof seedCast>>;
  const as = (who: keyof typeof cast.tokens, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens[who], ...headers } });

  beforeAll(async () => {
    s = await startStudio(kind);
    cast = await seedCast(s);
  });
  afterAll(async () => s?.dispose());

  it('creates on first save and updates after, keeping latestState exactly', async () => {
    const state = { version: 'v1', config: { visState: { layers: [{ id: 'a', color: [1, 2, 3] }] }, mapState: { zoom: 9 } } };
    const created = await as('owner', 'POST', '/v1/maps', { name: 'Stores', latestState: state });
    expect(created.statusCode).toBe(201);
    const map = created.json().item;
    expect(map).toMatchObject({ name: 'Stores', access: 'owner', latestState: state, owner: { email: 'owner@acme.test' } });
    const updated = await as('owner', 'PUT', `/v1/maps/${map.id}`, { name: 'Stores v2' });
    expect(updated.json().item).toMatchObject({ name: 'Stores v2', latestState: state });
    const list = await as('owner', 'GET', '/v1/maps?search=v2');
    expect(list.json().items.map((m: { id: string }) => m.id)).toContain(map.id);
  });

  it.each([
    ['empty name', { name: '' }, 'Invalid request body: name: Name must not be empty'],
    ['name of wrong type', { name: 42 }, 'Invalid request body: name: Invalid input: expected string, received number'],
    ['unknown dataset', { datasets: ['00000000-0000-4000-8000-000000000000'] }, 'Dataset not found'],
  ])('refuses %s with 422/404 and changes nothing', async (_label, body, message) => {
    const before = (await as('owner', 'GET', '/v1/maps')).json().total;
    const res = await as('owner', 'POST', '/v1/maps', body);
    expect([422, 404]).toContain(res.statusCode);
    expect(res.json().message).toBe(message);
    expect((await as('owner', 'GET', '/v1/maps')).json().total).toBe(before);
  });

  it('takes the edit lock on load and refuses another editor, naming the holder', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Locked' })).json().item;
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'editor@globex.test', role: 'editor' }] });
    const loaded = await as('owner', 'GET', `/v1/maps/${map.id}?acquireLock=true`);
    expect(loaded.json().item.lock).toMatchObject({ ownerId: cast.users.owner.id, acquiredAt: expect.any(String), expiresAt: expect.any(String) });
    const refused = await as('editor', 'PUT', `/v1/maps/${map.id}`, { name: 'mine now' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe('This map is being edited by owner (owner@acme.test)');
    const handed = await as('owner', 'PUT', `/v1/locks/map/${map.id}/owner`, { ownerId: cast.users.editor.id });
    expect(handed.json().item.lock.ownerId).toBe(cast.users.editor.id);
    expect((await as('editor', 'PUT', `/v1/maps/${map.id}`, { name: 'mine now' })).statusCode).toBe(200);
  });

  it('shares with a user, an email and an organization; lists show what each may see', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Shared map' })).json().item;
    // Users of another organization are named by email; by id only an administrator (who sees everyone) can.
    const foreignById = await as('owner', 'POST', `/v1/maps/${map.id}/share`, { users: [{ userId: cast.users.viewer.id, role: 'viewer' }] });
    expect([foreignById.statusCode, foreignById.json().message]).toEqual([404, 'User not found']);
    await as('admin', 'POST', `/v1/maps/${map.id}/share?isAdmin=true`, { users: [{ userId: cast.users.viewer.id, role: 'viewer' }] });
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'Editor@Globex.test', role: 'editor' }] });
    const shared = (who: 'viewer' | 'editor' | 'outsider') => as(who, 'GET', '/v1/maps/shared-with-user').then((r) => r.json().items.map((m: { id: string; access: string }) => [m.id, m.access]));
    expect(await shared('viewer')).toContainEqual([map.id, 'viewer']);
    expect(await shared('editor')).toContainEqual([map.id, 'editor']);
    expect((await shared('outsider')).map((x: string[]) => x[0])).not.toContain(map.id);
    const colleague = await as('colleague', 'GET', '/v1/maps/for-organization');
    expect(colleague.json().items.map((m: { id: string }) => m.id)).toContain(map.id);
    const perms = (await as('owner', 'GET', `/v1/permissions/map/${map.id}`)).json().item;
    expect(perms.users).toEqual([expect.objectContaining({ userId: cast.users.viewer.id, role: 'viewer' })]);
    expect(perms.emails).toEqual([expect.objectContaining({ email: 'editor@globex.test', role: 'editor' })]);
    await as('owner', 'DELETE', `/v1/permissions/${perms.users[0].id}`);
    expect((await shared('viewer')).map((x: string[]) => x[0])).not.toContain(map.id);
  });

  it('clones into a private copy owned by the caller', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Original', latestState: { a: 1 } })).json().item;
    await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'viewer@globex.test', role: 'viewer' }] });
    const copy = await as('viewer', 'POST', `/v1/maps/${map.id}/clone`);
    expect(copy.statusCode).toBe(201);
    expect(copy.json().item).toMatchObject({ name: 'Copy of Original', ownerId: cast.users.viewer.id, latestState: { a: 1 }, access: 'owner' });
  });

  it('uploads a thumbnail through a signed policy, and refuses forged or expired ones', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Thumb' })).json().item;
    const policy = (await as('owner', 'POST', `/v1/maps/${map.id}/thumbnail`, { contentType: 'image/png' })).json().item;
    const upload = (fields: { policy: string; signature: string }, type = 'image/png') =>
      s.app.inject({ method: 'POST', url: `/v1/uploads?policy=${fields.policy}&signature=${fields.signature}`, payload: PNG, headers: { 'content-type': type } });
    const forged = await upload({ ...policy.fields, signature: policy.fields.signature.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) });
    expect([forged.statusCode, forged.json().message]).toEqual([403, 'Invalid upload policy signature']);
    const expired = s.services.policies.issue({ purpose: 'thumbnail', resourceId: map.id, contentType: 'image/png', maxBytes: 1000, ttlMs: -1 });
    expect((await upload(expired.fields)).json().message).toBe('Upload policy has expired');
    expect((await upload(policy.fields, 'image/gif')).json()).toMatchObject({ appStatusCode: 422, message: 'Unsupported content type', details: 'This policy accepts image/png' });
    expect((await upload(policy.fields)).statusCode).toBe(200);
    const thumb = await as('owner', 'GET', `/v1/maps/${map.id}/thumbnail`);
    expect([thumb.statusCode, thumb.headers['content-type'], thumb.rawPayload.equals(PNG)]).toEqual([200, 'image/png', true]);
    await as('owner', 'DELETE', `/v1/maps/${map.id}`);
    const late = await upload(policy.fields);
    expect([late.statusCode, late.json().message]).toEqual([409, 'Record is not upload-ready']);
  });

  it('accepts a PNG body on PUT /thumbnail as the kepler.gl cloud provider sends it', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Kepler', importSource: 'kepler.gl-raw' })).json().item;
    const res = await s.app.inject({ method: 'PUT', url: `/v1/maps/${map.id}/thumbnail`, payload: PNG, headers: { authorization: cast.tokens.owner, 'content-type': 'image/png' } });
    expect(res.json().item.thumbnailUrl).toMatch(`/v1/maps/${map.id}/thumbnail`);
    const list = await as('owner', 'GET', '/v1/maps?importSource=kepler.gl-raw');
    expect(list.json().items.map((m: { id: string }) => m.id)).toEqual([map.id]);
  });

  it('lets only administrators in admin mode change the owner', async () => {
    const map = (await as('owner', 'POST', '/v1/maps', { name: 'Transfer' })).json().item;
    const refused = await as('owner', 'PUT', `/v1/maps/${map.id}`, { ownerId: cast.users.viewer.id });
    expect([refused.statusCode, refused.json().message]).toEqual([403, 'Only administrators in admin mode can change the owner']);
    const done = await as('admin', 'PUT', `/v1/maps/${map.id}?isAdmin=true`, { ownerId: cast.users.viewer.id });
    expect(done.json().item.ownerId).toBe(cast.users.viewer.id);
    const audit = await as('admin', 'GET', `/v1/admin/audit-logs?resourceId=${map.id}`);
    expect(audit.json().items.map((a: { action: string }) => a.action)).toEqual(['map.transfer', 'map.create']);
  });

  it('answers dashboards and insights as one collection', async () => {
    const dash = (await as('owner', 'POST', '/v1/dashboards', { name: 'Dash' })).json().item;
    expect((await as('owner', 'GET', `/v1/insights/${dash.id}`)).json().item.name).toBe('Dash');
  });

  it('keeps organization viewers from creating and makers within quota', async () => {
    const viewer = await as('colleague', 'POST', '/v1/maps', { name: 'nope' });
    expect(viewer.statusCode).toBe(403);
    await s.services.db.updateTable('users').set({ quota_policy: 0 }).where('id', '=', cast.users.outsider.id).execute();
    s.services.auth.forget(cast.users.outsider.id);
    const over = await as('outsider', 'POST', '/v1/maps', { name: 'over' });
    expect([over.statusCode, over.json().message]).toEqual([402, 'Quota exceeded: your quota allows 0 records']);
  });
});
