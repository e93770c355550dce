import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * #12: six small mistakes in important lines that the suite used to let through (each was applied as a
 * mutation and every test stayed green). Each case below is what a user would notice; each fails with
 * its mutation applied (docs/mutation-testing.md lists each mutation and its run).
 */
describe.each(STORES)('mistakes a user would notice, on %s', (kind) => {
  const { ctx, as, create } = useStudio(kind);
  const csv = (rows: number) => `name,value\n${Array.from({ length: rows }, (_, i) => `row${i},${i}`).join('\n')}\n`;
  const upload = async (name: string, body: string) => {
    const res = await as('owner', 'POST', `/v1/datasets/data?name=${encodeURIComponent(name)}`, body, { 'content-type': 'text/csv' });
    expect(res.statusCode).toBe(201);
    return res.json().item as { id: string; status: string };
  };
  const rowsOf = async (id: string) => (await as('owner', 'POST', '/v1/data-queries/json', { query: `select count(*)::int as n from "${id}"` })).json().items[0].n as number;

  // services/auth.ts signOut: without deleting the session, a signed-out token keeps working.
  it('a signed-out token stops working', async () => {
    const token = await ctx.s.tokenOf('owner@acme.test');
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: token } })).statusCode).toBe(200);
    expect((await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-out', headers: { authorization: token } })).statusCode).toBe(204);
    const after = await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: token } });
    expect([after.statusCode, after.json().message]).toEqual([401, 'Session is invalid or expired']);
  });

  // services/records.ts acquireLock: without the expiry condition nobody can take over a lock left to run out.
  it('another editor takes over an edit lock that ran out, but not one that holds', async () => {
    const map = await create('/v1/maps', { name: 'Shared map' });
    expect((await as('owner', 'POST', `/v1/maps/${map.id}/share`, { emails: [{ email: 'editor@globex.test', role: 'editor' }] })).statusCode).toBeLessThan(300);
    const open = (who: 'owner' | 'editor') => as(who, 'GET', `/v1/maps/${map.id}?acquireLock=true`);
    expect((await open('owner')).json().item.lock.ownerId).toBe(ctx.cast.users.owner.id);
    expect((await open('editor')).json().item.lock.ownerId).toBe(ctx.cast.users.owner.id);
    // The owner closed the tab: the lock runs out (its expiry moved to the past instead of waiting for it).
    await ctx.s.services.db.updateTable('resources').set({ lock_expires_at: new Date(Date.now() - 1000) }).where('id', '=', map.id).execute();
    expect((await open('editor')).json().item.lock.ownerId).toBe(ctx.cast.users.editor.id);
  });

  // routes/datasets.ts workbench: a `"` in a dataset's name must be escaped in the table reference.
  it('copies a dataset named with a double quote through the workbench', async () => {
    const source = await upload('Stores "2024"', csv(3));
    const target = await upload('Target', csv(1));
    const res = await as('owner', 'POST', `/v1/datasets/${target.id}/workbench`, { tableName: 'Stores "2024"' });
    expect([res.statusCode, res.json().item.metadata.rowCount]).toEqual([200, 3]);
    expect(source.status).toBe('ready');
  });

  // services/datasets.ts ingestWith: without the 409 guard, two ingestions race on one dataset.
  it('refuses a second upload while the first is still arriving, and keeps the first', async () => {
    const created = await as('owner', 'POST', '/v1/datasets', { name: 'Raced', contentType: 'text/csv' });
    const { id, signedPostPolicy: policy } = created.json().item as { id: string; signedPostPolicy: { fields: { policy: string; signature: string } } };
    const viaPolicy = (payload: string | PassThrough) =>
      ctx.s.app.inject({ method: 'POST', url: `/v1/uploads?policy=${policy.fields.policy}&signature=${policy.fields.signature}`, payload, headers: { 'content-type': 'text/csv' } });
    const slow = new PassThrough();
    slow.write('name,value\n');
    const first = viaPolicy(slow);
    // Wait for what a user would see: the dataset pending.
    const status = async () => ((await as('owner', 'GET', `/v1/datasets/${id}`)).json().item.status as string);
    while ((await status()) !== 'pending') await new Promise((r) => setImmediate(r));
    const second = await viaPolicy(csv(50));
    expect([second.statusCode, second.json().message]).toEqual([409, 'Record is not upload-ready']);
    slow.end('a,1\nb,2\n');
    expect((await first).statusCode).toBe(200);
    expect([await status(), await rowsOf(id)]).toEqual(['ready', 2]);
  });

  // services/quota.ts: `every` viewer, not `some`: a maker somewhere may create.
  it('lets a maker who is a viewer in another organization create, and stops a viewer everywhere', async () => {
    const { owner } = ctx.cast.users;
    await ctx.s.services.db.insertInto('memberships').values({ user_id: owner.id, organization_id: ctx.cast.otherOrg.id, role: 'viewer', seat: 'standard' }).execute();
    ctx.s.services.auth.forget();
    expect((await as('owner', 'POST', '/v1/maps', { name: 'Made by a maker' })).statusCode).toBe(201);
    const viewer = await as('colleague', 'POST', '/v1/maps', { name: 'Made by a viewer' });
    expect(viewer.statusCode).toBe(403);
  });

  // services/records.ts list: the tag filter must filter.
  it('lists only the maps carrying a tag when filtered by it', async () => {
    const tagged = await create('/v1/maps', { name: 'Tagged map' });
    await create('/v1/maps', { name: 'Untagged map' });
    const tag = await create('/v1/tags', { name: 'Quarterly' });
    expect((await as('owner', 'POST', `/v1/tags/${tag.id}/map/${tagged.id}`)).statusCode).toBeLessThan(300);
    const list = await as('owner', 'GET', `/v1/maps?tag=${tag.id}`);
    expect(list.json().items.map((m: { name: string }) => m.name)).toEqual(['Tagged map']);
    const all = await as('owner', 'GET', '/v1/maps');
    expect(all.json().items.length).toBeGreaterThan(1);
  });
});
