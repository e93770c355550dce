import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from 'kysely';
import { Id, OrganizationBody, RefusedConnection, Paging, QuotaValue, ResourceType, Visibility, badInput, conflict, notFound, type Organization } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { toCount, type Db } from '../store/db';
import { userToWire, createOrganization } from '../services/users';
import { QUOTA_POLICIES, usageOf } from '../services/quota';
import { hashToken, newToken } from '../auth/tokens';
import { refusedConnections } from '../services/connections';

async function orgToWire(db: Db, ids: string[]): Promise<Organization[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('organizations').selectAll().where('id', 'in', ids).orderBy('name').execute();
  const counts = await db
    .selectFrom('memberships')
    .select(['organization_id', 'role', (eb) => eb.fn.countAll().as('n')])
    .where('organization_id', 'in', ids)
    .groupBy(['organization_id', 'role'])
    .execute();
  const count = (id: string, role: string) => toCount(counts.find((c) => c.organization_id === id && c.role === role)?.n);
  return rows.map((o) => ({
    id: o.id,
    name: o.name,
    makerQuotaPolicy: o.maker_quota_policy,
    makerRoleUsersCount: count(o.id, 'maker'),
    viewerRoleUsersCount: count(o.id, 'viewer'),
    createdAt: new Date(o.created_at).toISOString(),
    updatedAt: new Date(o.updated_at).toISOString(),
  }));
}

const IdParam = z.object({ id: Id });
const SEATS = ['standard', 'viewer', 'maker', 'admin'] as const;

export const adminRoutes = [
  defineRoute({
    spec: ['ADM-015'], method: 'GET', url: '/v1/organizations', summary: 'All organizations', tag: 'admin', auth: 'admin', query: Paging,
    handler: async (ctx) => {
      const ids = await ctx.services.db.selectFrom('organizations').select('id').orderBy('name').offset(ctx.query.offset).limit(ctx.query.limit).execute();
      return { items: await orgToWire(ctx.services.db, ids.map((r) => r.id)) };
    },
  }),
  defineRoute({
    spec: ['ADM-016'], method: 'POST', url: '/v1/organizations', summary: 'Create an organization', tag: 'admin', auth: 'admin', body: OrganizationBody, status: 201,
    handler: async (ctx) => {
      const org = await createOrganization(ctx.services.db, ctx.body.name, ctx.body.makerQuotaPolicy);
      await ctx.services.audit.record(ctx.caller, 'organization.create', 'organization', org.id, ctx.body);
      return { item: (await orgToWire(ctx.services.db, [org.id]))[0] };
    },
  }),
  defineRoute({
    spec: ['ADM-017'], method: 'GET', url: '/v1/organizations/{id}', summary: 'One organization', tag: 'admin', auth: 'admin', params: IdParam,
    handler: async (ctx) => {
      const [org] = await orgToWire(ctx.services.db, [ctx.params.id]);
      if (!org) throw notFound('Organization not found');
      return { item: org };
    },
  }),
  defineRoute({
    spec: ['ADM-018'], method: 'PUT', url: '/v1/organizations/{id}', summary: 'Rename an organization or change its maker quota', tag: 'admin', auth: 'admin',
    params: IdParam, body: OrganizationBody.partial(),
    handler: async (ctx) => {
      const r = await ctx.services.db
        .updateTable('organizations')
        .set({ ...(ctx.body.name && { name: ctx.body.name }), ...(ctx.body.makerQuotaPolicy !== undefined && { maker_quota_policy: ctx.body.makerQuotaPolicy }), updated_at: new Date() })
        .where('id', '=', ctx.params.id)
        .executeTakeFirst();
      if (!Number(r.numUpdatedRows)) throw notFound('Organization not found');
      await ctx.services.audit.record(ctx.caller, 'organization.update', 'organization', ctx.params.id, ctx.body);
      return { item: (await orgToWire(ctx.services.db, [ctx.params.id]))[0] };
    },
  }),
  defineRoute({
    spec: ['ADM-019'], method: 'DELETE', url: '/v1/organizations/{id}', summary: 'Delete an organization (its members stay as users)', tag: 'admin', auth: 'admin', params: IdParam,
    handler: async (ctx) => {
      const r = await ctx.services.db.deleteFrom('organizations').where('id', '=', ctx.params.id).executeTakeFirst();
      if (!Number(r.numDeletedRows)) throw notFound('Organization not found');
      await ctx.services.audit.record(ctx.caller, 'organization.delete', 'organization', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ADM-020'], method: 'POST', url: '/v1/organizations/{id}/link', summary: 'Link users into an organization', tag: 'admin', auth: 'admin',
    params: IdParam, body: z.object({ userIds: z.array(Id).min(1).max(1000), role: z.enum(['viewer', 'maker']).default('maker') }),
    handler: async (ctx) => {
      const { db } = ctx.services;
      if (!(await db.selectFrom('organizations').select('id').where('id', '=', ctx.params.id).executeTakeFirst())) throw notFound('Organization not found');
      const found = await db.selectFrom('users').select('id').where('id', 'in', ctx.body.userIds).execute();
      if (found.length !== new Set(ctx.body.userIds).size) throw notFound('User not found');
      await db
        .insertInto('memberships')
        .values(found.map((u) => ({ user_id: u.id, organization_id: ctx.params.id, role: ctx.body.role, seat: 'standard' })))
        .onConflict((oc) => oc.columns(['user_id', 'organization_id']).doUpdateSet({ role: ctx.body.role }))
        .execute();
      await ctx.services.audit.record(ctx.caller, 'organization.link', 'organization', ctx.params.id, ctx.body);
      return { item: (await orgToWire(db, [ctx.params.id]))[0] };
    },
  }),
  defineRoute({
    spec: ['ADM-001'], method: 'GET', url: '/v1/organizations/invitations', summary: 'Pending invitations', tag: 'admin', auth: 'admin',
    query: Paging.extend({ organizationId: Id.optional(), email: z.string().max(320).optional() }),
    handler: async (ctx) => {
      let q = ctx.services.db.selectFrom('invitations').selectAll();
      if (ctx.query.organizationId) q = q.where('organization_id', '=', ctx.query.organizationId);
      if (ctx.query.email) q = q.where('email', '=', ctx.query.email.toLowerCase());
      const rows = await q.orderBy('created_at', 'desc').offset(ctx.query.offset).limit(ctx.query.limit).execute();
      return {
        items: rows.map((r) => ({ id: r.id, organizationId: r.organization_id, email: r.email, role: r.role, application: r.application, createdAt: new Date(r.created_at).toISOString() })),
      };
    },
  }),
  defineRoute({
    spec: ['ADM-002'], method: 'POST', url: '/v1/organizations/{orgId}/invitations/{email}',
    summary: 'Invite an email into an organization; the answer carries the one-time acceptance token', tag: 'admin', auth: 'admin',
    params: z.object({ orgId: Id, email: z.email() }), query: z.object({ application: z.string().max(100).optional(), role: z.enum(['viewer', 'maker']).default('maker') }), status: 201,
    rateLimit: 'invitations',
    handler: async (ctx) => {
      const { db } = ctx.services;
      if (!(await db.selectFrom('organizations').select('id').where('id', '=', ctx.params.orgId).executeTakeFirst())) throw notFound('Organization not found');
      const token = newToken('inv_');
      const row = await db
        .insertInto('invitations')
        .values({ id: randomUUID(), organization_id: ctx.params.orgId, email: ctx.params.email.toLowerCase(), role: ctx.query.role, application: ctx.query.application ?? null, token_hash: hashToken(token), invited_by: ctx.caller?.user.id ?? null })
        .returningAll()
        .executeTakeFirstOrThrow();
      await ctx.services.audit.record(ctx.caller, 'invitation.create', 'organization', ctx.params.orgId, { email: row.email });
      return { item: { id: row.id, organizationId: row.organization_id, email: row.email, role: row.role, application: row.application, token, acceptUrl: `/accept-invitation?token=${token}`, createdAt: new Date(row.created_at).toISOString() } };
    },
  }),
  defineRoute({
    spec: ['ADM-003'], method: 'DELETE', url: '/v1/organizations/invitations/{id}', summary: 'Delete a pending invitation', tag: 'admin', auth: 'admin', params: IdParam,
    handler: async (ctx) => {
      const r = await ctx.services.db.deleteFrom('invitations').where('id', '=', ctx.params.id).executeTakeFirst();
      if (!Number(r.numDeletedRows)) throw notFound('Invitation not found');
      await ctx.services.audit.record(ctx.caller, 'invitation.delete', 'invitation', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    method: 'GET', url: '/v1/admin/refused-connections', tag: 'admin', auth: 'admin',
    summary: 'Saved data connections whose address STUDIO_CONNECTION_HOSTS does not allow (they cannot connect)',
    response: z.object({ items: z.array(RefusedConnection) }),
    handler: async (ctx) => ({ items: await refusedConnections(ctx.services.db, ctx.services.reach) }),
  }),
  defineRoute({
    spec: ['ADM-004'], method: 'GET', url: '/v1/admin/audit-logs', summary: 'The audit log, newest first', tag: 'admin', auth: 'admin',
    query: Paging.extend({ actorId: Id.optional(), resourceType: z.string().max(50).optional(), resourceId: z.string().max(100).optional(), action: z.string().max(100).optional(), sortBy: z.enum(['date', 'views']).default('date') }),
    handler: async (ctx) => {
      let q = ctx.services.db.selectFrom('audit_log').selectAll();
      if (ctx.query.actorId) q = q.where('actor_id', '=', ctx.query.actorId);
      if (ctx.query.resourceType) q = q.where('resource_type', '=', ctx.query.resourceType);
      if (ctx.query.resourceId) q = q.where('resource_id', '=', ctx.query.resourceId);
      if (ctx.query.action) q = q.where('action', '=', ctx.query.action);
      const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').offset(ctx.query.offset).limit(ctx.query.limit).execute();
      return {
        items: rows.map((r) => ({ id: String(r.id), actorId: r.actor_id, actorEmail: r.actor_email, action: r.action, resourceType: r.resource_type, resourceId: r.resource_id, details: r.details, at: new Date(r.at).toISOString() })),
      };
    },
  }),
  defineRoute({
    spec: ['ADM-006'], method: 'PUT', url: '/v1/admin/{resourceType}/{id}/update-visibility', summary: 'Set the visibility of any resource', tag: 'admin', auth: 'admin',
    params: z.object({ resourceType: ResourceType, id: Id }), body: z.object({ privacy: Visibility }),
    handler: async (ctx) => {
      const r = await ctx.services.db.updateTable('resources').set({ visibility: ctx.body.privacy, updated_at: new Date() }).where('id', '=', ctx.params.id).where('type', '=', ctx.params.resourceType).executeTakeFirst();
      if (!Number(r.numUpdatedRows)) throw notFound('Resource not found');
      await ctx.services.audit.record(ctx.caller, 'resource.visibility', ctx.params.resourceType, ctx.params.id, ctx.body);
      return { item: { id: ctx.params.id, resourceType: ctx.params.resourceType, visibility: ctx.body.privacy } };
    },
  }),
  defineRoute({
    spec: ['ADM-008'], method: 'PUT', url: '/v1/users/{id}/quotapolicy/{policy}', summary: "Set a user's quota (0..65535)", tag: 'admin', auth: 'admin',
    params: z.object({ id: Id, policy: z.coerce.number().pipe(QuotaValue) }),
    handler: async (ctx) => {
      const user = await ctx.services.db.updateTable('users').set({ quota_policy: ctx.params.policy, updated_at: new Date() }).where('id', '=', ctx.params.id).returningAll().executeTakeFirst();
      if (!user) throw notFound('User not found');
      await ctx.services.audit.record(ctx.caller, 'user.quota', 'user', user.id, { policy: ctx.params.policy });
      return { item: await userToWire(ctx.services.db, user) };
    },
  }),
  defineRoute({
    spec: ['ADM-009'], method: 'PUT', url: '/v1/admin/users/{id}/organization/{orgId}/seat/{seat}', summary: "Set a member's seat type", tag: 'admin', auth: 'admin',
    params: z.object({ id: Id, orgId: Id, seat: z.enum(SEATS) }),
    handler: async (ctx) => {
      const role = ctx.params.seat === 'viewer' ? 'viewer' : 'maker';
      const r = await ctx.services.db.updateTable('memberships').set({ seat: ctx.params.seat, role }).where('user_id', '=', ctx.params.id).where('organization_id', '=', ctx.params.orgId).executeTakeFirst();
      if (!Number(r.numUpdatedRows)) throw notFound('Membership not found');
      await ctx.services.audit.record(ctx.caller, 'user.seat', 'user', ctx.params.id, ctx.params);
      return { item: { userId: ctx.params.id, organizationId: ctx.params.orgId, seat: ctx.params.seat, role } };
    },
  }),
  defineRoute({
    spec: ['ADM-010'], method: 'GET', url: '/v1/users/admin', summary: 'Administrators', tag: 'admin', auth: 'admin',
    handler: async (ctx) => {
      const rows = await ctx.services.db.selectFrom('users').selectAll().where('is_admin', '=', true).orderBy('email').execute();
      return { items: await Promise.all(rows.map((r) => userToWire(ctx.services.db, r))) };
    },
  }),
  defineRoute({
    spec: ['ADM-011'], method: 'POST', url: '/v1/users/admin', summary: 'Make a user an administrator', tag: 'admin', auth: 'admin',
    body: z.object({ userId: Id }),
    handler: async (ctx) => {
      const user = await ctx.services.db.updateTable('users').set({ is_admin: true, updated_at: new Date() }).where('id', '=', ctx.body.userId).returningAll().executeTakeFirst();
      if (!user) throw notFound('User not found');
      await ctx.services.audit.record(ctx.caller, 'admin.grant', 'user', user.id);
      return { item: await userToWire(ctx.services.db, user) };
    },
  }),
  defineRoute({
    spec: ['ADM-012'], method: 'GET', url: '/v1/users/admin/{id}', summary: 'One administrator', tag: 'admin', auth: 'admin', params: IdParam,
    handler: async (ctx) => {
      const user = await ctx.services.db.selectFrom('users').selectAll().where('id', '=', ctx.params.id).where('is_admin', '=', true).executeTakeFirst();
      if (!user) throw notFound('Administrator not found');
      return { item: await userToWire(ctx.services.db, user) };
    },
  }),
  defineRoute({
    spec: ['ADM-013'], method: 'DELETE', url: '/v1/users/admin/{id}', summary: 'Revoke administrator rights (not your own)', tag: 'admin', auth: 'admin', params: IdParam,
    handler: async (ctx) => {
      if (requireCaller(ctx).user.id === ctx.params.id) throw conflict('You cannot revoke your own administrator rights');
      const r = await ctx.services.db.updateTable('users').set({ is_admin: false, updated_at: new Date() }).where('id', '=', ctx.params.id).where('is_admin', '=', true).executeTakeFirst();
      if (!Number(r.numUpdatedRows)) throw notFound('Administrator not found');
      await ctx.services.audit.record(ctx.caller, 'admin.revoke', 'user', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ADM-014'], method: 'GET', url: '/v1/quotapolicies', summary: 'Named quota presets', tag: 'admin', auth: 'admin',
    handler: async () => ({ items: QUOTA_POLICIES }),
  }),
  defineRoute({
    spec: ['ADM-021'], method: 'POST', url: '/v1/email_flags', summary: 'Set feature flags of the user with an email', tag: 'admin', auth: 'admin',
    body: z.object({ email: z.email(), flags: z.record(z.string().max(100), z.boolean()) }),
    handler: async (ctx) => {
      const user = await ctx.services.db.selectFrom('users').selectAll().where('email', '=', ctx.body.email.toLowerCase()).executeTakeFirst();
      if (!user) throw notFound(`No user found for email ${ctx.body.email}`);
      const flags = { ...(user.flags ?? {}), ...ctx.body.flags };
      const updated = await ctx.services.db.updateTable('users').set({ flags: JSON.stringify(flags), updated_at: new Date() }).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
      await ctx.services.audit.record(ctx.caller, 'user.flags', 'user', user.id, ctx.body.flags);
      return { item: await userToWire(ctx.services.db, updated, true) };
    },
  }),
  defineRoute({
    spec: ['ADM-022'], method: 'POST', url: '/v1/admin/merge-accounts', summary: 'Merge secondary accounts into a primary: records, shares, tags and memberships move; secondaries are deleted', tag: 'admin', auth: 'admin',
    body: z.object({ primaryId: Id, secondaryIds: z.array(Id).min(1).max(100) }),
    handler: async (ctx) => {
      const { primaryId, secondaryIds } = ctx.body;
      if (secondaryIds.includes(primaryId)) throw badInput('The primary account cannot also be a secondary');
      const { db } = ctx.services;
      const found = await db.selectFrom('users').select('id').where('id', 'in', [primaryId, ...secondaryIds]).execute();
      if (found.length !== new Set([primaryId, ...secondaryIds]).size) throw notFound('User not found');
      const moved = await db.transaction().execute(async (trx) => {
        const r = await trx.updateTable('resources').set({ owner_id: primaryId }).where('owner_id', 'in', secondaryIds).executeTakeFirst();
        await trx.updateTable('tags').set({ owner_id: primaryId }).where('owner_id', 'in', secondaryIds).execute();
        await sql`insert into memberships (user_id, organization_id, role, seat)
                  select ${primaryId}::uuid, organization_id, role, seat from memberships where user_id = any(${secondaryIds}::uuid[])
                  on conflict (user_id, organization_id) do nothing`.execute(trx);
        await sql`update permissions set user_id = ${primaryId}::uuid where user_id = any(${secondaryIds}::uuid[])
                  and not exists (select 1 from permissions p2 where p2.resource_id = permissions.resource_id and p2.user_id = ${primaryId}::uuid)`.execute(trx);
        await trx.deleteFrom('users').where('id', 'in', secondaryIds).execute();
        return Number(r.numUpdatedRows);
      });
      await ctx.services.audit.record(ctx.caller, 'admin.merge-accounts', 'user', primaryId, ctx.body);
      return { item: { primaryId, mergedIds: secondaryIds, movedRecords: moved } };
    },
  }),
  defineRoute({
    spec: ['ADM-023'], method: 'POST', url: '/v1/admin/reconcile-quota', summary: 'Find users over their quota (dryRun) or lift their quota to their usage', tag: 'admin', auth: 'admin',
    body: z.object({ quotaType: z.enum(['records', 'maker']).default('records'), dryRun: z.boolean().default(true) }),
    handler: async (ctx) => {
      const { db } = ctx.services;
      const users = await db.selectFrom('users').select(['id', 'email', 'quota_policy']).execute();
      const over: { id: string; email: string; quota: number; usage: number }[] = [];
      for (const u of users) {
        const usage = (await usageOf(db, u.id)).total ?? 0;
        if (usage > u.quota_policy) over.push({ id: u.id, email: u.email, quota: u.quota_policy, usage });
      }
      if (!ctx.body.dryRun) {
        for (const o of over) await db.updateTable('users').set({ quota_policy: Math.min(o.usage, 65535) }).where('id', '=', o.id).execute();
        await ctx.services.audit.record(ctx.caller, 'admin.reconcile-quota', 'user', null, { over: over.length });
      }
      const message = over.length === 0 ? 'All users are within their quota' : `${over.length} user(s) over quota${ctx.body.dryRun ? ' (dry run: nothing changed)' : ': quotas raised to usage'}`;
      return { item: { message, users: over } };
    },
  }),
  defineRoute({
    spec: ['ADM-024'], method: 'POST', url: '/v1/admin/pipelines/provision-account', summary: "Provision an organization's account: sample records and default tags", tag: 'admin', auth: 'admin',
    body: z.object({ organizationId: Id }),
    handler: async (ctx) => {
      const { db } = ctx.services;
      const org = await db.selectFrom('organizations').selectAll().where('id', '=', ctx.body.organizationId).executeTakeFirst();
      if (!org) throw notFound('Organization not found');
      const caller = requireCaller(ctx);
      const defaults = [
        { name: 'Needs review', color: '#f5a623' },
        { name: 'Published', color: '#2ca02c' },
      ];
      const existing = await db.selectFrom('tags').select('name').where('organization_id', '=', org.id).execute();
      const created = defaults.filter((d) => !existing.some((e) => e.name === d.name));
      if (created.length) await db.insertInto('tags').values(created.map((d) => ({ id: randomUUID(), owner_id: caller.user.id, organization_id: org.id, ...d }))).execute();
      await ctx.services.audit.record(caller, 'admin.provision-account', 'organization', org.id);
      return { item: { organizationId: org.id, createdTags: created.map((c) => c.name) } };
    },
  }),
];
