import { z } from 'zod';
import { streamBody } from '../http/streams';
import { ExecutionRunBody, Id, QueryExecution, RECORD_COLLECTIONS, StudioError, badInput, executionCalls, itemOf, type Contract, type ResourceType, TemplateRunBody } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { ResourceRow } from '../services/records';
import { storedTemplate } from '../services/templates';
import { executionWire, type ExecutionRow, type ParamValues } from '../services/executions';
import { planFor, submitExecution, type ExecutionRequest } from '../services/execution-jobs';
import { ARROW_STREAM } from '../http/media-types';
import { prefersAsync } from '../http/prefer';

/**
 * Query executions (catalog §7 data gateway, analytics-and-admin §7): run SQL over datasets on the
 * embedded DuckDB, or push it down to a warehouse connection; keep the result as Parquet with its state;
 * answer identical queries from that cache until it expires.
 */

type Ctx = RouteContext<unknown, unknown, unknown>;

type RunBody = z.infer<typeof ExecutionRunBody>;

/** catalog §9: the client's cache-control defaults to no-cache; anything else may answer from cache. */
const usesCache = (ctx: Ctx) => !/no-cache|no-store/i.test(String(ctx.req.headers['cache-control'] ?? ''));

/** Fires when the client goes away before the answer is written (the query is then cancelled). */
function disconnect(ctx: Ctx) {
  const abort = new AbortController();
  const onClose = () => {
    if (!ctx.reply.raw.writableFinished) abort.abort();
  };
  const socket = ctx.req.raw.socket;
  socket?.on('close', onClose);
  ctx.reply.raw.on('close', onClose);
  return {
    signal: abort.signal,
    done: () => {
      socket?.off('close', onClose);
      ctx.reply.raw.off('close', onClose);
    },
  };
}

/** The map / insight / workbook an execution is linked to; the caller must read it. */
async function linkedRecord(ctx: Ctx, links: { mapId?: string; insightId?: string; workbookId?: string }): Promise<string | null> {
  const given = ([['map', links.mapId], ['insight', links.insightId], ['workbook', links.workbookId]] as const).filter(([, id]) => id);
  if (given.length > 1) throw badInput('Link an execution to one record: mapId, insightId or workbookId');
  if (!given.length) return null;
  const [type, id] = given[0]!;
  await ctx.services.access.guard(requireCaller(ctx), type, id!, 'read', ctx.adminMode);
  return id!;
}

async function readable(ctx: Ctx, type: ResourceType, id: string): Promise<ResourceRow> {
  return (await ctx.services.access.guard(requireCaller(ctx), type, id, 'read', ctx.adminMode)).resource;
}

/**
 * A saved query template run: its stored SQL and parameter defaults (overridden by `parameters`);
 * `datasetId` (read by the caller) is the table `dataset` of the template's SQL.
 */
async function templateRequest(ctx: Ctx, template: ResourceRow, body: z.infer<typeof TemplateRunBody>): Promise<ExecutionRequest> {
  const t = storedTemplate(template);
  const parameters: ParamValues = { ...Object.fromEntries(t.parameters.map((p) => [p.name, p.defaultValue])), ...(body.parameters ?? {}) };
  const recordId = await linkedRecord(ctx, body);
  const aliases: Record<string, string> = body.datasetId ? { dataset: body.datasetId } : {};
  return { query: t.query, parameters, connectionId: t.connectionId ?? null, aliases, templateId: template.id, templateVersion: t.version, datasetId: body.datasetId ?? null, recordId, adminMode: ctx.adminMode };
}

async function requestOf(ctx: Ctx, body: RunBody): Promise<ExecutionRequest> {
  if (body.queryTemplateId) {
    if (body.query) throw badInput('Give either query or queryTemplateId, not both');
    return templateRequest(ctx, await readable(ctx, 'query-template', body.queryTemplateId), body);
  }
  if (!body.query) throw badInput('Either query or queryTemplateId is required');
  if (body.datasetId) throw badInput('datasetId goes with queryTemplateId; name datasets in the query');
  const recordId = await linkedRecord(ctx, body);
  return { query: body.query, parameters: body.parameters ?? {}, connectionId: body.connectionId ?? null, aliases: {}, templateId: null, templateVersion: null, datasetId: null, recordId, adminMode: ctx.adminMode };
}


/**
 * Runs a request: planned as the caller now (bad input is a 422 before anything is recorded); then run in the
 * request, or, with `Prefer: respond-async`, as a background job answered at once.
 */
async function run(ctx: Ctx, request: ExecutionRequest, respondAsync = false): Promise<{ row: ExecutionRow; fromCache: boolean }> {
  const { signal, done } = disconnect(ctx);
  try {
    const caller = requireCaller(ctx);
    const plan = await planFor(ctx.services, caller, request);
    const result = respondAsync
      ? await submitExecution(ctx.services, caller, request, plan, usesCache(ctx))
      : await ctx.services.executions.execute(caller, plan, { useCache: usesCache(ctx), signal });
    // Every run is in the audit log (a warehouse's owner asks who ran what on it), a cached answer too.
    await ctx.services.audit.record(caller, 'query.run', plan.connectionId ? 'data-connection' : 'query-execution', plan.connectionId ?? result.row.id, {
      executionId: result.row.id,
      templateId: plan.templateId ?? null,
      fromCache: result.fromCache,
      status: result.row.status,
    });
    return result;
  } finally {
    done();
  }
}

const answer = async (ctx: Ctx, request: ExecutionRequest) => {
  // Prefer: respond-async: answered at once, 202, and read later by its id.
  const respondAsync = prefersAsync(ctx.req.headers);
  const { row, fromCache } = await run(ctx, request, respondAsync);
  if (respondAsync && !fromCache) ctx.reply.code(202).header('preference-applied', 'respond-async').header('location', `/v1/data-queries/${row.id}`);
  return { item: executionWire(row, fromCache) };
};

const EXECUTION = itemOf(QueryExecution);
const AdminQuery = z.object({ isAdmin: z.string().optional() });

/** The two spellings of a template run; the caller reads the template (the contract's resource guard). */
const templateRun = <P extends z.ZodType>(call: Contract<P, z.ZodNever, typeof TemplateRunBody, typeof EXECUTION>) =>
  defineRoute(call, {
    transaction: false,
    handler: async (ctx) => answer(ctx, await templateRequest(ctx, ctx.resource!, ctx.body)),
  });

function recordRoutes(): RouteDef[] {
  const specs: Record<string, [string, string]> = {
    maps: ['CAT-023', 'CAT-024'],
    insights: ['CAT-040', 'CAT-041'],
    workbooks: ['CAT-058', 'CAT-059'],
    dashboards: ['CAT-076', 'CAT-077'],
  };
  return Object.entries(RECORD_COLLECTIONS).flatMap(([collection, type]) => [
    defineRoute({
      spec: [specs[collection]![0]],
      method: 'GET',
      url: `/v1/${collection}/{id}/query-executions/{executionId}`,
      summary: `A query execution linked to this ${type} (read access on the ${type})`,
      tag: collection,
      auth: 'user',
      params: z.object({ id: Id, executionId: z.string().max(100) }),
      query: AdminQuery,
      resource: { type, param: 'id', action: 'read' },
      response: EXECUTION,
      handler: async (ctx) => ({ item: executionWire(await ctx.services.executions.ofRecord(ctx.resource!.id, ctx.params.executionId)) }),
    }),
    defineRoute({
      spec: [specs[collection]![1]],
      method: 'GET',
      url: `/v1/${collection}/{id}/query-executions/templates/{templateId}`,
      summary: `The latest execution of a query template for this ${type}`,
      tag: collection,
      auth: 'user',
      params: z.object({ id: Id, templateId: z.string().max(100) }),
      query: AdminQuery,
      resource: { type, param: 'id', action: 'read' },
      response: EXECUTION,
      handler: async (ctx) => ({ item: executionWire(await ctx.services.executions.latestOfTemplate(ctx.resource!.id, ctx.params.templateId)) }),
    }),
  ]);
}

export const executionRoutes: RouteDef[] = [
  defineRoute(executionCalls.run, {
    transaction: false,
    handler: async (ctx) => answer(ctx, await requestOf(ctx, ctx.body)),
  }),
  defineRoute(executionCalls.json, {
    transaction: false,
    handler: async (ctx) => {
      const { row } = await run(ctx, await requestOf(ctx, ctx.body));
      if (row.status !== 'success') throw new StudioError(422, row.error_message ?? `The query ended ${row.status}`, `queryExecutionId ${row.id}`);
      const items = await ctx.services.executions.previewResult(row, ctx.body.limit);
      return { items, queryExecutionId: row.id };
    },
  }),
  defineRoute(executionCalls.list, {
    handler: async (ctx) => ctx.services.executions.list(requireCaller(ctx), ctx.query),
  }),
  defineRoute(executionCalls.columnDistinct, {
    handler: async (ctx) => {
      const dataset = await readable(ctx, 'dataset', ctx.query.datasetId);
      return { items: await ctx.services.executions.distinct(dataset, ctx.query.column, ctx.query.limit) };
    },
  }),
  defineRoute(executionCalls.get, {
    handler: async (ctx) => ({ item: executionWire(await ctx.services.executions.visible(requireCaller(ctx), ctx.params.id, ctx.adminMode)) }),
  }),
  defineRoute(executionCalls.result, {
    handler: async (ctx) => {
      const row = await ctx.services.executions.visible(requireCaller(ctx), ctx.params.id, ctx.adminMode);
      const abort = new AbortController();
      ctx.reply.raw.on('close', () => abort.abort());
      const arrow = String(ctx.req.headers.accept ?? '').includes(ARROW_STREAM);
      const body = await ctx.services.executions.resultStream(row, arrow ? 'arrow' : 'csv', abort.signal);
      return ctx.reply.header('content-type', arrow ? ARROW_STREAM : 'text/csv; charset=utf-8').send(streamBody(body));
    },
  }),
  templateRun(executionCalls.runTemplate),
  templateRun(executionCalls.runTemplateExecution),
  ...recordRoutes(),
];
