import { z } from 'zod';
import { CLIENT_REPORT_MAX_BYTES, ClientErrorReport, ClientFeedback } from '@studio/schema';
import { defineRoute, readBodyBytes, requireCaller } from '../http/route';

/** Error reports from the web app (gateway §7, the Sentry relays) and the administrators' page of those kept. */
export const clientErrorRoutes = [
  defineRoute({
    spec: ['GTW-002'],
    method: 'POST',
    url: '/v1/sentry-tunnel',
    summary: "Relays the web app's error reports (a Sentry envelope) to the configured DSN, or keeps them for administrators",
    tag: 'gateway',
    auth: 'user',
    rawBody: true,
    rateLimit: 'clientErrors',
    response: z.object({}),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const kept = await ctx.services.clientErrors.relayEnvelope(caller, (await readBodyBytes(ctx.req.body, CLIENT_REPORT_MAX_BYTES)) ?? new Uint8Array());
      for (const report of kept) ctx.req.log.warn({ clientError: { ...report, userId: caller.user.id } }, 'Error in the web app');
      return {};
    },
  }),
  defineRoute({
    spec: ['GTW-003'],
    method: 'POST',
    url: '/v1/sentry-user-feedback',
    summary: "Relays a user's words about an error to the configured DSN, or keeps them for administrators",
    tag: 'gateway',
    auth: 'user',
    body: ClientFeedback,
    rateLimit: 'clientErrors',
    response: z.object({}),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const kept = await ctx.services.clientErrors.relayFeedback(caller, ctx.body);
      if (kept) ctx.req.log.info({ clientFeedback: { ...kept, userId: caller.user.id } }, 'Feedback on an error in the web app');
      return {};
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/admin/client-errors',
    summary: 'Error reports and feedback from the web app kept without a Sentry DSN (30 days), newest first',
    tag: 'admin',
    auth: 'admin',
    response: z.object({ items: z.array(ClientErrorReport) }),
    handler: async (ctx) => ({ items: await ctx.services.clientErrors.list() }),
  }),
];
