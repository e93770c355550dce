import { z } from 'zod';
import {
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
import { type RouteContext } from './route';
import { clientGone, primed, streamBody } from './streams';
import type { Caller } from './caller';
import type { ResourceRow } from '../services/records';
import type { DatasetReads } from '../services/pipelines';

/**
 * A dashboard's widgets and parameters answered: one widget's rows, a batch streamed in order of completion, and the
 * answer declarations the dashboard and published-dashboard routes share.
 */
export const WidgetFormat = SpreadsheetQuery.extend({ format: z.enum(['json', 'csv']).default('json') });
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
