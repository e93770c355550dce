import { z } from 'zod';
import { LegalAgreementId } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/** The agreements a user consents to; the version changes when the text does, asking for consent again. */
export const LEGAL_TEXTS = {
  'studio-tos': { version: '2026-01', title: 'Studio terms of use', text: 'You may use this studio to analyse data you have the right to use. Administrators of this installation set further rules for their organizations.' },
  'fsq-sample-data': { version: '2026-01', title: 'Sample data terms', text: 'Sample datasets are built from public data (Natural Earth, US Census, GeoNames) and are for evaluation and demonstration.' },
  'fsq-bi': { version: '2026-01', title: 'Analytic sets terms', text: 'Analytic sets show aggregated, weighted panel figures. Do not attempt to identify individual devices.' },
  'fsq-despp': { version: '2026-01', title: 'Data export and sharing policy', text: 'Exports of analytic results stay within your organization unless its administrator allows otherwise.' },
} as const;

const IdParam = z.object({ id: LegalAgreementId });

/** The caller's consent to the latest version of an agreement, as both consent calls answer it. */
const consentItem = (id: keyof typeof LEGAL_TEXTS, consentedAt: Date | string | null) => ({
  item: { agreementId: id, version: LEGAL_TEXTS[id].version, consentedAt: consentedAt ? new Date(consentedAt).toISOString() : null },
});

export const legalRoutes = [
  defineRoute({
    spec: ['CAT-175'],
    method: 'GET',
    url: '/v1/legal/{id}',
    summary: 'The current text of a legal agreement',
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    handler: async ({ params }) => ({ item: { id: params.id, ...LEGAL_TEXTS[params.id] } }),
  }),
  defineRoute({
    spec: ['CAT-176'],
    method: 'GET',
    url: '/v1/legal/latest/{id}/consent',
    summary: "The caller's consent to the latest version (consentedAt null when not given)",
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const version = LEGAL_TEXTS[ctx.params.id].version;
      const row = await ctx.services.db
        .selectFrom('legal_consents')
        .select('consented_at')
        .where('user_id', '=', caller.user.id)
        .where('agreement_id', '=', ctx.params.id)
        .where('version', '=', version)
        .executeTakeFirst();
      return consentItem(ctx.params.id, row?.consented_at ?? null);
    },
  }),
  defineRoute({
    spec: ['CAT-177'],
    method: 'POST',
    url: '/v1/legal/{id}/consent',
    summary: 'Record consent to the latest version',
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const version = LEGAL_TEXTS[ctx.params.id].version;
      const row = await ctx.services.db
        .insertInto('legal_consents')
        .values({ user_id: caller.user.id, agreement_id: ctx.params.id, version })
        .onConflict((oc) => oc.columns(['user_id', 'agreement_id', 'version']).doUpdateSet({ version }))
        .returning('consented_at')
        .executeTakeFirstOrThrow();
      await ctx.services.audit.record(caller, 'legal.consent', 'legal', ctx.params.id, { version });
      return consentItem(ctx.params.id, row.consented_at);
    },
  }),
];
