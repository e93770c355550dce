import { z } from 'zod';
import { Id, OrgRole, Quota, QueryBool, ScreeningStatus, StudioError, forbidden, notFound, Flags, User, itemOf } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { userToWire, DEFAULT_FLAGS, findUsers } from '../services/users';

const IdParam = z.object({ id: Id });

/** Industries a user can pick on their profile. */
const INDUSTRIES = [
  'Retail', 'Real estate', 'Consumer goods', 'Restaurants', 'Financial services', 'Insurance', 'Advertising and marketing',
  'Telecommunications', 'Transportation and logistics', 'Energy and utilities', 'Government', 'Education', 'Healthcare',
  'Technology', 'Media and entertainment', 'Travel and hospitality', 'Other',
];

export const userRoutes = [
  defineRoute({
    spec: ['CAT-178'],
    method: 'GET',
    url: '/v1/users/me',
    response: itemOf(User),
    summary: 'The signed-in user',
    tag: 'users',
    auth: 'user',
    query: z.object({ includeFlags: QueryBool.optional() }),
    handler: async (ctx) => ({ item: await ctx.services.users.userToWire(requireCaller(ctx).user, ctx.query.includeFlags ?? false) }),
  }),
  defineRoute({
    spec: ['CAT-179'],
    method: 'GET',
    url: '/v1/users/me/quota',
    summary: 'Quota policy and usage of the signed-in user',
    tag: 'users',
    auth: 'user',
    response: itemOf(Quota),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      return { item: { quotaPolicy: caller.user.quota_policy, quotaUsage: await ctx.services.quota.usageOf(caller.user.id) } };
    },
  }),
  defineRoute({
    spec: ['CAT-180'],
    method: 'GET',
    url: '/v1/users/me/flags',
    summary: 'Feature flags of the signed-in user',
    tag: 'users',
    auth: 'user',
    response: itemOf(Flags),
    handler: async (ctx) => ({ item: { ...DEFAULT_FLAGS, ...(requireCaller(ctx).user.flags ?? {}) } }),
  }),
  defineRoute({
    spec: ['CAT-181'],
    method: 'GET',
    url: '/v1/users/me/google',
    summary: 'The Google account linked to the signed-in user (self-hosted studios sign in with email: none)',
    tag: 'users',
    auth: 'user',
    response: itemOf(z.object({ linked: z.boolean(), email: z.string().nullable() })),
    handler: async () => ({ item: { linked: false, email: null } }),
  }),
  defineRoute({
    spec: ['CAT-182'],
    method: 'GET',
    url: '/v1/users/industries',
    summary: 'Industries a profile can name',
    tag: 'users',
    auth: 'user',
    response: z.object({ items: z.array(z.string()) }),
    handler: async () => ({ items: INDUSTRIES }),
  }),
  defineRoute({
    spec: ['CAT-183'],
    method: 'GET',
    url: '/v1/users/{id}/seat',
    summary: "A user's seats per organization (self or administrator)",
    tag: 'users',
    auth: 'user',
    params: IdParam,
    response: itemOf(z.object({ userId: Id, seats: z.array(z.object({ organizationId: Id, role: OrgRole, seat: z.string() })) })),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      if (caller.user.id !== ctx.params.id && !caller.isAdmin) throw notFound('User not found');
      return { item: { userId: ctx.params.id, seats: await ctx.services.users.seatsOf(ctx.params.id) } };
    },
  }),
  defineRoute({
    spec: ['CAT-184'],
    method: 'PUT',
    url: '/v1/users/{id}',
    response: itemOf(User),
    summary: 'Update a user: a user may rename themself; administrators may change anything',
    tag: 'users',
    auth: 'user',
    params: IdParam,
    body: z.object({ name: z.string().trim().min(1).max(200).optional(), industry: z.string().max(100).optional(), isAdmin: z.boolean().optional(), flags: Flags.optional() }),
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
  defineRoute({
    spec: ['CAT-185'],
    method: 'PUT',
    url: '/v1/users/{id}/organization/{orgId}',
    response: itemOf(User),
    summary: "Move a user into an organization (it becomes their home organization)",
    tag: 'users',
    auth: 'admin',
    params: z.object({ id: Id, orgId: Id }),
    body: z.object({ role: z.enum(['viewer', 'maker']).optional() }).optional(),
    handler: async (ctx) => {
      const user = await ctx.services.users.moveToOrganization(ctx.params.id, ctx.params.orgId, ctx.body?.role ?? 'maker');
      await ctx.services.audit.record(ctx.caller, 'user.organization', 'user', user.id, { organizationId: ctx.params.orgId });
      return { item: user };
    },
  }),
  defineRoute({
    spec: ['CAT-186'],
    method: 'PUT',
    url: '/v1/users/screening-status',
    summary: 'Set screening status of users (1 high risk, 2 pending review, null cleared)',
    tag: 'users',
    auth: 'admin',
    body: z.object({ updates: z.array(z.object({ userId: Id, status: ScreeningStatus })).min(1).max(1000) }),
    response: z.object({ items: z.array(z.object({ userId: Id, status: ScreeningStatus })) }),
    handler: async (ctx) => {
      await ctx.services.users.setScreeningStatuses(ctx.body.updates);
      await ctx.services.audit.record(ctx.caller, 'user.screening-status', 'user', null, ctx.body);
      return { items: ctx.body.updates };
    },
  }),
  defineRoute({
    spec: ['ADM-007'],
    method: 'GET',
    url: '/v1/users',
    summary: 'Find users by email or another property (administrators)',
    tag: 'admin',
    auth: 'admin',
    query: z.object({ email: z.string().max(320).optional(), name: z.string().max(200).optional(), id: Id.optional() }),
    // One user when asked by email; else every match.
    response: z.union([itemOf(User), z.object({ items: z.array(User) })]),
    handler: async (ctx) => {
      const { db } = ctx.services;
      const rows = await findUsers(db, ctx.query);
      if (ctx.query.email !== undefined) {
        if (rows.length === 0) throw notFound(`No user found for email ${ctx.query.email}`);
        if (rows.length > 1) throw new StudioError(500, `Multiple users found for email ${ctx.query.email}`);
        return { item: await userToWire(db, rows[0]!) };
      }
      return { items: await Promise.all(rows.map((r) => userToWire(db, r))) };
    },
  }),
];
