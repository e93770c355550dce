import { adminCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { QUOTA_POLICIES } from '../services/quota';
import { streamBody } from '../http/streams';

/** Administrators' calls: organizations and invitations (services/organizations.ts), accounts (services/admin.ts). */
export const adminRoutes = [
  defineRoute(adminCalls.organizations, {
    handler: async (ctx) => ({ items: await ctx.services.organizations.list(ctx.query) }),
  }),
  defineRoute(adminCalls.createOrganization, {
    handler: async (ctx) => {
      const org = await ctx.services.organizations.create(ctx.body.name, ctx.body.makerQuotaPolicy);
      await ctx.services.audit.record(ctx.caller, 'organization.create', 'organization', org.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute(adminCalls.organization, {
    handler: async (ctx) => ({ item: await ctx.services.organizations.get(ctx.params.id) }),
  }),
  defineRoute(adminCalls.updateOrganization, {
    handler: async (ctx) => {
      const org = await ctx.services.organizations.update(ctx.params.id, ctx.body);
      await ctx.services.audit.record(ctx.caller, 'organization.update', 'organization', ctx.params.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute(adminCalls.deleteOrganization, {
    handler: async (ctx) => {
      await ctx.services.organizations.delete(ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'organization.delete', 'organization', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute(adminCalls.linkUsers, {
    handler: async (ctx) => {
      const org = await ctx.services.organizations.link(ctx.params.id, ctx.body.userIds, ctx.body.role);
      await ctx.services.audit.record(ctx.caller, 'organization.link', 'organization', ctx.params.id, ctx.body);
      return { item: org };
    },
  }),
  defineRoute(adminCalls.invitations, {
    handler: async (ctx) => ({ items: await ctx.services.organizations.invitations(ctx.query) }),
  }),
  defineRoute(adminCalls.invite, {
    rateLimit: 'invitations',
    handler: async (ctx) => {
      const invitation = await ctx.services.organizations.invite(ctx.params.orgId, ctx.params.email, { role: ctx.query.role, application: ctx.query.application, invitedBy: ctx.caller?.user.id ?? null });
      const action = invitation.resent ? 'invitation.resend' : 'invitation.create';
      await ctx.services.audit.record(ctx.caller, action, 'organization', ctx.params.orgId, { email: invitation.email, emailed: invitation.emailed });
      return { item: invitation };
    },
  }),
  defineRoute(adminCalls.deleteInvitation, {
    handler: async (ctx) => {
      await ctx.services.organizations.deleteInvitation(ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'invitation.delete', 'invitation', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute(adminCalls.refusedConnections, {
    handler: async (ctx) => ({ items: await ctx.services.connections.refusedConnections(ctx.services.reach) }),
  }),
  defineRoute(adminCalls.auditLogs, {
    handler: async (ctx) => {
      const { format, offset, limit, sortBy: _sortBy, ...filter } = ctx.query;
      if (format === 'csv' || /\btext\/csv\b/.test(ctx.req.headers.accept ?? '')) {
        const day = new Date().toISOString().slice(0, 10);
        return ctx.reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="audit-log-${day}.csv"`).send(streamBody(ctx.services.admin.auditCsv(filter)));
      }
      return { items: await ctx.services.admin.auditLog({ ...filter, offset, limit }) };
    },
  }),
  defineRoute(adminCalls.setVisibility, {
    handler: async (ctx) => {
      await ctx.services.admin.setVisibility(ctx.params.resourceType, ctx.params.id, ctx.body.privacy);
      await ctx.services.audit.record(ctx.caller, 'resource.visibility', ctx.params.resourceType, ctx.params.id, ctx.body);
      return { item: { id: ctx.params.id, resourceType: ctx.params.resourceType, visibility: ctx.body.privacy } };
    },
  }),
  defineRoute(adminCalls.setQuota, {
    handler: async (ctx) => {
      const user = await ctx.services.admin.setQuota(ctx.params.id, ctx.params.policy);
      await ctx.services.audit.record(ctx.caller, 'user.quota', 'user', user.id, { policy: ctx.params.policy });
      return { item: user };
    },
  }),
  defineRoute(adminCalls.setSeat, {
    handler: async (ctx) => {
      const role = await ctx.services.admin.setSeat(ctx.params.id, ctx.params.orgId, ctx.params.seat);
      await ctx.services.audit.record(ctx.caller, 'user.seat', 'user', ctx.params.id, ctx.params);
      return { item: { userId: ctx.params.id, organizationId: ctx.params.orgId, seat: ctx.params.seat, role } };
    },
  }),
  defineRoute(adminCalls.admins, {
    handler: async (ctx) => ({ items: await ctx.services.admin.admins() }),
  }),
  defineRoute(adminCalls.grantAdmin, {
    handler: async (ctx) => {
      const user = await ctx.services.admin.grantAdmin(ctx.body.userId);
      await ctx.services.audit.record(ctx.caller, 'admin.grant', 'user', user.id);
      return { item: user };
    },
  }),
  defineRoute(adminCalls.admin, {
    handler: async (ctx) => ({ item: await ctx.services.admin.admin(ctx.params.id) }),
  }),
  defineRoute(adminCalls.revokeAdmin, {
    handler: async (ctx) => {
      await ctx.services.admin.revokeAdmin(requireCaller(ctx).user.id, ctx.params.id);
      await ctx.services.audit.record(ctx.caller, 'admin.revoke', 'user', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute(adminCalls.quotaPolicies, {
    handler: async () => ({ items: [...QUOTA_POLICIES] }),
  }),
  defineRoute(adminCalls.setFlags, {
    handler: async (ctx) => {
      const user = await ctx.services.admin.setFlags(ctx.body.email, ctx.body.flags);
      await ctx.services.audit.record(ctx.caller, 'user.flags', 'user', user.id, ctx.body.flags);
      return { item: user };
    },
  }),
  defineRoute(adminCalls.mergePreview, {
    handler: async (ctx) => ({ item: await ctx.services.admin.mergePreview(ctx.query.primaryId, ctx.query.secondaryIds) }),
  }),
  defineRoute(adminCalls.mergeAccounts, {
    handler: async (ctx) => {
      const { primaryId, secondaryIds } = ctx.body;
      const moved = await ctx.services.admin.mergeAccounts(primaryId, secondaryIds);
      await ctx.services.audit.record(ctx.caller, 'admin.merge-accounts', 'user', primaryId, ctx.body);
      return { item: { primaryId, mergedIds: secondaryIds, movedRecords: moved } };
    },
  }),
  defineRoute(adminCalls.reconcileQuota, {
    handler: async (ctx) => {
      const over = await ctx.services.admin.reconcileQuota(ctx.body.dryRun);
      if (!ctx.body.dryRun) await ctx.services.audit.record(ctx.caller, 'admin.reconcile-quota', 'user', null, { over: over.length });
      const message = over.length === 0 ? 'All users are within their quota' : `${over.length} user(s) over quota${ctx.body.dryRun ? ' (dry run: nothing changed)' : ': quotas raised to usage'}`;
      return { item: { message, users: over } };
    },
  }),
  defineRoute(adminCalls.provisionAccount, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const createdTags = await ctx.services.admin.provisionAccount(ctx.body.organizationId, caller.user.id);
      await ctx.services.audit.record(caller, 'admin.provision-account', 'organization', ctx.body.organizationId);
      return { item: { organizationId: ctx.body.organizationId, createdTags } };
    },
  }),
];
