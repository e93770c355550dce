import type { z } from 'zod';
import { parseParameters, templateOf } from '@studio/analytics';
import { AnalyticSetConfigBody, badInput, biCalls, forbidden, notFound, type Contract } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext } from '../http/route';
import { assertGroup, validateOverrides, type TemplateOverride } from '../services/analytics';
import {
  CONFIG_NOT_FOUND, assertEmails, assertOrgAccess, configToWire, paramConfigToWire, sharedToWire, type BiStore, type DatasetIds,
  type QueryParamConfigRow,
} from '../services/bi';
import { homeOrgId, type Caller } from '../http/caller';

type Ctx = RouteContext<unknown, unknown, unknown>;

/** Checks and binds a config's datasets: readable by the caller, and visits that reference known devices and places. */
async function checkConfig(ctx: Ctx, body: z.infer<typeof AnalyticSetConfigBody>) {
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

/** The lookup by group and organization (members, administrators): 404 none (500 several, in the store). */
function groupOrgLookup<Row, A extends z.ZodType>(
  call: Contract<(typeof biCalls.configFor)['params'] & z.ZodType, z.ZodNever, z.ZodNever, z.ZodObject<{ item: A }>>,
  find: (bi: BiStore, groupId: string, orgId: string) => Promise<Row | null>,
  wire: (r: Row) => z.input<A>,
) {
  return defineRoute(call, {
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
  groupOrgLookup(biCalls.configFor, (bi, g, o) => bi.analyticConfigFor(g, o), configToWire),
  defineRoute(biCalls.config, {
    handler: async (ctx) => {
      const row = await ctx.services.analytics.bi.analyticConfig(ctx.params.id);
      assertOrgAccess(requireCaller(ctx), row.organization_id, false, true);
      return { item: configToWire(row) };
    },
  }),
  defineRoute(biCalls.createConfig, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const v = await checkConfig(ctx as Ctx, ctx.body);
      const row = await ctx.services.analytics.bi.insertAnalyticConfig({ ...v, groupId: ctx.body.groupId, orgId: ctx.body.orgId, by: caller.user.id });
      await ctx.services.audit.record(caller, 'bi.analytic-set-config.create', 'analytic-set-config', row.id, { groupId: row.group_id, orgId: row.organization_id });
      await ctx.services.analytics.cache.invalidateGroupOrg(row.group_id, row.organization_id);
      return { item: configToWire(row) };
    },
  }),
  defineRoute(biCalls.updateConfig, {
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
  defineRoute(biCalls.deleteConfig, {
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
  defineRoute(biCalls.groupDefaults, {
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      const row = await ctx.services.analytics.bi.paramConfigFor(ctx.params.groupId, null);
      if (!row) throw notFound(CONFIG_NOT_FOUND);
      return { item: paramConfigToWire(row) };
    },
  }),
  defineRoute(biCalls.setGroupDefaults, {
    handler: async (ctx) => {
      assertGroup(ctx.params.groupId);
      checkParameterValues(ctx.body.parameters);
      const row = await ctx.services.analytics.bi.upsertParamConfig(ctx.params.groupId, null, ctx.body.parameters, requireCaller(ctx).user.id);
      await ctx.services.audit.record(ctx.caller, 'bi.query-param-config.default', 'query-param-config', row.id, { groupId: ctx.params.groupId });
      return { item: paramConfigToWire(row) };
    },
  }),
  groupOrgLookup(biCalls.paramConfigFor, (bi, g, o) => bi.paramConfigFor(g, o), paramConfigToWire),
  defineRoute(biCalls.paramConfig, {
    handler: async (ctx) => {
      const row = await ctx.services.analytics.bi.paramConfig(ctx.params.id);
      if (row.organization_id) assertOrgAccess(requireCaller(ctx), row.organization_id, false, true);
      return { item: paramConfigToWire(row) };
    },
  }),
  defineRoute(biCalls.createParamConfig, {
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
  defineRoute(biCalls.updateParamConfig, {
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
  defineRoute(biCalls.deleteParamConfig, {
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
  defineRoute(biCalls.sharedParameters, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const found = await ctx.services.analytics.bi.readableSharedParameters(caller, ctx.params.id);
      return { item: sharedToWire(found, caller.isAdmin || found.row.owner_id === caller.user.id) };
    },
  }),
  defineRoute(biCalls.saveSharedParameters, {
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
  defineRoute(biCalls.inviteToSharedParameters, {
    rateLimit: 'invitations',
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
