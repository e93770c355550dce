import { randomUUID } from 'node:crypto';
import { ApiKeyCreate, ApiKeyRevoke, ApiKeyUpdate, notFound, type ApiKey } from '@studio/schema';
import type { Selectable } from 'kysely';
import { defineRoute, requireCaller } from '../http/route';
import { API_KEY_PREFIX, hashToken, newToken } from '../auth/tokens';
import type { ApiKeysTable } from '../store/tables';

const toWire = (k: Selectable<ApiKeysTable>, key?: string): ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: new Date(k.created_at).toISOString(),
  lastUsedAt: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
  ...(key && { key }),
});

/** API keys work as bearer tokens; the key itself is answered once, at generation, and stored hashed. */
export const apiKeyRoutes = [
  defineRoute({
    spec: ['CAT-004'],
    method: 'GET',
    url: '/v1/api-key',
    summary: "The caller's API keys (never the keys themselves)",
    tag: 'api-keys',
    auth: 'user',
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const rows = await ctx.services.db.selectFrom('api_keys').selectAll().where('user_id', '=', caller.user.id).where('revoked_at', 'is', null).orderBy('created_at', 'desc').execute();
      return { items: rows.map((r) => toWire(r)) };
    },
  }),
  defineRoute({
    spec: ['CAT-005'],
    method: 'POST',
    url: '/v1/api-key',
    summary: 'Generate an API key; the answer is the only time the key is shown',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const key = newToken(API_KEY_PREFIX);
      const row = await ctx.services.db
        .insertInto('api_keys')
        .values({ id: randomUUID(), user_id: caller.user.id, name: ctx.body.name, prefix: key.slice(0, 10), key_hash: hashToken(key) })
        .returningAll()
        .executeTakeFirstOrThrow();
      await ctx.services.audit.record(caller, 'api-key.generate', 'api-key', row.id, { name: row.name });
      return { item: toWire(row, key) };
    },
  }),
  defineRoute({
    spec: ['CAT-006'],
    method: 'PUT',
    url: '/v1/api-key',
    summary: 'Rename an API key',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyUpdate,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = await ctx.services.db
        .updateTable('api_keys')
        .set({ name: ctx.body.name })
        .where('id', '=', ctx.body.id)
        .where('user_id', '=', caller.user.id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound('API key not found');
      await ctx.services.audit.record(caller, 'api-key.update', 'api-key', row.id, ctx.body);
      return { item: toWire(row) };
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
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const r = await ctx.services.db
        .updateTable('api_keys')
        .set({ revoked_at: new Date() })
        .where('id', '=', ctx.body.id)
        .where('user_id', '=', caller.user.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!Number(r.numUpdatedRows)) throw notFound('API key not found');
      await ctx.services.audit.record(caller, 'api-key.revoke', 'api-key', ctx.body.id);
      return undefined;
    },
  }),
];
