import { analyticsCalls, biCalls, type Answer, type BodyOf } from '@studio/schema';
import type { HttpClient } from './http';

export type { AnalyticQueryParameter, AnalyticSetConfig, QueryParamConfig, SharedParameters } from '@studio/schema';
/** GET /v1/analytic-sets/{groupId}: the sets (templates) and views; shapes are @studio/analytics'. */
export type AnalyticSetGroupWire = Answer<typeof analyticsCalls.sets>['item'];
export type AnalyticSetWire = AnalyticSetGroupWire['sets'][number];
export type AnalyticSetConfigBody = BodyOf<typeof biCalls.createConfig>;

type Parameters = Record<string, unknown>;

/** Analytic sets (analytics-and-admin §7 Analytics service) and their business-intelligence configs. */
export function analyticsClient(c: HttpClient) {
  return {
    /** The sets of a group with query parameters filled from the bound data, and the view layouts. */
    sets: (groupId: string, q: { impersonateOrganizationId?: string } = {}) => c.call(analyticsCalls.sets, { params: { groupId }, query: q }).then((r) => r.item),
    /** JSON rows of a template; `noCache` sends cache-control: no-cache. */
    query: (groupId: string, templateId: string, parameters: unknown, opts: { signal?: AbortSignal; noCache?: boolean; impersonateOrganizationId?: string } = {}) =>
      c
        .call(
          analyticsCalls.query,
          { params: { groupId, templateId }, query: { impersonateOrganizationId: opts.impersonateOrganizationId }, body: { parameters } },
          { signal: opts.signal, headers: { accept: 'application/json', ...(opts.noCache ? { 'cache-control': 'no-cache' } : {}) } },
        )
        .then((r) => r.items),
    /** CSV (for Movement Pivot: the export, 403 unless the set allows it) or Arrow IPC bytes of a template. */
    download: (groupId: string, templateId: string, parameters: unknown, format: 'csv' | 'arrow' = 'csv', signal?: AbortSignal) =>
      c.callRaw(analyticsCalls.query, { params: { groupId, templateId }, body: { parameters } }, { signal, headers: { accept: format === 'csv' ? 'text/csv' : 'application/vnd.apache.arrow.stream' } }),
    labels: () => c.call(analyticsCalls.labels, {}).then((r) => r.item),
    invalidateLabels: () => c.call(analyticsCalls.invalidateLabels, {}),
    invalidateOrg: (groupId: string, orgId: string) => c.call(analyticsCalls.invalidateOrg, { params: { groupId, orgId } }),
    invalidateDefault: (groupId: string) => c.call(analyticsCalls.invalidateDefault, { params: { groupId } }),
    configFor: (groupId: string, orgId: string) => c.call(biCalls.configFor, { params: { groupId, orgId } }).then((r) => r.item),
    config: (id: string) => c.call(biCalls.config, { params: { id } }).then((r) => r.item),
    saveConfig: (body: AnalyticSetConfigBody, id?: string) =>
      (id ? c.call(biCalls.updateConfig, { params: { id }, body }) : c.call(biCalls.createConfig, { body })).then((r) => r.item),
    deleteConfig: (id: string) => c.call(biCalls.deleteConfig, { params: { id } }),
    paramConfigFor: (groupId: string, orgId: string) => c.call(biCalls.paramConfigFor, { params: { groupId, orgId } }).then((r) => r.item),
    paramConfig: (id: string) => c.call(biCalls.paramConfig, { params: { id } }).then((r) => r.item),
    createParamConfig: (body: BodyOf<typeof biCalls.createParamConfig>) => c.call(biCalls.createParamConfig, { body }).then((r) => r.item),
    updateParamConfig: (id: string, parameters: Parameters) => c.call(biCalls.updateParamConfig, { params: { id }, body: { parameters } }).then((r) => r.item),
    deleteParamConfig: (id: string) => c.call(biCalls.deleteParamConfig, { params: { id } }),
    groupDefaults: (groupId: string) => c.call(biCalls.groupDefaults, { params: { groupId } }).then((r) => r.item),
    setGroupDefaults: (groupId: string, parameters: Parameters) => c.call(biCalls.setGroupDefaults, { params: { groupId }, body: { parameters } }).then((r) => r.item),
    sharedParameters: (id: string) => c.call(biCalls.sharedParameters, { params: { id } }).then((r) => r.item),
    saveSharedParameters: (body: BodyOf<typeof biCalls.saveSharedParameters>) => c.call(biCalls.saveSharedParameters, { body }).then((r) => r.item),
    inviteToSharedParameters: (id: string, emails: string[], description = '') =>
      c.call(biCalls.inviteToSharedParameters, { params: { id }, body: { emails, description } }).then((r) => r.item),
  };
}
