import { z } from 'zod';
import { assertCanExport, buildTemplateQuery, canonicalJson, footTrafficGroup, parseParameters, templateOf } from '@studio/analytics';
import { AnalyticSetGroupView, Id, PanelLabels, forbidden, itemOf } from '@studio/schema';
import { streamBody } from '../http/streams';
import { defineRoute, requireCaller } from '../http/route';
import { assertGroup } from '../services/analytics';
import type { Caller } from '../http/caller';
import { ARROW_STREAM } from '../http/media-types';

const GroupParams = z.object({ groupId: z.string().max(100) });
const Impersonate = z.object({ impersonateOrganizationId: Id.optional() });

/** Administrators, or (for their own organization's cache) its makers. */
function assertCanInvalidate(caller: Caller, orgId?: string) {
  if (caller.isAdmin) return;
  if (orgId && caller.memberships.some((m) => m.organization_id === orgId && m.role === 'maker')) return;
  throw forbidden(orgId ? 'Only administrators and makers of the organization may invalidate its cache' : 'Administrators only');
}

export const analyticsRoutes = [
  defineRoute({
    spec: ['ANA-001'],
    method: 'GET',
    url: '/v1/analytic-sets/{groupId}',
    summary: 'The analytic sets of a group with query parameters filled from the bound data, template parameters and view layouts',
    tag: 'analytics',
    auth: 'user',
    params: GroupParams,
    query: Impersonate,
    response: itemOf(AnalyticSetGroupView),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = await ctx.services.analytics.binding(caller, ctx.params.groupId, ctx.query.impersonateOrganizationId);
      return { item: await ctx.services.analytics.group(b, ctx.params.groupId) };
    },
  }),
  defineRoute({
    spec: ['ANA-002'],
    method: 'POST',
    url: '/v1/query/{groupId}/template/{templateId}',
    summary: 'Run a template of an analytic set: JSON {items} (cached), Arrow IPC or CSV (Movement Pivot CSV is the export, allowed by movement_pivot_canExport)',
    tag: 'analytics',
    auth: 'user',
    transaction: false,
    params: z.object({ groupId: z.string().max(100), templateId: z.string().max(100) }),
    query: Impersonate.extend({ expectData: z.enum(['true', 'false']).optional() }),
    body: z.unknown(),
    // JSON rows (the default), or by Accept an Arrow IPC stream or CSV; expectData=false: nothing (204).
    produces: [ARROW_STREAM, 'text/csv'],
    response: z.object({ items: z.array(z.record(z.string(), z.unknown())) }),
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
  defineRoute({
    spec: ['ANA-003'],
    method: 'GET',
    url: '/v1/labels',
    summary: "Labels of the caller's bound data (foot-traffic group): geography and place values with display names, and the visit date coverage",
    tag: 'analytics',
    auth: 'user',
    query: Impersonate.extend({ groupId: z.string().max(100).optional() }),
    response: itemOf(PanelLabels),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const b = await ctx.services.analytics.binding(caller, ctx.query.groupId ?? footTrafficGroup().groupId, ctx.query.impersonateOrganizationId);
      return { item: await ctx.services.analytics.labels(b, ctx.req.headers['cache-control'] as string | undefined) };
    },
  }),
  defineRoute({
    spec: ['ANA-004'],
    method: 'POST',
    url: '/v1/invalidate/labels',
    summary: 'Forget every cached label set (administrators)',
    tag: 'analytics',
    auth: 'admin',
    status: 204,
    handler: async (ctx) => {
      await ctx.services.analytics.cache.invalidateLabels();
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ANA-005'],
    method: 'POST',
    url: '/v1/invalidate/{groupId}/org/{orgId}',
    summary: "Forget an organization's cached results of a group (administrators, or makers of that organization)",
    tag: 'analytics',
    auth: 'user',
    params: z.object({ groupId: z.string().max(100), orgId: Id }),
    status: 204,
    handler: async (ctx) => {
      assertCanInvalidate(requireCaller(ctx), ctx.params.orgId);
      assertGroup(ctx.params.groupId);
      await ctx.services.analytics.cache.invalidateGroupOrg(ctx.params.groupId, ctx.params.orgId);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['ANA-006'],
    method: 'POST',
    url: '/v1/invalidate/{groupId}/default',
    summary: 'Forget every cached result of a group computed on the built-in sample (administrators)',
    tag: 'analytics',
    auth: 'admin',
    params: GroupParams,
    status: 204,
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      await ctx.services.analytics.cache.invalidateGroupDefault(ctx.params.groupId);
      return undefined;
    },
  }),
];

