import { assertCanExport, buildTemplateQuery, canonicalJson, footTrafficGroup, parseParameters, templateOf } from '@studio/analytics';
import { analyticsCalls, forbidden } from '@studio/schema';
import { streamBody } from '../http/streams';
import { defineRoute, requireCaller } from '../http/route';
import { assertGroup } from '../services/analytics';
import type { Caller } from '../http/caller';
import { ARROW_STREAM } from '../http/media-types';

/** Administrators, or (for their own organization's cache) its makers. */
function assertCanInvalidate(caller: Caller, orgId?: string) {
  if (caller.isAdmin) return;
  if (orgId && caller.memberships.some((m) => m.organization_id === orgId && m.role === 'maker')) return;
  throw forbidden(orgId ? 'Only administrators and makers of the organization may invalidate its cache' : 'Administrators only');
}

export const analyticsRoutes = [
  defineRoute(analyticsCalls.sets, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = await ctx.services.analytics.binding(caller, ctx.params.groupId, ctx.query.impersonateOrganizationId);
      return { item: await ctx.services.analytics.group(b, ctx.params.groupId) };
    },
  }),
  defineRoute(analyticsCalls.query, {
    transaction: false,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { groupId, templateId } = ctx.params;
      assertGroup(groupId);
      templateOf(templateId);
      const a = ctx.services.analytics;
      const b = await a.binding(caller, groupId, ctx.query.impersonateOrganizationId);
      // Shape and limits first (422): nothing runs and nothing is cached for a bad request.
      const parameters = parseParameters(ctx.body ?? {});
      const built = buildTemplateQuery(templateId, parameters, b.tables);
      const accept = String(ctx.req.headers.accept ?? '');
      const format = accept.includes(ARROW_STREAM) ? 'arrow' : accept.includes('text/csv') ? 'csv' : 'json';
      if (format === 'csv' && templateId === 'movement-pivot') assertCanExport(b.templateParameters);
      // expectData=false: a dry run that only validates the parameters.
      if (ctx.query.expectData === 'false') return undefined;
      // A client that goes away stops the query. Not the request's 'close': Node emits it as soon as the
      // body has been read, long before the answer; the response closing unfinished is the signal.
      const abort = new AbortController();
      ctx.reply.raw.on('close', () => {
        if (!ctx.reply.raw.writableFinished) abort.abort();
      });
      if (format === 'csv') {
        const body = await a.templateStream(built, 'csv', abort.signal);
        const name = templateId === 'movement-pivot' ? 'movement-pivot.csv' : `${templateId}.csv`;
        return ctx.reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(streamBody(body));
      }
      if (format === 'arrow') return ctx.reply.header('content-type', ARROW_STREAM).send(streamBody(await a.templateStream(built, 'arrow', abort.signal)));
      const cacheControl = ctx.req.headers['cache-control'] as string | undefined;
      const key = { organization: b.orgId, groupId, datasets: b.datasets, templateId, parameters };
      const shareKey = /no-(cache|store)/i.test(cacheControl ?? '') ? `${Math.random()}` : canonicalJson(key);
      return { items: await a.templateRows(key, shareKey, built, cacheControl, abort.signal) };
    },
  }),
  defineRoute(analyticsCalls.labels, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = await ctx.services.analytics.binding(caller, ctx.query.groupId ?? footTrafficGroup().groupId, ctx.query.impersonateOrganizationId);
      return { item: await ctx.services.analytics.labels(b, ctx.req.headers['cache-control'] as string | undefined) };
    },
  }),
  defineRoute(analyticsCalls.invalidateLabels, {
    handler: async (ctx) => {
      await ctx.services.analytics.cache.invalidateLabels();
      return undefined;
    },
  }),
  defineRoute(analyticsCalls.invalidateOrg, {
    handler: async (ctx) => {
      assertCanInvalidate(requireCaller(ctx), ctx.params.orgId);
      assertGroup(ctx.params.groupId);
      await ctx.services.analytics.cache.invalidateGroupOrg(ctx.params.groupId, ctx.params.orgId);
      return undefined;
    },
  }),
  defineRoute(analyticsCalls.invalidateDefault, {
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      await ctx.services.analytics.cache.invalidateGroupDefault(ctx.params.groupId);
      return undefined;
    },
  }),
];

