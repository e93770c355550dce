import { z } from 'zod';
import { Id, Job, JobListQuery } from '@studio/schema';
import { defineRoute, requireCaller } from '../http/route';

/**
 * Background jobs (spec-silent; docs/decisions.md "Background jobs"): the caller's jobs for the Jobs panel
 * and a record's page, one job's progress, and cancel. Jobs are created by the calls that ask for long work
 * (POST /v1/datasets/hextile), which answer with the job.
 */
export const jobRoutes = [
  defineRoute({
    method: 'GET',
    url: '/v1/jobs',
    summary: "The caller's background jobs, newest first; resourceId narrows to one record's (administrators: anyone's on it), status to active or finished ones",
    tag: 'jobs',
    auth: 'user',
    query: JobListQuery,
    response: z.object({ items: z.array(Job) }),
    handler: async (ctx) => ({ items: await ctx.services.jobs.list(requireCaller(ctx), ctx.query) }),
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/jobs/{id}',
    summary: 'One background job: status, progress (percent and rows), attempts and how it ended',
    tag: 'jobs',
    auth: 'user',
    params: z.object({ id: Id }),
    response: z.object({ item: Job }),
    handler: async (ctx) => ({ item: await ctx.services.jobs.get(requireCaller(ctx), ctx.params.id) }),
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/jobs/{id}/cancel',
    summary: 'Cancel a queued or running job: it stops at its next step on whichever node runs it, and its record says it was cancelled',
    tag: 'jobs',
    auth: 'user',
    transaction: false,
    params: z.object({ id: Id }),
    response: z.object({ item: Job }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const job = await ctx.services.jobs.cancel(caller, ctx.params.id);
      await ctx.services.audit.record(caller, 'job.cancel', 'job', job.id, { kind: job.kind, resourceId: job.resourceId });
      return { item: job };
    },
  }),
];
