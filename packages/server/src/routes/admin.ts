import { z } from 'zod';
import {
  AuditEntry,
  AuditLogQuery,
  Id,
  InvitationCreated,
  MergePreview,
  PendingInvitation,
  Organization,
  OrganizationBody,
  OrgRole,
  RefusedConnection,
  Paging,
  QuotaValue,
  ResourceType,
  User,
  Visibility,
  itemOf,
} from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { QUOTA_POLICIES } from '../services/quota';
import { SEATS } from '../services/admin';
import { streamBody } from '../http/streams';

const IdParam = z.object({ id: Id });

/** Administrators' calls: organizations and invitations (services/organizations.ts), accounts (services/admin.ts). */
export const adminRoutes = [
  defineRoute({
    spec: ['ADM-015'], method: 'GET', url: '/v1/organizations', summary: 'All organizations', tag: 'admin', auth: 'admin', query: Paging,
    response: z.object({ items: z.array(Organization) }),
    handler: async (ctx) => ({ items: await ctx.services.organizations.list(ctx.query) }),
  }),
  defineRoute({
    spec: ['ADM-016'], method: 'POST', url: '/v1/organizations', summary: 'Create an organization', tag: 'admin', auth: 'admin', body: OrganizationBody, status: 201,
    response: itemOf(Organization),
    handler: async (ctx) => {
      const org = await ctx.services.organizations.create(ctx.body.name, ctx.body.makerQuotaPolicy);
      await ctx.services.audit.record(ctx.caller, 'organization.create', 'organization', org.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute({
    spec: ['ADM-017'], method: 'GET', url: '/v1/organizations/{id}', summary: 'One organization', tag: 'admin', auth: 'admin', params: IdParam,
    response: itemOf(Organization),
    handler: async (ctx) => ({ item: await ctx.services.organizations.get(ctx.params.id) }),
  }),
  defineRoute({
    spec: ['ADM-018'], method: 'PUT', url: '/v1/organizations/{id}', summary: 'Rename an organization or change its maker quota', tag: 'admin', auth: 'admin',
    params: IdParam, body: OrganizationBody.partial(),
    response: itemOf(Organization),
    handler: async (ctx) => {
      const org = await ctx.services.organizations.update(ctx.params.id, ctx.body);
      await ctx.services.audit.record(ctx.caller, 'organization.update', 'organization', ctx.params.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute({
    spec: ['ADM-019'], method: 'DELETE', url: '/v1/organizations/{id}', summary: 'Delete an organization (its members stay as users)', tag: 'admin', auth: 'admin', params: IdParam,
    status: 204,
    handler: async (ctx) => {
      await ctx.services.organizations.delete(ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'organization.delete', 'organization', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ADM-020'], method: 'POST', url: '/v1/organizations/{id}/link', summary: 'Link users into an organization', tag: 'admin', auth: 'admin',
    params: IdParam, body: z.object({ userIds: z.array(Id).min(1).max(1000), role: z.enum(['viewer', 'maker']).default('maker') }),
    response: itemOf(Organization),
    handler: async (ctx) => {
      const org = await ctx.services.organizations.link(ctx.params.id, ctx.body.userIds, ctx.body.role);
      await ctx.services.audit.record(ctx.caller, 'organization.link', 'organization', ctx.params.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute({
    spec: ['ADM-001'], method: 'GET', url: '/v1/organizations/invitations', summary: 'Pending invitations', tag: 'admin', auth: 'admin',
    query: Paging.extend({ organizationId: Id.optional(), email: z.string().max(320).optional() }),
    response: z.object({ items: z.array(PendingInvitation) }),
    handler: async (ctx) => ({ items: await ctx.services.organizations.invitations(ctx.query) }),
  }),
  defineRoute({
    spec: ['ADM-002'], method: 'POST', url: '/v1/organizations/{orgId}/invitations/{email}',
    summary: 'Invite an email into an organization (again: a new link replaces the pending one); the answer carries the one-time acceptance token, mailed when SMTP is set', tag: 'admin', auth: 'admin',
    params: z.object({ orgId: Id, email: z.email() }), query: z.object({ application: z.string().max(100).optional(), role: z.enum(['viewer', 'maker']).default('maker') }), status: 201,
    rateLimit: 'invitations',
    response: z.object({ item: InvitationCreated }),
    handler: async (ctx) => {
      const invitation = await ctx.services.organizations.invite(ctx.params.orgId, ctx.params.email, { role: ctx.query.role, application: ctx.query.application, invitedBy: ctx.caller?.user.id ?? null });
      const action = invitation.resent ? 'invitation.resend' : 'invitation.create';
      await ctx.services.audit.record(ctx.caller, action, 'organization', ctx.params.orgId, { email: invitation.email, emailed: invitation.emailed });
      return { item: invitation };
    },
  }),
  defineRoute({
    spec: ['ADM-003'], method: 'DELETE', url: '/v1/organizations/invitations/{id}', summary: 'Delete a pending invitation', tag: 'admin', auth: 'admin', params: IdParam,
    status: 204,
    handler: async (ctx) => {
      await ctx.services.organizations.deleteInvitation(ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'invitation.delete', 'invitation', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    method: 'GET', url: '/v1/admin/refused-connections', tag: 'admin', auth: 'admin',
    summary: 'Saved data connections whose address STUDIO_CONNECTION_HOSTS does not allow (they cannot connect)',
    response: z.object({ items: z.array(RefusedConnection) }),
    handler: async (ctx) => ({ items: await ctx.services.connections.refusedConnections(ctx.services.reach) }),
  }),
  defineRoute({
    spec: ['ADM-004'], method: 'GET', url: '/v1/admin/audit-logs', tag: 'admin', auth: 'admin',
    summary: 'The audit log, newest first, narrowed by who, action (or its family), resource and days; format=csv (or Accept: text/csv) downloads every matching entry',
    query: AuditLogQuery,
    response: z.object({ items: z.array(AuditEntry) }),
    produces: ['text/csv'],
    handler: async (ctx) => {
      const { format, offset, limit, sortBy: _sortBy, ...filter } = ctx.query;
      if (format === 'csv' || /\btext\/csv\b/.test(ctx.req.headers.accept ?? '')) {
        const day = new Date().toISOString().slice(0, 10);
        return ctx.reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="audit-log-${day}.csv"`).send(streamBody(ctx.services.admin.auditCsv(filter)));
      }
      return { items: await ctx.services.admin.auditLog({ ...filter, offset, limit }) };
    },
  }),
  defineRoute({
    spec: ['ADM-006'], method: 'PUT', url: '/v1/admin/{resourceType}/{id}/update-visibility', summary: 'Set the visibility of any resource', tag: 'admin', auth: 'admin',
    params: z.object({ resourceType: ResourceType, id: Id }), body: z.object({ privacy: Visibility }),
    response: itemOf(z.object({ id: Id, resourceType: ResourceType, visibility: Visibility })),
    handler: async (ctx) => {
      await ctx.services.admin.setVisibility(ctx.params.resourceType, ctx.params.id, ctx.body.privacy);
      await ctx.services.audit.record(ctx.caller, 'resource.visibility', ctx.params.resourceType, ctx.params.id, ctx.body);
      return { item: { id: ctx.params.id, resourceType: ctx.params.resourceType, visibility: ctx.body.privacy } };
    },
  }),
  defineRoute({
    spec: ['ADM-008'], method: 'PUT', url: '/v1/users/{id}/quotapolicy/{policy}', summary: "Set a user's quota (0..65535)", tag: 'admin', auth: 'admin',
    params: z.object({ id: Id, policy: z.coerce.number().pipe(QuotaValue) }),
    response: itemOf(User),
    handler: async (ctx) => {
      const user = await ctx.services.admin.setQuota(ctx.params.id, ctx.params.policy);
      await ctx.services.audit.record(ctx.caller, 'user.quota', 'user', user.id, { policy: ctx.params.policy });
      return { item: user };
    },
  }),
  defineRoute({
    spec: ['ADM-009'], method: 'PUT', url: '/v1/admin/users/{id}/organization/{orgId}/seat/{seat}', summary: "Set a member's seat type", tag: 'admin', auth: 'admin',
    params: z.object({ id: Id, orgId: Id, seat: z.enum(SEATS) }),
    response: itemOf(z.object({ userId: Id, organizationId: Id, seat: z.enum(SEATS), role: OrgRole })),
    handler: async (ctx) => {
      const role = await ctx.services.admin.setSeat(ctx.params.id, ctx.params.orgId, ctx.params.seat);
      await ctx.services.audit.record(ctx.caller, 'user.seat', 'user', ctx.params.id, ctx.params);
      return { item: { userId: ctx.params.id, organizationId: ctx.params.orgId, seat: ctx.params.seat, role } };
    },
  }),
  defineRoute({
    spec: ['ADM-010'], method: 'GET', url: '/v1/users/admin', summary: 'Administrators', tag: 'admin', auth: 'admin',
    response: z.object({ items: z.array(User) }),
    handler: async (ctx) => ({ items: await ctx.services.admin.admins() }),
  }),
  defineRoute({
    spec: ['ADM-011'], method: 'POST', url: '/v1/users/admin', summary: 'Make a user an administrator', tag: 'admin', auth: 'admin',
    body: z.object({ userId: Id }),
    response: itemOf(User),
    handler: async (ctx) => {
      const user = await ctx.services.admin.grantAdmin(ctx.body.userId);
      await ctx.services.audit.record(ctx.caller, 'admin.grant', 'user', user.id);
      return { item: user };
    },
  }),
  defineRoute({
    spec: ['ADM-012'], method: 'GET', url: '/v1/users/admin/{id}', summary: 'One administrator', tag: 'admin', auth: 'admin', params: IdParam,
    response: itemOf(User),
    handler: async (ctx) => ({ item: await ctx.services.admin.admin(ctx.params.id) }),
  }),
  defineRoute({
    spec: ['ADM-013'], method: 'DELETE', url: '/v1/users/admin/{id}', summary: 'Revoke administrator rights (not your own)', tag: 'admin', auth: 'admin', params: IdParam,
    status: 204,
    handler: async (ctx) => {
      await ctx.services.admin.revokeAdmin(requireCaller(ctx).user.id, ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'admin.revoke', 'user', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ADM-014'], method: 'GET', url: '/v1/quotapolicies', summary: 'Named quota presets', tag: 'admin', auth: 'admin',
    response: z.object({ items: z.array(z.object({ id: z.string(), name: z.string(), value: QuotaValue })) }),
    handler: async () => ({ items: QUOTA_POLICIES }),
  }),
  defineRoute({
    spec: ['ADM-021'], method: 'POST', url: '/v1/email_flags', summary: 'Set feature flags of the user with an email', tag: 'admin', auth: 'admin',
    body: z.object({ email: z.email(), flags: z.record(z.string().max(100), z.boolean()) }),
    response: itemOf(User),
    handler: async (ctx) => {
      const user = await ctx.services.admin.setFlags(ctx.body.email, ctx.body.flags);
      await ctx.services.audit.record(ctx.caller, 'user.flags', 'user', user.id, ctx.body.flags);
      return { item: user };
    },
  }),
  defineRoute({
    method: 'GET', url: '/v1/admin/merge-accounts/preview', summary: 'What merging the secondary accounts into the primary would move (records by type, tags, organizations) and delete; changes nothing', tag: 'admin', auth: 'admin',
    query: z.object({ primaryId: Id, secondaryIds: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(Id).min(1).max(100)) }),
    response: z.object({ item: MergePreview }),
    handler: async (ctx) => ({ item: await ctx.services.admin.mergePreview(ctx.query.primaryId, ctx.query.secondaryIds) }),
  }),
  defineRoute({
    spec: ['ADM-022'], method: 'POST', url: '/v1/admin/merge-accounts', summary: 'Merge secondary accounts into a primary: records, shares, tags and memberships move; secondaries are deleted', tag: 'admin', auth: 'admin',
    body: z.object({ primaryId: Id, secondaryIds: z.array(Id).min(1).max(100) }),
    response: itemOf(z.object({ primaryId: Id, mergedIds: z.array(Id), movedRecords: z.number().int() })),
    handler: async (ctx) => {
      const { primaryId, secondaryIds } = ctx.body;
      const moved = await ctx.services.admin.mergeAccounts(primaryId, secondaryIds);
      await ctx.services.audit.record(ctx.caller, 'admin.merge-accounts', 'user', primaryId, ctx.body);
      return { item: { primaryId, mergedIds: secondaryIds, movedRecords: moved } };
    },
  }),
  defineRoute({
    spec: ['ADM-023'], method: 'POST', url: '/v1/admin/reconcile-quota', summary: 'Find users over their quota (dryRun) or lift their quota to their usage', tag: 'admin', auth: 'admin',
    body: z.object({ quotaType: z.enum(['records', 'maker']).default('records'), dryRun: z.boolean().default(true) }),
    response: itemOf(z.object({ message: z.string(), users: z.array(z.object({ id: Id, email: z.string(), quota: z.number().int(), usage: z.number().int() })) })),
    handler: async (ctx) => {
      const over = await ctx.services.admin.reconcileQuota(ctx.body.dryRun);
      if (!ctx.body.dryRun) await ctx.services.audit.record(ctx.caller, 'admin.reconcile-quota', 'user', null, { over: over.length });
      const message = over.length === 0 ? 'All users are within their quota' : `${over.length} user(s) over quota${ctx.body.dryRun ? ' (dry run: nothing changed)' : ': quotas raised to usage'}`;
      return { item: { message, users: over } };
    },
  }),
  defineRoute({
    spec: ['ADM-024'], method: 'POST', url: '/v1/admin/pipelines/provision-account', summary: "Provision an organization's account: sample records and default tags", tag: 'admin', auth: 'admin',
    body: z.object({ organizationId: Id }),
    response: itemOf(z.object({ organizationId: Id, createdTags: z.array(z.string()) })),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const createdTags = await ctx.services.admin.provisionAccount(ctx.body.organizationId, caller.user.id);
      await ctx.services.audit.record(caller, 'admin.provision-account', 'organization', ctx.body.organizationId);
      return { item: { organizationId: ctx.body.organizationId, createdTags } };
    },
  }),
];
