import { jobCalls, type QueryOf } from '@studio/schema';
import type { HttpClient } from './http';

/** Background jobs (hex tiles, vector tiles, refreshes): the caller's, one job's progress, cancel. */
export function jobsClient(c: HttpClient) {
  return {
    list: (query: Partial<QueryOf<typeof jobCalls.list>> = {}) => c.call(jobCalls.list, { query }),
    get: (id: string) => c.call(jobCalls.get, { params: { id } }).then((r) => r.item),
    cancel: (id: string) => c.call(jobCalls.cancel, { params: { id } }).then((r) => r.item),
  };
}
