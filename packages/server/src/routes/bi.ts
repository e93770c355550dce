import { z } from 'zod';
import { parseParameters, templateOf } from '@studio/analytics';
import { AnalyticSetConfig, Id, QueryParamConfig, SharedParameters, badInput, forbidden, itemOf, notFound } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext } from '../http/route';
import { assertGroup, validateOverrides, type TemplateOverride } from '../services/analytics';
import {
  CONFIG_NOT_FOUND, assertEmails, assertOrgAccess, configToWire, paramConfigToWire, sharedToWire, type BiStore, type DatasetIds,
  type QueryParamConfigRow,
} from '../services/bi';
import { homeOrgId, type Caller } from '../http/caller';

const IdParams = z.object({ id: Id });
const GroupOrg = z.object({ groupId: z.string().max(100), orgId: Id });
const GroupOnly = z.object({ groupId: z.string().max(100) });
const Datasets = z.object({ places: Id, devices: Id, visits: Id });
const Override = z.object({
  title: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  queryParameters: z.array(z.object({ id: z.string().max(100), name: z.string().max(200).optional(), description: z.string().max(2000).optional(), defaultValue: z.unknown().optional() })).max(50).optional(),
});
const ConfigBody = z.object({
  groupId: z.string().max(100),
  orgId: Id,
  /** null or absent: the built-in sample (the config then only carries template parameters). */
  datasets: Datasets.nullable().optional(),
  templateParameters: z.record(z.string().max(100), z.union([z.boolean(), z.string().max(1000)])).optional(),
  templateOverrides: z.record(z.string().max(100), Override).optional(),
});
const ParamObject = z.record(z.string().max(100), z.unknown());
const ParamConfigBody = z.object({ groupId: z.string().max(100), orgId: Id, parameters: ParamObject.default({}) });

type Ctx = RouteContext<unknown, unknown, unknown>;

/** Checks and binds a config's datasets: readable by the caller, and visits that reference known devices and places. */
async function checkConfig(ctx: Ctx, body: z.infer<typeof ConfigBody>) {
  const caller = requireCaller(ctx);
  assertGroup(body.groupId);
  assertOrgAccess(caller, body.orgId, true);
  const overrides = (body.templateOverrides ?? {}) as Record<string, TemplateOverride>;
  validateOverrides(body.groupId, overrides);
  const datasets = (body.datasets ?? null) as DatasetIds | null;
  if (datasets) {
    await ctx.services.analytics.checkBoundData(caller, datasets, ctx.adminMode);
  }
  return { datasets, templateParameters: body.templateParameters ?? {}, templateOverrides: overrides as Record<string, unknown> };
}

/** Default parameter values must each be a valid value of the group's parameters. */
function checkParameterValues(parameters: Record<string, unknown>) {
  const known = new Set(['geographies', 'places', 'period', 'age', 'gender', 'income', 'pivot']);
  const unknown = Object.keys(parameters).filter((k) => !known.has(k));
  if (unknown.length) throw badInput(`Unknown query parameter ${unknown[0]}`);
  // Fill the required ones with placeholders so that only the given values are checked.
  parseParameters({ period: { periodType: 'MONTHLY', start: '2000-01', end: '2000-01' }, ...parameters });
}

/** The spec's lookup by group and organization (members, administrators): 404 none, 500 several. */
function groupOrgLookup<R>(spec: string, base: string, what: string, find: (bi: BiStore, groupId: string, orgId: string) => Promise<R | null>, wire: (r: R) => unknown, answer: z.ZodType) {
  return defineRoute({
    spec: [spec], method: 'GET', url: `${base}/{groupId}/org/{orgId}`,
    summary: `An organization's ${what} of a group (404 when none, 500 when more than one)`,
    tag: 'bi', auth: 'user', params: GroupOrg, response: itemOf(answer),
    handler: async (ctx) => {
      assertOrgAccess(requireCaller(ctx), ctx.params.orgId, false, true);
      const row = await find(ctx.services.analytics.bi, ctx.params.groupId, ctx.params.orgId);
      if (!row) throw notFound(CONFIG_NOT_FOUND);
      return { item: wire(row) };
    },
  });
}

/** Writing a query-parameter config: its organization's makers, or administrators for a group default. */
function assertParamConfigWrite(caller: Caller, row: QueryParamConfigRow) {
  if (!row.organization_id) {
    if (!caller.isAdmin) throw forbidden('Administrators only');
    return;
  }
  assertOrgAccess(caller, row.organization_id, false, true);
  assertOrgAccess(caller, row.organization_id, true);
}

const configRoutes = [
  groupOrgLookup('BI-001', '/v1/bi/analytic-set-configs', 'analytic-set config', (bi, g, o) => bi.analyticConfigFor(g, o), configToWire, AnalyticSetConfig),
  defineRoute({
    spec: ['BI-002'], method: 'GET', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'An analytic-set config (members of its organization, administrators)',
    tag: 'bi', auth: 'user', params: IdParams,
    response: itemOf(AnalyticSetConfig),
    handler: async (ctx) => {
      const row = await ctx.services.analytics.bi.analyticConfig(ctx.params.id);
      assertOrgAccess(requireCaller(ctx), row.organization_id, false, true);
      return { item: configToWire(row) };
    },
  }),
  defineRoute({
    spec: ['BI-003'], method: 'POST', url: '/v1/bi/analytic-set-configs',
    summary: 'Bind datasets {places, devices, visits} to a group for an organization (makers of it, administrators); checked with validateBoundData',
    tag: 'bi', auth: 'user', body: ConfigBody, status: 201,
    response: itemOf(AnalyticSetConfig),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const v = await checkConfig(ctx as Ctx, ctx.body);
      const row = await ctx.services.analytics.bi.insertAnalyticConfig({ ...v, groupId: ctx.body.groupId, orgId: ctx.body.orgId, by: caller.user.id });
      await ctx.services.audit.record(caller, 'bi.analytic-set-config.create', 'analytic-set-config', row.id, { groupId: row.group_id, orgId: row.organization_id });
      await ctx.services.analytics.cache.invalidateGroupOrg(row.group_id, row.organization_id);
      return { item: configToWire(row) };
    },
  }),
  defineRoute({
    spec: ['BI-004'], method: 'PUT', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'Replace an analytic-set config (group and organization cannot change)',
    tag: 'bi', auth: 'user', params: IdParams, body: ConfigBody,
    response: itemOf(AnalyticSetConfig),
    handler: async (ctx) => {
      const row = await ctx.services.analytics.bi.analyticConfig(ctx.params.id);
      assertOrgAccess(requireCaller(ctx), row.organization_id, false, true);
      if (ctx.body.groupId !== row.group_id || ctx.body.orgId !== row.organization_id) throw badInput('groupId and orgId of a config cannot change');
      const v = await checkConfig(ctx as Ctx, ctx.body);
      const updated = await ctx.services.analytics.bi.updateAnalyticConfig(row.id, v);
      await ctx.services.audit.record(ctx.caller, 'bi.analytic-set-config.update', 'analytic-set-config', row.id, { groupId: row.group_id, orgId: row.organization_id });
      await ctx.services.analytics.cache.invalidateGroupOrg(row.group_id, row.organization_id);
      return { item: configToWire(updated) };
    },
  }),
  defineRoute({
    spec: ['BI-005'], method: 'DELETE', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'Delete an analytic-set config; the organization falls back to the built-in sample',
    tag: 'bi', auth: 'user', params: IdParams,
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = await ctx.services.analytics.bi.analyticConfig(ctx.params.id);
      assertOrgAccess(caller, row.organization_id, false, true);
      assertOrgAccess(caller, row.organization_id, true);
      await ctx.services.analytics.bi.deleteAnalyticConfig(row.id);
      await ctx.services.audit.record(caller, 'bi.analytic-set-config.delete', 'analytic-set-config', row.id, { groupId: row.group_id, orgId: row.organization_id });
      await ctx.services.analytics.cache.invalidateGroupOrg(row.group_id, row.organization_id);
      return undefined;
    },
  }),
];

const paramConfigRoutes = [
  defineRoute({
    spec: ['BI-011'], method: 'GET', url: '/v1/bi/query-param-configs/{groupId}/default',
    summary: "A group's default query-parameter values (404 when none)",
    tag: 'bi', auth: 'user', params: GroupOnly,
    response: itemOf(QueryParamConfig),
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      const row = await ctx.services.analytics.bi.paramConfigFor(ctx.params.groupId, null);
      if (!row) throw notFound(CONFIG_NOT_FOUND);
      return { item: paramConfigToWire(row) };
    },
  }),
  defineRoute({
    spec: ['BI-012'], method: 'PUT', url: '/v1/bi/query-param-configs/{groupId}/default',
    summary: "Set a group's default query-parameter values (administrators)",
    tag: 'bi', auth: 'admin', params: GroupOnly, body: z.object({ parameters: ParamObject }),
    response: itemOf(QueryParamConfig),
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      checkParameterValues(ctx.body.parameters);
      const row = await ctx.services.analytics.bi.upsertParamConfig(ctx.params.groupId, null, ctx.body.parameters, requireCaller(ctx).user.id);
      await ctx.services.audit.record(ctx.caller, 'bi.query-param-config.default', 'query-param-config', row.id, { groupId: ctx.params.groupId });
      return { item: paramConfigToWire(row) };
    },
  }),
  groupOrgLookup('BI-006', '/v1/bi/query-param-configs', 'query-parameter config', (bi, g, o) => bi.paramConfigFor(g, o), paramConfigToWire, QueryParamConfig),
  defineRoute({
    spec: ['BI-007'], method: 'GET', url: '/v1/bi/query-param-configs/{id}',
    summary: 'A query-parameter config', tag: 'bi', auth: 'user', params: IdParams,
    response: itemOf(QueryParamConfig),
    handler: async (ctx) => {
      const row = await ctx.services.analytics.bi.paramConfig(ctx.params.id);
      if (row.organization_id) assertOrgAccess(requireCaller(ctx), row.organization_id, false, true);
      return { item: paramConfigToWire(row) };
    },
  }),
  defineRoute({
    spec: ['BI-008'], method: 'POST', url: '/v1/bi/query-param-configs',
    summary: "Create an organization's default query-parameter values for a group (makers of it, administrators)",
    tag: 'bi', auth: 'user', body: ParamConfigBody, status: 201,
    response: itemOf(QueryParamConfig),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      assertGroup(ctx.body.groupId);
      assertOrgAccess(caller, ctx.body.orgId, true);
      checkParameterValues(ctx.body.parameters);
      const row = await ctx.services.analytics.bi.upsertParamConfig(ctx.body.groupId, ctx.body.orgId, ctx.body.parameters, caller.user.id, true);
      await ctx.services.audit.record(caller, 'bi.query-param-config.create', 'query-param-config', row.id, { groupId: ctx.body.groupId, orgId: ctx.body.orgId });
      return { item: paramConfigToWire(row) };
    },
  }),
  defineRoute({
    spec: ['BI-009'], method: 'PUT', url: '/v1/bi/query-param-configs/{id}',
    summary: 'Replace the values of a query-parameter config', tag: 'bi', auth: 'user', params: IdParams,
    body: z.object({ parameters: ParamObject }).passthrough(),
    response: itemOf(QueryParamConfig),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = await ctx.services.analytics.bi.paramConfig(ctx.params.id);
      assertParamConfigWrite(caller, row);
      checkParameterValues(ctx.body.parameters);
      const updated = await ctx.services.analytics.bi.updateParamConfig(row.id, ctx.body.parameters);
      await ctx.services.audit.record(caller, 'bi.query-param-config.update', 'query-param-config', row.id);
      return { item: paramConfigToWire(updated) };
    },
  }),
  defineRoute({
    spec: ['BI-010'], method: 'DELETE', url: '/v1/bi/query-param-configs/{id}',
    summary: 'Delete a query-parameter config', tag: 'bi', auth: 'user', params: IdParams,
    status: 204,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = await ctx.services.analytics.bi.paramConfig(ctx.params.id);
      assertParamConfigWrite(caller, row);
      await ctx.services.analytics.bi.deleteParamConfig(row.id);
      await ctx.services.audit.record(caller, 'bi.query-param-config.delete', 'query-param-config', row.id);
      return undefined;
    },
  }),
];

const sharedRoutes = [
  defineRoute({
    spec: ['BI-013'], method: 'GET', url: '/v1/bi/shared-parameters/{id}',
    summary: 'A saved parameter set (owner, its organization, invited e-mails, administrators)',
    tag: 'bi', auth: 'user', params: IdParams,
    response: itemOf(SharedParameters),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const found = await ctx.services.analytics.bi.readableSharedParameters(caller, ctx.params.id);
      return { item: sharedToWire(found, caller.isAdmin || found.row.owner_id === caller.user.id) };
    },
  }),
  defineRoute({
    spec: ['BI-014'], method: 'POST', url: '/v1/bi/shared-parameters',
    summary: 'Save a parameter set of a group template, to share', tag: 'bi', auth: 'user', status: 201,
    body: z.object({ groupId: z.string().max(100), templateId: z.string().max(100), name: z.string().max(200).default(''), parameters: ParamObject }),
    response: itemOf(SharedParameters),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      assertGroup(ctx.body.groupId);
      templateOf(ctx.body.templateId);
      const parameters = parseParameters(ctx.body.parameters) as Record<string, unknown>;
      const found = await ctx.services.analytics.bi.insertSharedParameters({
        owner: caller.user.id, orgId: homeOrgId(caller), groupId: ctx.body.groupId, templateId: ctx.body.templateId, name: ctx.body.name, parameters,
      });
      await ctx.services.audit.record(caller, 'bi.shared-parameters.create', 'shared-parameters', found.row.id, { groupId: ctx.body.groupId, templateId: ctx.body.templateId });
      return { item: sharedToWire(found, true) };
    },
  }),
  defineRoute({
    spec: ['BI-015'], method: 'POST', url: '/v1/bi/shared-parameters/{id}/invite',
    summary: 'Share a saved parameter set with e-mail addresses (owner, administrators); recorded as invitations',
    tag: 'bi', auth: 'user', params: IdParams,
    body: z.object({ emails: z.array(z.string().max(320)).min(1).max(100), description: z.string().max(2000).default('') }),
    rateLimit: 'invitations',
    response: itemOf(SharedParameters),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { row } = await ctx.services.analytics.bi.readableSharedParameters(caller, ctx.params.id);
      if (!caller.isAdmin && row.owner_id !== caller.user.id) throw forbidden('Only the owner may share these parameters');
      assertEmails(ctx.body.emails);
      const found = await ctx.services.analytics.bi.invite(row.id, ctx.body.emails, ctx.body.description, caller.user.id);
      await ctx.services.audit.record(caller, 'bi.shared-parameters.invite', 'shared-parameters', row.id, { emails: ctx.body.emails });
      return { item: sharedToWire(found, true) };
    },
  }),
];

export const biRoutes = [...configRoutes, ...paramConfigRoutes, ...sharedRoutes];
