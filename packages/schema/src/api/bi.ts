import { z } from 'zod';
import { Id, itemOf } from '../common';
import { AnalyticSetConfig, BoundDatasets, QueryParamConfig, SharedParameters } from '../bi';
import { contract, type AuthMode, type Contract } from './contract';

const IdParams = z.object({ id: Id });
const GroupId = z.string().max(100);
const GroupOrg = z.object({ groupId: GroupId, orgId: Id });
const GroupOnly = z.object({ groupId: GroupId });
const Override = z.object({
  title: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  queryParameters: z.array(z.object({ id: z.string().max(100), name: z.string().max(200).optional(), description: z.string().max(2000).optional(), defaultValue: z.unknown().optional() })).max(50).optional(),
});
/** An analytic-set config as written: the datasets bound to a group for an organization, and template settings. */
export const AnalyticSetConfigBody = z.object({
  groupId: GroupId,
  orgId: Id,
  /** null or absent: the built-in sample (the config then only carries template parameters). */
  datasets: BoundDatasets.nullable().optional(),
  templateParameters: z.record(z.string().max(100), z.union([z.boolean(), z.string().max(1000)])).optional(),
  templateOverrides: z.record(z.string().max(100), Override).optional(),
});
const ParamObject = z.record(z.string().max(100), z.unknown());

/** A call of the bi tag: any signed-in caller unless it says otherwise (finer checks are the handlers'). */
const biCall = <P extends z.ZodType = z.ZodNever, Q extends z.ZodType = z.ZodNever, B extends z.ZodType = z.ZodNever, R extends z.ZodType = z.ZodNever>(
  c: Omit<Contract<P, Q, B, R>, 'tag' | 'auth'> & { auth?: AuthMode },
) => contract<P, Q, B, R>({ tag: 'bi', auth: 'user', ...c });

/** The GET of a config by group and organization (members, administrators): 404 none, 500 several. */
const groupOrgLookup = <R extends z.ZodType>(spec: string, base: string, what: string, answer: R) =>
  biCall({ spec: [spec], method: 'GET', url: `${base}/{groupId}/org/{orgId}`, summary: `An organization's ${what} of a group (404 when none, 500 when more than one)`, params: GroupOrg, response: itemOf(answer) });

/** Business-intelligence configs of the analytic sets: bound datasets, default query parameters, shared parameter sets. */
export const biCalls = {
  configFor: groupOrgLookup('BI-001', '/v1/bi/analytic-set-configs', 'analytic-set config', AnalyticSetConfig),
  config: biCall({ spec: ['BI-002'], method: 'GET', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'An analytic-set config (members of its organization, administrators)',
    params: IdParams, response: itemOf(AnalyticSetConfig) }),
  createConfig: biCall({ spec: ['BI-003'], method: 'POST', url: '/v1/bi/analytic-set-configs',
    summary: 'Bind datasets {places, devices, visits} to a group for an organization (makers of it, administrators); checked with validateBoundData',
    body: AnalyticSetConfigBody, status: 201, response: itemOf(AnalyticSetConfig) }),
  updateConfig: biCall({ spec: ['BI-004'], method: 'PUT', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'Replace an analytic-set config (group and organization cannot change)',
    params: IdParams, body: AnalyticSetConfigBody, response: itemOf(AnalyticSetConfig) }),
  deleteConfig: biCall({ spec: ['BI-005'], method: 'DELETE', url: '/v1/bi/analytic-set-configs/{id}',
    summary: 'Delete an analytic-set config; the organization falls back to the built-in sample',
    params: IdParams, status: 204 }),
  groupDefaults: biCall({ spec: ['BI-011'], method: 'GET', url: '/v1/bi/query-param-configs/{groupId}/default',
    summary: "A group's default query-parameter values (404 when none)",
    params: GroupOnly, response: itemOf(QueryParamConfig) }),
  setGroupDefaults: biCall({ spec: ['BI-012'], method: 'PUT', url: '/v1/bi/query-param-configs/{groupId}/default',
    summary: "Set a group's default query-parameter values (administrators)",
    auth: 'admin', params: GroupOnly, body: z.object({ parameters: ParamObject }), response: itemOf(QueryParamConfig) }),
  paramConfigFor: groupOrgLookup('BI-006', '/v1/bi/query-param-configs', 'query-parameter config', QueryParamConfig),
  paramConfig: biCall({ spec: ['BI-007'], method: 'GET', url: '/v1/bi/query-param-configs/{id}',
    summary: 'A query-parameter config',
    params: IdParams, response: itemOf(QueryParamConfig) }),
  createParamConfig: biCall({ spec: ['BI-008'], method: 'POST', url: '/v1/bi/query-param-configs',
    summary: "Create an organization's default query-parameter values for a group (makers of it, administrators)",
    status: 201, body: z.object({ groupId: GroupId, orgId: Id, parameters: ParamObject.default({}) }), response: itemOf(QueryParamConfig) }),
  updateParamConfig: biCall({ spec: ['BI-009'], method: 'PUT', url: '/v1/bi/query-param-configs/{id}',
    summary: 'Replace the values of a query-parameter config',
    params: IdParams, body: z.object({ parameters: ParamObject }).passthrough(), response: itemOf(QueryParamConfig) }),
  deleteParamConfig: biCall({ spec: ['BI-010'], method: 'DELETE', url: '/v1/bi/query-param-configs/{id}',
    summary: 'Delete a query-parameter config',
    params: IdParams, status: 204 }),
  sharedParameters: biCall({ spec: ['BI-013'], method: 'GET', url: '/v1/bi/shared-parameters/{id}',
    summary: 'A saved parameter set (owner, its organization, invited e-mails, administrators)',
    params: IdParams, response: itemOf(SharedParameters) }),
  saveSharedParameters: biCall({ spec: ['BI-014'], method: 'POST', url: '/v1/bi/shared-parameters',
    summary: 'Save a parameter set of a group template, to share',
    status: 201, body: z.object({ groupId: GroupId, templateId: z.string().max(100), name: z.string().max(200).default(''), parameters: ParamObject }), response: itemOf(SharedParameters) }),
  inviteToSharedParameters: biCall({ spec: ['BI-015'], method: 'POST', url: '/v1/bi/shared-parameters/{id}/invite',
    summary: 'Share a saved parameter set with e-mail addresses (owner, administrators); recorded as invitations',
    params: IdParams, body: z.object({ emails: z.array(z.string().max(320)).min(1).max(100), description: z.string().max(2000).default('') }), response: itemOf(SharedParameters) }),
};
