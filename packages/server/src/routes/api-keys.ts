import { apiKeyCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';
import { assertMayMintKeys } from '../http/caller';

export const apiKeyRoutes = [
  defineRoute(apiKeyCalls.list, { handler: async (ctx) => ({ items: await ctx.services.apiKeys.list(requireCaller(ctx).user.id) }) }),
  defineRoute(apiKeyCalls.generate, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      assertMayMintKeys(caller);
      const key = await ctx.services.apiKeys.generate(caller.user.id, ctx.body.name, ctx.body.kind);
      await ctx.services.audit.record(caller, 'api-key.generate', 'api-key', key.id, { name: key.name, kind: key.kind });
      return { item: key };
    },
  }),
  defineRoute(apiKeyCalls.update, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const key = await ctx.services.apiKeys.rename(caller.user.id, ctx.body.id, ctx.body.name);
      await ctx.services.audit.record(caller, 'api-key.update', 'api-key', key.id, ctx.body);
      return { item: key };
    },
  }),
  defineRoute(apiKeyCalls.revoke, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.apiKeys.revoke(caller.user.id, ctx.body.id);
      await ctx.services.audit.record(caller, 'api-key.revoke', 'api-key', ctx.body.id);
      return undefined;
    },
  }),
];
