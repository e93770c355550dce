import { z } from 'zod';
import {
  DraftWidgetRunBody,
  Id,
  Parameter,
  SPREADSHEET_SUMMARY,
  WidgetBatchBody,
  WidgetRunBody,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import type { Caller } from '../http/caller';
import { widgetOf, parameterOf } from '../services/dashboards/widgets';
import { PARAMETER_VALUES_ANSWER, WIDGET_BATCH_ANSWER, WIDGET_ROWS_ANSWER, WidgetFormat, answerWidget, answerWidgets, dashboardState, ownerOf } from '../http/dashboard-answers';

/**
 * Dashboard widgets (catalog §1, §5 insights). A saved dashboard's widgets run under its owner's
 * access: whoever may read the dashboard sees what its owner chose to show, through these queries
 * only, never an arbitrary pipeline on its datasets. A draft widget (the builder, before saving) runs
 * under the editor's own access, like POST /v1/query.
 */
const tag = 'dashboards';
/** A widget's rows as JSON, or with format=csv a download, exact or spreadsheet-safe (SPREADSHEET_SUMMARY). */
const WidgetParams = z.object({ id: Id, widgetId: z.string().max(64) });
const ParameterParams = z.object({ id: Id, parameterId: z.string().max(64) });
const Search = z.object({ search: z.string().max(200).optional() });


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
