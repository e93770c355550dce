import { z } from 'zod';
import { Id, Paging, itemOf, itemsOf } from '../common';
import { QueryExecution } from '../queries';
import { contract } from './contract';

const TAG = 'data-queries';
const BASE = '/v1/data-queries';
/** The ARROW_STREAM media type (the server's http/media-types.ts). */
const ARROW = 'application/vnd.apache.arrow.stream';

const Scalar = z.union([z.string().max(100_000), z.number(), z.boolean(), z.null()]);
const ParamName = z.string().regex(/^[A-Za-z_]\w{0,199}$/, 'Parameter names are letters, digits and underscores');
/** `{name: value}`, or the list form `[{name, value}]` some clients send. */
const Parameters = z.preprocess(
  (v) => (Array.isArray(v) ? Object.fromEntries(v.map((p) => [(p as { name?: unknown })?.name, (p as { value?: unknown })?.value ?? null])) : v),
  z.record(ParamName, z.union([Scalar, z.array(Scalar).max(10_000)])),
);
/** The map, insight or workbook an execution is linked to (at most one; the caller must read it). */
const Links = { mapId: Id.optional(), insightId: Id.optional(), workbookId: Id.optional() };

/** SQL (over datasets, or on `connectionId`'s warehouse) or a saved template by id, with `$name` parameters. */
export const ExecutionRunBody = z.object({
  query: z.string().trim().min(1, 'Query must not be empty').max(1_000_000).optional(),
  connectionId: Id.nullable().optional(),
  queryTemplateId: Id.optional(),
  datasetId: Id.optional(),
  parameters: Parameters.optional(),
  ...Links,
});
/** A saved template's run: parameters over its defaults, `datasetId` as the table `dataset` of its SQL. */
export const TemplateRunBody = z.object({ parameters: Parameters.optional(), datasetId: Id.optional(), ...Links });

const ExecutionParams = z.object({ id: z.string().max(100) });
const AdminQuery = z.object({ isAdmin: z.string().optional() });
/** What a run or a read of one execution answers. */
const EXECUTION = itemOf(QueryExecution);

/** The two spellings of a template run (catalog §7 and analytics-and-admin §7); the caller reads the template. */
const templateRun = <K extends string>(spec: string, url: string, param: K, summary: string) =>
  contract({
    spec: [spec],
    method: 'POST',
    url,
    summary,
    tag: TAG,
    auth: 'user',
    params: z.object({ [param]: Id } as Record<K, typeof Id>),
    body: TemplateRunBody,
    resource: { type: 'query-template', param, action: 'read' },
    response: EXECUTION,
  });

/**
 * Query executions (catalog §7 data gateway, analytics-and-admin §7): run SQL over datasets or on a warehouse,
 * keep the result, read it back. `Prefer: respond-async` answers a run at once (202) with the execution to follow.
 */
export const executionCalls = {
  run: contract({
    spec: ['DQ-018'],
    method: 'POST',
    url: BASE,
    summary: 'Run SQL (over datasets, or pushed down to a connection) or a query template; answers the execution (queryExecutionId, status, cacheExpiresAt)',
    tag: TAG,
    auth: 'user',
    body: ExecutionRunBody,
    response: EXECUTION,
  }),
  json: contract({
    spec: ['DQ-019'],
    method: 'POST',
    url: `${BASE}/json`,
    summary: 'Like POST /v1/data-queries, answering the first `limit` rows (default 100, at most 10000) as JSON',
    tag: TAG,
    auth: 'user',
    body: ExecutionRunBody.extend({ limit: z.coerce.number().int().min(1).max(10_000).default(100) }),
    response: z.object({ items: z.array(z.record(z.string(), z.unknown())), queryExecutionId: z.string() }),
  }),
  list: contract({
    spec: ['DQ-001'],
    method: 'GET',
    url: BASE,
    summary: "The caller's query executions, newest first",
    tag: TAG,
    auth: 'user',
    query: Paging,
    response: itemsOf(QueryExecution),
  }),
  columnDistinct: contract({
    spec: ['DQ-021'],
    method: 'GET',
    url: `${BASE}/column-distinct`,
    summary: 'Distinct non-null values of a dataset column, sorted (read access on the dataset)',
    tag: TAG,
    auth: 'user',
    query: z.object({ datasetId: Id, column: z.string().min(1).max(1000), limit: z.coerce.number().int().min(1).max(10_000).default(100) }),
    response: z.object({ items: z.array(z.unknown()) }),
  }),
  get: contract({
    spec: ['DQ-002'],
    method: 'GET',
    url: `${BASE}/{id}`,
    summary: 'One of the caller’s query executions: status and metadata',
    tag: TAG,
    auth: 'user',
    params: ExecutionParams,
    query: AdminQuery,
    response: EXECUTION,
  }),
  result: contract({
    method: 'GET',
    url: `${BASE}/{id}/result`,
    summary: 'The result of a successful execution: Arrow IPC with the Arrow Accept header, CSV otherwise',
    tag: TAG,
    auth: 'user',
    params: ExecutionParams,
    query: AdminQuery,
    produces: [ARROW, 'text/csv'],
  }),
  runTemplate: templateRun('DQ-020', `${BASE}/templates/{id}`, 'id', 'Run a query template with parameters, linked to a map or insight when given'),
  runTemplateExecution: templateRun('DQ-003', `${BASE}/templates/{templateId}/executions`, 'templateId', 'Run a query template: a new execution (or the cached one)'),
};
