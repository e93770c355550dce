import { z } from 'zod';
import { Id, LockRequest, LockRequestAnswer, QueryBool, ResourceType, itemOf, itemsOf } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

const LockParams = z.object({ type: ResourceType, id: Id });
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });

/** "Ask for edit" (#50): requests for a record's edit lock, polled by the holder's and the asker's pages. */
export const lockRequestRoutes = [
  defineRoute({
    method: 'POST',
    url: '/v1/locks/{type}/{id}/requests',
    summary: 'Ask the user editing a record for its edit lock (409 when nobody else holds it); a second ask while the first waits is the first',
    tag: 'permissions',
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    resource: { type: { param: 'type' }, param: 'id', action: 'write' },
    status: 201,
    response: itemOf(LockRequest),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await ctx.services.lockRequests.ask(caller, ctx.resource!);
      await ctx.services.audit.record(caller, 'lock.request', ctx.resource!.type, ctx.resource!.id, { requestId: item.id });
      return { item };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/locks/{type}/{id}/requests',
    summary: "The lock's holder: requests waiting for an answer; anyone else who may edit: their own recent requests and answers",
    tag: 'permissions',
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    resource: { type: { param: 'type' }, param: 'id', action: 'write' },
    response: itemsOf(LockRequest),
    handler: async (ctx) => ({ items: await ctx.services.lockRequests.list(requireCaller(ctx), ctx.resource!) }),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/locks/{type}/{id}/requests/{requestId}/answer',
    summary: "The lock holder's answer to a request: grant hands the lock to the asker, decline tells them no (403 for anyone else)",
    tag: 'permissions',
    auth: 'user',
    params: LockParams.extend({ requestId: Id }),
    query: AdminQuery,
    body: LockRequestAnswer,
    resource: { type: { param: 'type' }, param: 'id', action: 'write' },
    response: itemOf(LockRequest),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await ctx.services.lockRequests.answer(caller, ctx.resource!, ctx.params.requestId, ctx.body.answer);
      await ctx.services.audit.record(caller, `lock.request.${ctx.body.answer}`, ctx.resource!.type, ctx.resource!.id, { requestId: item.id });
      return { item };
    },
  }),
];
