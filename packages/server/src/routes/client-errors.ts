import { CLIENT_REPORT_MAX_BYTES, clientErrorCalls } from '@studio/schema';
import { defineRoute, readBodyBytes, requireCaller } from '../http/route';

/** Error reports from the web app (gateway §7, the Sentry relays) and the administrators' page of those kept. */
export const clientErrorRoutes = [
  defineRoute(clientErrorCalls.tunnel, {
    rateLimit: 'clientErrors',
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const kept = await ctx.services.clientErrors.relayEnvelope(caller, (await readBodyBytes(ctx.req.body, CLIENT_REPORT_MAX_BYTES)) ?? new Uint8Array());
      for (const report of kept) ctx.req.log.warn({ clientError: { ...report, userId: caller.user.id } }, 'Error in the web app');
      return {};
    },
  }),
  defineRoute(clientErrorCalls.feedback, {
    rateLimit: 'clientErrors',
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const kept = await ctx.services.clientErrors.relayFeedback(caller, ctx.body);
      if (kept) ctx.req.log.info({ clientFeedback: { ...kept, userId: caller.user.id } }, 'Feedback on an error in the web app');
      return {};
    },
  }),
  defineRoute(clientErrorCalls.list, {
    handler: async (ctx) => ({ items: await ctx.services.clientErrors.list() }),
  }),
];
