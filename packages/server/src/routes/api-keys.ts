import { ApiKeyCreate, ApiKeyRevoke, ApiKeyUpdate, ApiKey, itemOf, itemsOf } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/** API keys work as bearer tokens; the key itself is answered once, at generation, and stored hashed. */
export const apiKeyRoutes = [
  defineRoute({
    spec: ['CAT-004'],
    method: 'GET',
    url: '/v1/api-key',
    response: itemsOf(ApiKey),
    summary: "The caller's API keys (never the keys themselves)",
    tag: 'api-keys',
    auth: 'user',
    handler: async (ctx) => {
      return { items: await ctx.services.apiKeys.list(requireCaller(ctx).user.id) };
    },
  }),
  defineRoute({
    spec: ['CAT-005'],
    method: 'POST',
    url: '/v1/api-key',
    response: itemOf(ApiKey),
    summary: 'Generate an API key; the answer is the only time the key is shown. kind "sdk": a Studio Data SDK refresh token (v1.…), exchanged at /sdk/oauth/token',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const key = await ctx.services.apiKeys.generate(caller.user.id, ctx.body.name, ctx.body.kind);
      await ctx.services.audit.record(caller, 'api-key.generate', 'api-key', key.id, { name: key.name, kind: key.kind });
      return { item: key };
    },
  }),
  defineRoute({
    spec: ['CAT-006'],
    method: 'PUT',
    url: '/v1/api-key',
    response: itemOf(ApiKey),
    summary: 'Rename an API key',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyUpdate,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const key = await ctx.services.apiKeys.rename(caller.user.id, ctx.body.id, ctx.body.name);
      await ctx.services.audit.record(caller, 'api-key.update', 'api-key', key.id, ctx.body);
      return { item: key };
    },
  }),
  defineRoute({
    spec: ['CAT-007'],
    method: 'DELETE',
    url: '/v1/api-key',
    summary: 'Revoke an API key (body {id}); it stops working at once',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyRevoke,
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.apiKeys.revoke(caller.user.id, ctx.body.id);
      await ctx.services.audit.record(caller, 'api-key.revoke', 'api-key', ctx.body.id);
      return undefined;
    },
  }),
];
