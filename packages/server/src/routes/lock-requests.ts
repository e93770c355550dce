import { lockCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/** "Ask for edit" (#50): requests for a record's edit lock, polled by the holder's and the asker's pages. */
export const lockRequestRoutes = [
  defineRoute(lockCalls.ask, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await ctx.services.lockRequests.ask(caller, ctx.resource!);
      await ctx.services.audit.record(caller, 'lock.request', ctx.resource!.type, ctx.resource!.id, { requestId: item.id });
      return { item };
    },
  }),
  defineRoute(lockCalls.requests, {
    handler: async (ctx) => ({ items: await ctx.services.lockRequests.list(requireCaller(ctx), ctx.resource!) }),
  }),
  defineRoute(lockCalls.answer, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await ctx.services.lockRequests.answer(caller, ctx.resource!, ctx.params.requestId, ctx.body.answer);
      await ctx.services.audit.record(caller, `lock.request.${ctx.body.answer}`, ctx.resource!.type, ctx.resource!.id, { requestId: item.id });
      return { item };
    },
  }),
];
