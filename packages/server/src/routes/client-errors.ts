import { z } from 'zod';
import { CLIENT_REPORT_MAX_BYTES, ClientErrorReport, ClientFeedback, StudioError } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/** The body as bytes, refusing more than `max` (413) before reading on. */
async function readBytes(stream: unknown, max: number): Promise<Uint8Array> {
  if (!stream || typeof (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== 'function') throw new StudioError(422, 'Invalid error report: The envelope is empty');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new StudioError(413, 'Request body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

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
      const kept = await ctx.services.clientErrors.relayEnvelope(caller, await readBytes(ctx.req.body, CLIENT_REPORT_MAX_BYTES));
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
