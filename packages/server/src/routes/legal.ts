import { z } from 'zod';
import { Consent, LegalAgreement, LegalAgreementId, LegalVersionBody } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

const IdParam = z.object({ id: LegalAgreementId });
const AgreementItem = z.object({ item: LegalAgreement });
const ConsentItem = z.object({ item: Consent });
const text = ({ id, version, title, text }: { id: z.infer<typeof LegalAgreementId>; version: string; title: string; text: string }) => ({ id, version, title, text });

export const legalRoutes = [
  defineRoute({
    spec: ['CAT-175'],
    method: 'GET',
    url: '/v1/legal/{id}',
    summary: "The agreement's text the caller is bound by: the newest version published for everyone or their organization, else the built-in one",
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    response: AgreementItem,
    handler: async (ctx) => ({ item: text(await ctx.services.legal.latest(requireCaller(ctx), ctx.params.id)) }),
  }),
  defineRoute({
    spec: ['CAT-176'],
    method: 'GET',
    url: '/v1/legal/latest/{id}/consent',
    summary: "The caller's consent to the latest version (consentedAt null when not given)",
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    response: ConsentItem,
    handler: async (ctx) => ({ item: await ctx.services.legal.consentOf(requireCaller(ctx), ctx.params.id) }),
  }),
  defineRoute({
    spec: ['CAT-177'],
    method: 'POST',
    url: '/v1/legal/{id}/consent',
    summary: 'Record consent to the latest version',
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    response: ConsentItem,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const consent = await ctx.services.legal.consent(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'legal.consent', 'legal', ctx.params.id, { version: consent.version });
      return { item: consent };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/legal/pending',
    summary: 'Agreements published by an administrator that the caller has not consented to: the web app shows them at sign-in',
    tag: 'legal',
    auth: 'user',
    response: z.object({ items: z.array(LegalAgreement) }),
    handler: async (ctx) => ({ items: (await ctx.services.legal.pending(requireCaller(ctx))).map(text) }),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/admin/legal/{id}',
    summary: "Publish a new version of an agreement, for everyone or one organization's members; each is asked to consent at their next sign-in",
    tag: 'admin',
    auth: 'admin',
    params: IdParam,
    body: LegalVersionBody,
    status: 201,
    response: z.object({ item: LegalAgreement.extend({ organizationId: z.string().nullable() }) }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const published = await ctx.services.legal.publish(caller, ctx.params.id, ctx.body);
      await ctx.services.audit.record(caller, 'legal.publish', 'legal', ctx.params.id, { version: published.version, organizationId: published.organizationId });
      ctx.reply.code(201);
      return { item: { ...text(published), organizationId: published.organizationId } };
    },
  }),
];
