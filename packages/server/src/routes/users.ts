import { adminCalls, forbidden, notFound, userCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { DEFAULT_FLAGS } from '../services/users';

/** Industries a user can pick on their profile. */
const INDUSTRIES = [
  'Retail', 'Real estate', 'Consumer goods', 'Restaurants', 'Financial services', 'Insurance', 'Advertising and marketing',
  'Telecommunications', 'Transportation and logistics', 'Energy and utilities', 'Government', 'Education', 'Healthcare',
  'Technology', 'Media and entertainment', 'Travel and hospitality', 'Other',
];

export const userRoutes = [
  defineRoute(userCalls.me, {
    handler: async (ctx) => ({ item: await ctx.services.users.userToWire(requireCaller(ctx).user, ctx.query.includeFlags ?? false) }),
  }),
  defineRoute(userCalls.myQuota, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      return { item: { quotaPolicy: caller.user.quota_policy, quotaUsage: await ctx.services.quota.usageOf(caller.user.id) } };
    },
  }),
  defineRoute(userCalls.myFlags, {
    handler: async (ctx) => ({ item: { ...DEFAULT_FLAGS, ...(requireCaller(ctx).user.flags ?? {}) } }),
  }),
  defineRoute(userCalls.myGoogle, {
    handler: async () => ({ item: { linked: false, email: null } }),
  }),
  defineRoute(userCalls.industries, {
    handler: async () => ({ items: INDUSTRIES }),
  }),
  defineRoute(userCalls.seats, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      if (caller.user.id !== ctx.params.id && !caller.isAdmin) throw notFound('User not found');
      return { item: { userId: ctx.params.id, seats: await ctx.services.users.seatsOf(ctx.params.id) } };
    },
  }),
  defineRoute(userCalls.update, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const self = caller.user.id === ctx.params.id;
      if (!self && !caller.isAdmin) throw notFound('User not found');
      if ((ctx.body.isAdmin !== undefined || ctx.body.flags !== undefined) && !caller.isAdmin) throw forbidden('Administrators only');
      const user = await ctx.services.users.updateUser(ctx.params.id, ctx.body);
      await ctx.services.audit.record(caller, 'user.update', 'user', user.id, ctx.body);
      return { item: user };
    },
  }),
  defineRoute(userCalls.moveToOrganization, {
    handler: async (ctx) => {
      const user = await ctx.services.users.moveToOrganization(ctx.params.id, ctx.params.orgId, ctx.body?.role ?? 'maker');
      await ctx.services.audit.record(ctx.caller, 'user.organization', 'user', user.id, { organizationId: ctx.params.orgId });
      return { item: user };
    },
  }),
  defineRoute(userCalls.setScreeningStatus, {
    handler: async (ctx) => {
      await ctx.services.users.setScreeningStatuses(ctx.body.updates);
      await ctx.services.audit.record(ctx.caller, 'user.screening-status', 'user', null, ctx.body);
      return { items: ctx.body.updates };
    },
  }),
  defineRoute(adminCalls.findUsers, {
    handler: async (ctx) => {
      const users = await ctx.services.admin.findUsers(ctx.query);
      // Asked by email, the one user (the service answers 404 for none); else every match.
      return ctx.query.email !== undefined ? { item: users[0]! } : { items: users };
    },
  }),
];
