import { z } from 'zod';
import { Id, itemOf } from '../common';
import { AnalyticSetGroupView, PanelLabels } from '../bi';
import { contract } from './contract';

const GroupParams = z.object({ groupId: z.string().max(100) });
const Impersonate = z.object({ impersonateOrganizationId: Id.optional() });

/** The ARROW_STREAM media type (the server's http/media-types.ts): a template's rows as Arrow IPC. */
const ARROW = 'application/vnd.apache.arrow.stream';

/** Analytic sets (analytics-and-admin §7 Analytics service): a group's sets, a template's rows, labels, and the caches. */
export const analyticsCalls = {
  sets: contract({
    spec: ['ANA-001'],
    method: 'GET',
    url: '/v1/analytic-sets/{groupId}',
    summary: 'The analytic sets of a group with query parameters filled from the bound data, template parameters and view layouts',
    tag: 'analytics',
    auth: 'user',
    params: GroupParams,
    query: Impersonate,
    response: itemOf(AnalyticSetGroupView),
  }),
  query: contract({
    spec: ['ANA-002'],
    method: 'POST',
    url: '/v1/query/{groupId}/template/{templateId}',
    summary: 'Run a template of an analytic set: JSON {items} (cached), Arrow IPC or CSV (Movement Pivot CSV is the export, allowed by movement_pivot_canExport)',
    tag: 'analytics',
    auth: 'user',
    params: z.object({ groupId: z.string().max(100), templateId: z.string().max(100) }),
    query: Impersonate.extend({ expectData: z.enum(['true', 'false']).optional() }),
    // The template's parameters, checked by the analytics package (parseParameters) with its own messages.
    body: z.unknown(),
    // JSON rows (the default), or by Accept an Arrow IPC stream or CSV; expectData=false: nothing (204).
    produces: [ARROW, 'text/csv'],
    // A row's values are JSON scalars (the templates' SQL selects no lists or structs).
    response: z.object({ items: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))) }),
  }),
  labels: contract({
    spec: ['ANA-003'],
    method: 'GET',
    url: '/v1/labels',
    summary: "Labels of the caller's bound data (foot-traffic group): geography and place values with display names, and the visit date coverage",
    tag: 'analytics',
    auth: 'user',
    query: Impersonate.extend({ groupId: z.string().max(100).optional() }),
    response: itemOf(PanelLabels),
  }),
  invalidateLabels: contract({
    spec: ['ANA-004'],
    method: 'POST',
    url: '/v1/invalidate/labels',
    summary: 'Forget every cached label set (administrators)',
    tag: 'analytics',
    auth: 'admin',
    status: 204,
  }),
  invalidateOrg: contract({
    spec: ['ANA-005'],
    method: 'POST',
    url: '/v1/invalidate/{groupId}/org/{orgId}',
    summary: "Forget an organization's cached results of a group (administrators, or makers of that organization)",
    tag: 'analytics',
    auth: 'user',
    params: z.object({ groupId: z.string().max(100), orgId: Id }),
    status: 204,
  }),
  invalidateDefault: contract({
    spec: ['ANA-006'],
    method: 'POST',
    url: '/v1/invalidate/{groupId}/default',
    summary: 'Forget every cached result of a group computed on the built-in sample (administrators)',
    tag: 'analytics',
    auth: 'admin',
    params: GroupParams,
    status: 204,
  }),
};
