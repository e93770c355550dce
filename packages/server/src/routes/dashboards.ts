import { z } from 'zod';
import {
  DraftWidgetRunBody,
  Id,
  Parameter,
  SPREADSHEET_SUMMARY,
  SpreadsheetQuery,
  type SpreadsheetForm,
  StudioError,
  WidgetBatchBody,
  WidgetResult,
  WidgetRunBody,
  itemOf,
  parseDashboardState,
  emptyDashboardState,
  type DashboardState,
  type Widget,
  type WidgetBatchLine,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { clientGone, primed, streamBody } from '../http/streams';
import type { Caller } from '../http/caller';
import type { ResourceRow } from '../services/records';
import type { DatasetReads } from '../services/pipelines';
import { widgetOf, parameterOf } from '../services/dashboards/widgets';

/**
 * Dashboard widgets (catalog §1, §5 insights). A saved dashboard's widgets run under its owner's
 * access: whoever may read the dashboard sees what its owner chose to show, through these queries
 * only, never an arbitrary pipeline on its datasets. A draft widget (the builder, before saving) runs
 * under the editor's own access, like POST /v1/query.
 */
const tag = 'dashboards';
/** A widget's rows as JSON, or with format=csv a download, exact or spreadsheet-safe (SPREADSHEET_SUMMARY). */
export const WidgetFormat = SpreadsheetQuery.extend({ format: z.enum(['json', 'csv']).default('json') });
const WidgetParams = z.object({ id: Id, widgetId: z.string().max(64) });
const ParameterParams = z.object({ id: Id, parameterId: z.string().max(64) });
const Search = z.object({ search: z.string().max(200).optional() });

/** The saved state of a dashboard record; a dashboard never saved has no widgets. */
export function dashboardState(row: ResourceRow): DashboardState {
  return row.latest_state === null || row.latest_state === undefined ? emptyDashboardState() : parseDashboardState(row.latest_state);
}

/** Whose access a saved dashboard's queries run under: its owner's. */
export const ownerOf = (ctx: RouteContext<unknown, unknown, unknown>, ownerId: string): Promise<Caller> => ctx.services.auth.callerOf(ownerId, 'session', '');

/** Answers a widget's rows as JSON, or as a CSV download (up to 1M rows). */
export async function answerWidget(
  ctx: RouteContext<unknown, unknown, unknown>,
  grantee: Caller,
  state: Pick<DashboardState, 'parameters'>,
  widget: Widget,
  body: z.infer<typeof WidgetRunBody>,
  format: 'json' | 'csv',
  spreadsheet?: SpreadsheetForm,
) {
  const signal = clientGone(ctx.reply);
  if (format === 'csv') {
    const csv = await primed(await ctx.services.widgets.csv(grantee, state, widget, body, signal, spreadsheet));
    const name = (widget.title || widget.id).replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80) || 'widget';
    return ctx.reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`).send(streamBody(csv));
  }
  const item = await ctx.services.widgets.run(grantee, state, widget, body, { signal, cacheControl: ctx.req.headers['cache-control'] as string | undefined });
  return { item };
}

/** A widget's failure as its line of a batch answer says it: what a single widget request would have answered. */
function lineError(ctx: RouteContext<unknown, unknown, unknown>, e: unknown): NonNullable<WidgetBatchLine['error']> {
  if (e instanceof StudioError) return { status: e.status, message: e.message };
  ctx.req.log.error({ err: e }, 'widget of a batch failed');
  return { status: 500, message: 'Internal Server Error' };
}

/**
 * Answers several widgets as NDJSON lines ({index, widgetId, item | error}), each as soon as it is ready:
 * one widget's failure (its dataset gone, its time limit) is its own line, the others still answer. Bad
 * parameter values answer 422 for the whole request before anything runs. `granteeOf` says whose access
 * a widget runs under (and may refuse it alone).
 */
export async function answerWidgets(
  ctx: RouteContext<unknown, unknown, unknown>,
  state: Pick<DashboardState, 'parameters' | 'widgets'>,
  body: WidgetBatchBody,
  granteeOf: (widget: Widget) => Promise<Caller>,
) {
  const widgets = body.widgets.map((r) => state.widgets.find((w) => w.id === r.id) ?? null);
  ctx.services.widgets.checkParameters(widgets.filter((w): w is Widget => w !== null), state, body.parameters);
  const signal = clientGone(ctx.reply);
  const reads: DatasetReads = new Map();
  const cacheControl = ctx.req.headers['cache-control'] as string | undefined;
  const lines = body.widgets.map(async (r, index): Promise<WidgetBatchLine> => {
    try {
      const widget = widgets[index];
      if (!widget) throw new StudioError(404, 'Widget not found');
      const run = { parameters: body.parameters, crossFilters: body.crossFilters, page: r.page, sort: r.sort };
      const item = await ctx.services.widgets.run(await granteeOf(widget), state, widget, run, { signal, cacheControl, reads });
      return { index, widgetId: r.id, item };
    } catch (e) {
      return { index, widgetId: r.id, error: lineError(ctx, e) };
    }
  });
  return ctx.reply.header('content-type', 'application/x-ndjson; charset=utf-8').send(streamBody(inOrderOfCompletion(lines)));
}

/** Each line as soon as it settles, whatever the order they were asked in. */
async function* inOrderOfCompletion(lines: Promise<WidgetBatchLine>[]): AsyncGenerator<string> {
  const pending = new Map(lines.map((p, i) => [i, p.then((line) => ({ i, line }))]));
  while (pending.size) {
    const { i, line } = await Promise.race(pending.values());
    pending.delete(i);
    yield `${JSON.stringify(line)}\n`;
  }
}

/** What the widget calls answer: a batch as NDJSON lines; one widget's rows (or, with format=csv, a download); a parameter's choices. */
export const WIDGET_BATCH_ANSWER = { produces: ['application/x-ndjson'] } as const;
export const WIDGET_ROWS_ANSWER = { produces: ['text/csv'], response: itemOf(WidgetResult) } as const;
export const PARAMETER_VALUES_ANSWER = { response: z.object({ items: z.array(z.string()) }) } as const;

export const dashboardRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/dashboards/{id}/widgets/query',
    summary: "Rows of several widgets of a saved dashboard at once, under its owner's access: body {parameters, crossFilters, widgets: [{id, page, sort}]}; answers NDJSON lines {index, widgetId, item | error} as each widget is ready",
    tag,
    auth: 'user',
    transaction: false,
    params: z.object({ id: Id }),
    body: WidgetBatchBody,
    resource: { type: 'insight', param: 'id', action: 'read' },
    ...WIDGET_BATCH_ANSWER,
    handler: async (ctx) => {
      const row = ctx.resource!;
      const generic = ctx as RouteContext<unknown, unknown, unknown>;
      let owner: Promise<Caller> | undefined;
      return answerWidgets(generic, dashboardState(row), ctx.body, () => (owner ??= ownerOf(generic, row.owner_id)));
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/dashboards/{id}/widgets/{widgetId}/query',
    summary: `Rows of one widget of a saved dashboard, under its owner's access: body {parameters (link form, checked against their types), crossFilters, page, sort}; format=csv downloads up to 1M rows. ${SPREADSHEET_SUMMARY}`,
    tag,
    auth: 'user',
    transaction: false,
    params: WidgetParams,
    query: WidgetFormat,
    body: WidgetRunBody,
    resource: { type: 'insight', param: 'id', action: 'read' },
    ...WIDGET_ROWS_ANSWER,
    handler: async (ctx) => {
      const row = ctx.resource!;
      const state = dashboardState(row);
      const generic = ctx as RouteContext<unknown, unknown, unknown>;
      return answerWidget(generic, await ownerOf(generic, row.owner_id), state, widgetOf(state, ctx.params.widgetId), ctx.body, ctx.query.format, ctx.query.spreadsheet);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/dashboards/widget-query',
    summary: `Rows of a draft widget (the builder, before saving), under the caller's own access to its dataset: body {widget, parameterDefs, parameters, crossFilters, page, sort}; format=csv downloads up to 1M rows. ${SPREADSHEET_SUMMARY}`,
    tag,
    auth: 'user',
    transaction: false,
    query: WidgetFormat,
    body: DraftWidgetRunBody,
    ...WIDGET_ROWS_ANSWER,
    handler: async (ctx) => {
      const { widget, parameterDefs, ...run } = ctx.body;
      return answerWidget(ctx as RouteContext<unknown, unknown, unknown>, requireCaller(ctx), { parameters: parameterDefs }, widget, run, ctx.query.format, ctx.query.spreadsheet);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/dashboards/{id}/parameters/{parameterId}/values',
    summary: "The choices of one parameter of a saved dashboard (its static values, or a column's distinct values under the owner's access; 1,000 at most)",
    tag,
    auth: 'user',
    params: ParameterParams,
    query: Search,
    resource: { type: 'insight', param: 'id', action: 'read' },
    ...PARAMETER_VALUES_ANSWER,
    handler: async (ctx) => {
      const row = ctx.resource!;
      const p = parameterOf(dashboardState(row), ctx.params.parameterId);
      const items = await ctx.services.widgets.parameterValues(await ownerOf(ctx as RouteContext<unknown, unknown, unknown>, row.owner_id), p, ctx.query.search);
      return { items };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/dashboards/parameter-values',
    summary: "The choices of a draft parameter, under the caller's own access: body {parameter, search}",
    tag,
    auth: 'user',
    transaction: false,
    body: z.object({ parameter: Parameter, search: z.string().max(200).optional() }).strict(),
    ...PARAMETER_VALUES_ANSWER,
    handler: async (ctx) => ({ items: await ctx.services.widgets.parameterValues(requireCaller(ctx), ctx.body.parameter, ctx.body.search) }),
  }),
];
