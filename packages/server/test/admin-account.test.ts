import { describe, expect, it } from 'vitest';
import { createUser } from '../src/services/users';
import { PASSWORD, STORES, useStudio } from './harness';

/**
 * What administrators and account holders do beyond the permission matrix (#12): quota policies and
 * their reconciliation, API keys, merging accounts, visibility, provisioning, bulk shares and seats.
 * Each case checks what the person affected would notice, and that a refused call changes nothing.
 */
describe.each(STORES)('administration and account calls, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const bearer = (token: string) => ({ authorization: token.startsWith('Bearer ') ? token : `Bearer ${token}` });
  const call = (token: string, method: string, url: string, payload?: unknown) =>
    ctx.s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: bearer(token) });
  /** A new account of its own for a case that changes the account (seat, quota, merge). */
  const person = async (email: string, org: 'org' | 'otherOrg' = 'org', role: 'maker' | 'viewer' = 'maker') => {
    const user = await createUser(ctx.s.services.db, { email, password: PASSWORD, organizationId: ctx.cast[org].id, role });
    return { id: user.id, token: await ctx.s.tokenOf(email) };
  };
  const newMap = async (token: string, name: string) => {
    const res = await call(token, 'POST', '/v1/maps', { name });
    expect(res.statusCode).toBe(201);
    return res.json().item.id as string;
  };
  const auditActions = async (action: string) =>
    (await ctx.s.services.db.selectFrom('audit_log').select('action').where('action', '=', action).execute()).length;

  describe('quota policies', () => {
    it('lists the named presets to administrators only', async () => {
      const res = await as('admin', 'GET', '/v1/quotapolicies');
      expect(res.json().items.map((p: { id: string; value: number }) => [p.id, p.value])).toEqual([['viewer', 0], ['maker', 100], ['power', 1000], ['unlimited', 65535]]);
      expect((await as('owner', 'GET', '/v1/quotapolicies')).statusCode).toBe(403);
    });

    it('stops a maker at the quota an administrator set, with 402, and lets them on when raised', async () => {
      const maker = await person('quota.maker@acme.test');
      await newMap(maker.token, 'First');
      const set = await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/2`);
      expect([set.statusCode, set.json().item.quotaPolicy]).toEqual([200, 2]);
      expect((await call(maker.token, 'GET', '/v1/users/me/quota')).json().item).toMatchObject({ quotaPolicy: 2, quotaUsage: { map: 1, total: 1 } });
      await newMap(maker.token, 'Second');
      const over = await call(maker.token, 'POST', '/v1/maps', { name: 'Third' });
      expect([over.statusCode, over.json().message]).toEqual([402, 'Quota exceeded: your quota allows 2 records']);
      expect((await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/3`)).statusCode).toBe(200);
      await newMap(maker.token, 'Third');
    });

    it('shows a new maker every kind that counts, at zero', async () => {
      const maker = await person('quota.new@acme.test');
      expect((await call(maker.token, 'GET', '/v1/users/me/quota')).json().item).toEqual({
        quotaPolicy: 100,
        quotaUsage: { map: 0, dataset: 0, insight: 0, workbook: 0, project: 0, 'data-connection': 0, 'map-asset': 0, total: 0 },
      });
    });

    it('at the quota, still saves what does not count (a query bookmark); administrators and people without an organization are not viewers', async () => {
      const maker = await person('quota.full@acme.test');
      expect((await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/0`)).statusCode).toBe(200);
      expect((await call(maker.token, 'POST', '/v1/maps', { name: 'Over' })).statusCode).toBe(402);
      expect((await call(maker.token, 'POST', '/v1/data-queries/bookmarks', { name: 'Counts', query: 'select 1' })).statusCode).toBe(201);
      expect((await as('admin', 'PUT', `/v1/users/${ctx.cast.users.admin.id}/quotapolicy/0`)).statusCode).toBe(200);
      await newMap(ctx.cast.tokens.admin, 'Made by an administrator at quota 0');
      expect((await as('admin', 'PUT', `/v1/users/${ctx.cast.users.admin.id}/quotapolicy/100`)).statusCode).toBe(200);
      await createUser(ctx.s.services.db, { email: 'no.org@example.test', password: PASSWORD, organizationId: null });
      await newMap(await ctx.s.tokenOf('no.org@example.test'), 'Made without an organization');
    });

    it('refuses a quota out of range, an unknown user and a non-administrator, changing nothing', async () => {
      const maker = await person('quota.refused@acme.test');
      expect((await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/65536`)).statusCode).toBe(422);
      expect((await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/-1`)).statusCode).toBe(422);
      expect((await as('admin', 'PUT', '/v1/users/00000000-0000-4000-8000-000000000000/quotapolicy/5')).statusCode).toBe(404);
      expect((await call(maker.token, 'PUT', `/v1/users/${maker.id}/quotapolicy/65535`)).statusCode).toBe(403);
      expect((await call(maker.token, 'GET', '/v1/users/me/quota')).json().item.quotaPolicy).toBe(100);
    });

    it('reconciles: a dry run names who is over quota and changes nothing; the real run lifts them to their usage', async () => {
      const maker = await person('quota.over@acme.test');
      for (const name of ['a', 'b', 'c']) await newMap(maker.token, name);
      expect((await as('admin', 'PUT', `/v1/users/${maker.id}/quotapolicy/1`)).statusCode).toBe(200);
      const audits = await auditActions('admin.reconcile-quota');

      const dry = await as('admin', 'POST', '/v1/admin/reconcile-quota', { quotaType: 'records', dryRun: true });
      expect(dry.json().item).toEqual({ message: '1 user(s) over quota (dry run: nothing changed)', users: [{ id: maker.id, email: 'quota.over@acme.test', quota: 1, usage: 3 }] });
      expect((await call(maker.token, 'GET', '/v1/users/me/quota')).json().item.quotaPolicy).toBe(1);
      expect(await auditActions('admin.reconcile-quota')).toBe(audits);

      const real = await as('admin', 'POST', '/v1/admin/reconcile-quota', { quotaType: 'records', dryRun: false });
      expect(real.json().item.message).toBe('1 user(s) over quota: quotas raised to usage');
      expect((await call(maker.token, 'GET', '/v1/users/me/quota')).json().item.quotaPolicy).toBe(3);
      expect(await auditActions('admin.reconcile-quota')).toBe(audits + 1);
      expect((await as('admin', 'POST', '/v1/admin/reconcile-quota', {})).json().item).toEqual({ message: 'All users are within their quota', users: [] });
      expect((await as('owner', 'POST', '/v1/admin/reconcile-quota', { dryRun: false })).statusCode).toBe(403);
    });
  });

  describe('API keys', () => {
    it('shows a key once, stores it hashed, and the key signs calls in until it is revoked', async () => {
      const made = await as('owner', 'POST', '/v1/api-key', { name: 'Nightly export' });
      expect(made.statusCode).toBe(201);
      const { id, key, prefix } = made.json().item as { id: string; key: string; prefix: string };
      expect([key.startsWith('sk_'), prefix]).toEqual([true, key.slice(0, 10)]);
      expect((await call(key, 'GET', '/v1/users/me')).json().item.email).toBe('owner@acme.test');

      const listed = await as('owner', 'GET', '/v1/api-key');
      expect(listed.json().items.find((k: { id: string }) => k.id === id)).toMatchObject({ name: 'Nightly export', prefix });
      expect(listed.body).not.toContain(key);
      const row = await ctx.s.services.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(key);

      expect((await as('owner', 'PUT', '/v1/api-key', { id, name: 'Hourly export' })).json().item.name).toBe('Hourly export');
      const revoked = await as('owner', 'DELETE', '/v1/api-key', { id });
      expect(revoked.statusCode).toBe(204);
      const after = await call(key, 'GET', '/v1/users/me');
      expect(after.statusCode).toBe(401);
      expect((await as('owner', 'GET', '/v1/api-key')).json().items.some((k: { id: string }) => k.id === id)).toBe(false);
      expect((await as('owner', 'DELETE', '/v1/api-key', { id })).statusCode).toBe(404);
    });

    it("cannot rename or revoke someone else's key", async () => {
      const { id, key } = (await as('owner', 'POST', '/v1/api-key', { name: 'Mine' })).json().item as { id: string; key: string };
      expect((await as('outsider', 'PUT', '/v1/api-key', { id, name: 'Stolen' })).statusCode).toBe(404);
      expect((await as('outsider', 'DELETE', '/v1/api-key', { id })).statusCode).toBe(404);
      expect((await as('admin', 'DELETE', '/v1/api-key', { id })).statusCode).toBe(404);
      expect((await call(key, 'GET', '/v1/users/me')).statusCode).toBe(200);
      expect((await as('owner', 'GET', '/v1/api-key')).json().items.find((k: { id: string }) => k.id === id).name).toBe('Mine');
    });
  });

  describe('merging accounts', () => {
    it('moves records, shares, tags and memberships to the primary; the secondary can no longer sign in', async () => {
      const primary = await person('merge.primary@acme.test');
      const secondary = await person('merge.secondary@globex.test', 'otherOrg');
      const ownMap = await newMap(secondary.token, 'Made by the secondary');
      const sharedMap = await newMap(ctx.cast.tokens.owner, 'Shared with the secondary');
      // Another organization's account: only an administrator (in admin mode) may name it.
      expect((await as('admin', 'POST', '/v1/permissions?isAdmin=true', { resourceType: 'map', resourceId: sharedMap, role: 'editor', userId: secondary.id })).statusCode).toBe(201);
      expect((await call(secondary.token, 'POST', '/v1/tags', { name: 'Field work' })).statusCode).toBe(201);
      expect((await call(primary.token, 'GET', `/v1/maps/${ownMap}`)).statusCode).toBe(404);

      // The preview says what will move, and moves nothing.
      const preview = await as('admin', 'GET', `/v1/admin/merge-accounts/preview?primaryId=${primary.id}&secondaryIds=${secondary.id}`);
      expect(preview.json().item).toEqual({ records: { map: 1 }, tags: 1, joinsOrganizations: ['Globex'], deletedAccounts: ['merge.secondary@globex.test'] });
      expect((await call(primary.token, 'GET', `/v1/maps/${ownMap}`)).statusCode).toBe(404);
      expect((await as('owner', 'GET', `/v1/admin/merge-accounts/preview?primaryId=${primary.id}&secondaryIds=${secondary.id}`)).statusCode).toBe(403);

      const merged = await as('admin', 'POST', '/v1/admin/merge-accounts', { primaryId: primary.id, secondaryIds: [secondary.id] });
      expect(merged.json().item).toEqual({ primaryId: primary.id, mergedIds: [secondary.id], movedRecords: 1 });

      expect((await call(primary.token, 'GET', `/v1/maps/${ownMap}`)).json().item.name).toBe('Made by the secondary');
      expect((await call(primary.token, 'PUT', `/v1/maps/${sharedMap}`, { name: 'Edited by the primary' })).statusCode).toBe(200);
      expect((await call(primary.token, 'GET', '/v1/tags')).json().items.map((t: { name: string }) => t.name)).toContain('Field work');
      const seats = (await call(primary.token, 'GET', `/v1/users/${primary.id}/seat`)).json().item.seats.map((s: { organizationId: string }) => s.organizationId);
      expect(seats.sort()).toEqual([ctx.cast.org.id, ctx.cast.otherOrg.id].sort());
      expect((await call(secondary.token, 'GET', '/v1/users/me')).statusCode).toBe(401);
      expect((await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'merge.secondary@globex.test', password: PASSWORD } })).statusCode).toBe(401);
    });

    it('refuses the primary among the secondaries and unknown accounts, merging nothing', async () => {
      const primary = await person('merge.p2@acme.test');
      const secondary = await person('merge.s2@acme.test');
      const map = await newMap(secondary.token, 'Stays');
      const self = await as('admin', 'POST', '/v1/admin/merge-accounts', { primaryId: primary.id, secondaryIds: [secondary.id, primary.id] });
      expect([self.statusCode, self.json().message]).toEqual([422, 'The primary account cannot also be a secondary']);
      const selfPreview = await as('admin', 'GET', `/v1/admin/merge-accounts/preview?primaryId=${primary.id}&secondaryIds=${secondary.id},${primary.id}`);
      expect([selfPreview.statusCode, selfPreview.json().message]).toEqual([422, 'The primary account cannot also be a secondary']);
      const unknown = await as('admin', 'POST', '/v1/admin/merge-accounts', { primaryId: primary.id, secondaryIds: [secondary.id, '00000000-0000-4000-8000-000000000000'] });
      expect(unknown.statusCode).toBe(404);
      expect((await as('owner', 'POST', '/v1/admin/merge-accounts', { primaryId: primary.id, secondaryIds: [secondary.id] })).statusCode).toBe(403);
      expect((await call(secondary.token, 'GET', `/v1/maps/${map}`)).json().item.name).toBe('Stays');
    });
  });

  describe('visibility', () => {
    it('an administrator opens a private map to everyone signed in, read only, and closes it again', async () => {
      const map = await newMap(ctx.cast.tokens.owner, 'Going public');
      expect((await as('outsider', 'GET', `/v1/maps/${map}`)).statusCode).toBe(404);
      const open = await as('admin', 'PUT', `/v1/admin/map/${map}/update-visibility`, { privacy: 'public_read' });
      expect(open.json().item).toEqual({ id: map, resourceType: 'map', visibility: 'public_read' });
      expect((await as('outsider', 'GET', `/v1/maps/${map}`)).json().item.name).toBe('Going public');
      expect((await as('outsider', 'PUT', `/v1/maps/${map}`, { name: 'Defaced' })).statusCode).toBeGreaterThanOrEqual(403);
      expect((await as('admin', 'PUT', `/v1/admin/map/${map}/update-visibility`, { privacy: 'private' })).statusCode).toBe(200);
      expect((await as('outsider', 'GET', `/v1/maps/${map}`)).statusCode).toBe(404);
      expect((await as('owner', 'GET', `/v1/maps/${map}`)).json().item.name).toBe('Going public');
    });

    it('refuses an unknown resource, the wrong type, a bad value and a non-administrator', async () => {
      const map = await newMap(ctx.cast.tokens.owner, 'Stays private');
      expect((await as('admin', 'PUT', `/v1/admin/dataset/${map}/update-visibility`, { privacy: 'public_read' })).statusCode).toBe(404);
      expect((await as('admin', 'PUT', '/v1/admin/map/00000000-0000-4000-8000-000000000000/update-visibility', { privacy: 'public_read' })).statusCode).toBe(404);
      expect((await as('admin', 'PUT', `/v1/admin/map/${map}/update-visibility`, { privacy: 'everyone' })).statusCode).toBe(422);
      expect((await as('owner', 'PUT', `/v1/admin/map/${map}/update-visibility`, { privacy: 'public_read' })).statusCode).toBe(403);
      expect((await as('outsider', 'GET', `/v1/maps/${map}`)).statusCode).toBe(404);
    });
  });

  describe('provisioning an account', () => {
    it("gives an organization its default tags once, which its members see", async () => {
      const first = await as('admin', 'POST', '/v1/admin/pipelines/provision-account', { organizationId: ctx.cast.otherOrg.id });
      expect(first.json().item).toEqual({ organizationId: ctx.cast.otherOrg.id, createdTags: ['Needs review', 'Published'] });
      const seen = (await as('editor', 'GET', '/v1/tags/for-organization')).json().items.map((t: { name: string }) => t.name);
      expect(seen).toEqual(expect.arrayContaining(['Needs review', 'Published']));
      expect((await as('owner', 'GET', '/v1/tags/for-organization')).json().items.map((t: { name: string }) => t.name)).not.toContain('Needs review');
      const again = await as('admin', 'POST', '/v1/admin/pipelines/provision-account', { organizationId: ctx.cast.otherOrg.id });
      expect(again.json().item.createdTags).toEqual([]);
      expect((await as('admin', 'POST', '/v1/admin/pipelines/provision-account', { organizationId: '00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
      expect((await as('editor', 'POST', '/v1/admin/pipelines/provision-account', { organizationId: ctx.cast.otherOrg.id })).statusCode).toBe(403);
    });
  });

  describe('bulk permissions', () => {
    it('shares several maps in one call', async () => {
      const a = await newMap(ctx.cast.tokens.owner, 'Bulk A');
      const b = await newMap(ctx.cast.tokens.owner, 'Bulk B');
      const res = await as('owner', 'POST', '/v1/permissions/bulk', {
        items: [a, b].map((resourceId) => ({ resourceType: 'map', resourceId, role: 'viewer', email: 'viewer@globex.test' })),
      });
      expect(res.json().items.map((p: { resourceId: string; emails: { email: string; role: string }[] }) => [p.resourceId, p.emails.map((e) => [e.email, e.role])])).toEqual([
        [a, [['viewer@globex.test', 'viewer']]],
        [b, [['viewer@globex.test', 'viewer']]],
      ]);
      for (const id of [a, b]) {
        expect((await as('viewer', 'GET', `/v1/maps/${id}`)).statusCode).toBe(200);
        expect((await as('viewer', 'PUT', `/v1/maps/${id}`, { name: 'x' })).statusCode).toBe(403);
      }
    });

    it('is all or nothing: one item the caller may not share refuses the call and grants none', async () => {
      const mine = await newMap(ctx.cast.tokens.owner, 'Bulk mine');
      const theirs = await newMap(ctx.cast.tokens.outsider, 'Not mine');
      const res = await as('owner', 'POST', '/v1/permissions/bulk', {
        items: [
          { resourceType: 'map', resourceId: mine, role: 'viewer', email: 'viewer@globex.test' },
          { resourceType: 'map', resourceId: theirs, role: 'viewer', email: 'viewer@globex.test' },
        ],
      });
      expect(res.statusCode).toBe(404);
      expect((await as('viewer', 'GET', `/v1/maps/${mine}`)).statusCode).toBe(404);
      expect((await as('owner', 'GET', `/v1/permissions/map/${mine}`)).json().item.emails).toEqual([]);
      // A viewer of a map may not share it on.
      const shared = await newMap(ctx.cast.tokens.owner, 'Viewed only');
      expect((await as('owner', 'POST', '/v1/permissions', { resourceType: 'map', resourceId: shared, role: 'viewer', email: 'viewer@globex.test' })).statusCode).toBe(201);
      const onward = await as('viewer', 'POST', '/v1/permissions/bulk', { items: [{ resourceType: 'map', resourceId: shared, role: 'editor', userId: ctx.cast.users.outsider.id }] });
      expect(onward.statusCode).toBe(403);
      expect((await as('outsider', 'GET', `/v1/maps/${shared}`)).statusCode).toBe(404);
    });
  });

  describe('finding users', () => {
    it('answers the one user asked by email (any case, spaces around), every match by id, and 404 for an unknown email', async () => {
      const found = await person('find.me@acme.test');
      const byEmail = await as('admin', 'GET', `/v1/users?email=${encodeURIComponent('  Find.Me@ACME.test ')}`);
      expect([byEmail.statusCode, byEmail.json().item?.id, byEmail.json().item?.organization?.id]).toEqual([200, found.id, ctx.cast.org.id]);
      const byId = await as('admin', 'GET', `/v1/users?id=${found.id}`);
      expect(byId.json().items.map((u: { email: string }) => u.email)).toEqual(['find.me@acme.test']);
      const none = await as('admin', 'GET', '/v1/users?email=nobody@acme.test');
      expect([none.statusCode, none.json().message]).toEqual([404, 'No user found for email nobody@acme.test']);
      expect((await as('owner', 'GET', `/v1/users?email=find.me@acme.test`)).statusCode).toBe(403);
    });
  });

  describe('seats', () => {
    it('a viewer seat stops a maker creating at once; a standard seat lets them create again', async () => {
      const member = await person('seat.member@acme.test');
      await newMap(member.token, 'Before');
      const toViewer = await as('admin', 'PUT', `/v1/admin/users/${member.id}/organization/${ctx.cast.org.id}/seat/viewer`);
      expect(toViewer.json().item).toEqual({ userId: member.id, organizationId: ctx.cast.org.id, seat: 'viewer', role: 'viewer' });
      const refused = await call(member.token, 'POST', '/v1/maps', { name: 'During' });
      expect([refused.statusCode, refused.json().message]).toEqual([403, 'Viewers cannot create records; ask an administrator for a maker seat']);
      expect((await call(member.token, 'GET', `/v1/users/${member.id}/seat`)).json().item.seats).toEqual([{ organizationId: ctx.cast.org.id, role: 'viewer', seat: 'viewer' }]);
      expect((await as('admin', 'PUT', `/v1/admin/users/${member.id}/organization/${ctx.cast.org.id}/seat/standard`)).json().item.role).toBe('maker');
      await newMap(member.token, 'After');
    });

    it('refuses a seat in an organization the user is not in, an unknown seat type, and other callers', async () => {
      const member = await person('seat.other@acme.test');
      expect((await as('admin', 'PUT', `/v1/admin/users/${member.id}/organization/${ctx.cast.otherOrg.id}/seat/viewer`)).statusCode).toBe(404);
      expect((await as('admin', 'PUT', `/v1/admin/users/${member.id}/organization/${ctx.cast.org.id}/seat/gold`)).statusCode).toBe(422);
      expect((await as('owner', 'PUT', `/v1/admin/users/${member.id}/organization/${ctx.cast.org.id}/seat/viewer`)).statusCode).toBe(403);
      expect((await as('outsider', 'GET', `/v1/users/${member.id}/seat`)).statusCode).toBe(404);
      expect((await call(member.token, 'GET', `/v1/users/${member.id}/seat`)).json().item.seats).toEqual([{ organizationId: ctx.cast.org.id, role: 'maker', seat: 'standard' }]);
    });
  });
});
