import { tagCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

export const tagRoutes = [
  defineRoute(tagCalls.list, { handler: async (ctx) => ({ items: await ctx.services.tags.mine(requireCaller(ctx)) }) }),
  defineRoute(tagCalls.forOrganization, {
    handler: async (ctx) => ({ items: await ctx.services.tags.ofOrganizations(requireCaller(ctx), ctx.query.resourceType) }),
  }),
  defineRoute(tagCalls.create, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.create(caller, ctx.body);
      await ctx.services.audit.record(caller, 'tag.create', 'tag', tag.id, ctx.body);
      return { item: tag };
    },
  }),
  defineRoute(tagCalls.update, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.update(caller, ctx.params.id, ctx.body);
      await ctx.services.audit.record(caller, 'tag.update', 'tag', tag.id, ctx.body);
      return { item: tag };
    },
  }),
  defineRoute(tagCalls.delete, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.tags.delete(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'tag.delete', 'tag', ctx.params.id);
      return undefined;
    },
  }),
  defineRoute(tagCalls.apply, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const tag = await ctx.services.tags.apply(caller, ctx.params.tagId, ctx.params.type, ctx.params.resourceId);
      await ctx.services.audit.record(caller, 'tag.apply', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      return { item: tag };
    },
  }),
  defineRoute(tagCalls.remove, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.tags.remove(caller, ctx.params.tagId, ctx.params.type, ctx.params.resourceId);
      await ctx.services.audit.record(caller, 'tag.remove', ctx.params.type, ctx.params.resourceId, { tagId: ctx.params.tagId });
      return undefined;
    },
  }),
];
