import { jobCalls } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

export const jobRoutes = [
  defineRoute(jobCalls.list, { handler: async (ctx) => ({ items: await ctx.services.jobs.list(requireCaller(ctx), ctx.query) }) }),
  defineRoute(jobCalls.get, { handler: async (ctx) => ({ item: await ctx.services.jobs.get(requireCaller(ctx), ctx.params.id) }) }),
  defineRoute(jobCalls.cancel, {
    transaction: false,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const job = await ctx.services.jobs.cancel(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'job.cancel', 'job', job.id, { kind: job.kind, resourceId: job.resourceId });
      return { item: job };
    },
  }),
];
