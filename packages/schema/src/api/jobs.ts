import { z } from 'zod';
import { Id } from '../common';
import { Job, JobListQuery } from '../jobs';
import { contract } from './contract';

/**
 * Background jobs (spec-silent; docs/decisions.md "Background jobs"): the caller's jobs for the Jobs panel
 * and a record's page, one job's progress, and cancel. Jobs are created by the calls that ask for long work
 * (POST /v1/datasets/hextile), which answer with the job.
 */
export const jobCalls = {
  list: contract({
    method: 'GET',
    url: '/v1/jobs',
    summary: "The caller's background jobs, newest first; resourceId narrows to one record's (administrators: anyone's on it), status to active or finished ones",
    tag: 'jobs',
    auth: 'user',
    query: JobListQuery,
    response: z.object({ items: z.array(Job) }),
  }),
  get: contract({
    method: 'GET',
    url: '/v1/jobs/{id}',
    summary: 'One background job: status, progress (percent and rows), attempts and how it ended',
    tag: 'jobs',
    auth: 'user',
    params: z.object({ id: Id }),
    response: z.object({ item: Job }),
  }),
  cancel: contract({
    method: 'POST',
    url: '/v1/jobs/{id}/cancel',
    summary: 'Cancel a queued or running job: it stops at its next step on whichever node runs it, and its record says it was cancelled',
    tag: 'jobs',
    auth: 'user',
    params: z.object({ id: Id }),
    response: z.object({ item: Job }),
  }),
};
