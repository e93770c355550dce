import type { z } from 'zod';
import { legalCalls, type LegalAgreementId } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

const text = ({ id, version, title, text }: { id: z.infer<typeof LegalAgreementId>; version: string; title: string; text: string }) => ({ id, version, title, text });

export const legalRoutes = [
  defineRoute(legalCalls.get, {
    handler: async (ctx) => ({ item: text(await ctx.services.legal.latest(requireCaller(ctx), ctx.params.id)) }),
  }),
  defineRoute(legalCalls.consentOf, {
    handler: async (ctx) => ({ item: await ctx.services.legal.consentOf(requireCaller(ctx), ctx.params.id) }),
  }),
  defineRoute(legalCalls.consent, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const consent = await ctx.services.legal.consent(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'legal.consent', 'legal', ctx.params.id, { version: consent.version });
      return { item: consent };
    },
  }),
  defineRoute(legalCalls.pending, {
    handler: async (ctx) => ({ items: (await ctx.services.legal.pending(requireCaller(ctx))).map(text) }),
  }),
  defineRoute(legalCalls.publish, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const published = await ctx.services.legal.publish(caller, ctx.params.id, ctx.body);
      await ctx.services.audit.record(caller, 'legal.publish', 'legal', ctx.params.id, { version: published.version, organizationId: published.organizationId });
      ctx.reply.code(201);
      return { item: { ...text(published), organizationId: published.organizationId } };
    },
  }),
];
