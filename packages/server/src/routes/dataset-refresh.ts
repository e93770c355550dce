import { z } from 'zod';
import { Dataset, DatasetRefreshUpdate, Id, Job, QueryBool, itemOf } from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import { datasetItem } from '../http/dataset-answers';

const IdParam = z.object({ id: Id });
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });

/**
 * Live datasets' refresh (spec-silent beyond the default max age, catalog.md §9; docs/decisions.md "Live
 * dataset refresh"): run the query again now, and set when it runs by itself. Opening a dataset older than
 * its max age refreshes it too (GET /v1/datasets/{id}).
 */
export const datasetRefreshRoutes: RouteDef[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/datasets/{id}/refresh',
    summary: "Run a live dataset's query again on its connection, as a background job: the dataset keeps serving its current data until the new snapshot is complete. Answers at once with the dataset and the job (the one already queued or running, when there is one)",
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    params: IdParam,
    query: AdminQuery,
    status: 202,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    response: itemOf(Dataset).extend({ job: Job }),
    handler: async (ctx) => {
      const { job } = await ctx.services.refresh.request(requireCaller(ctx), ctx.resource!, 'manual');
      const current = (await ctx.services.records.get(ctx.resource!.id)) ?? ctx.resource!;
      return { ...(await datasetItem(ctx.services, current, ctx)), job };
    },
  }),
  defineRoute({
    method: 'PUT',
    url: '/v1/datasets/{id}/refresh-schedule',
    summary: "Set when a live dataset refreshes by itself: schedule hourly, daily, a five-field cron expression in UTC, or null for none; maxAgeSeconds, the age past which opening it refreshes it (default 2678400)",
    tag: 'datasets',
    auth: 'user',
    params: IdParam,
    query: AdminQuery,
    body: DatasetRefreshUpdate,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    response: itemOf(Dataset),
    handler: async (ctx) => datasetItem(ctx.services, await ctx.services.refresh.setSchedule(requireCaller(ctx), ctx.resource!, ctx.body), ctx),
  }),
];
