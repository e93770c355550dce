import { StudioError, isStudioError, type Job } from '@studio/schema';
import type { Services } from '.';
import type { Caller } from '../http/caller';
import type { ResourceRow } from './records';
import type { ExecutionRow, ParamValues, Plan } from './executions';
import type { StudioJobKind } from './jobs/service';

/**
 * What a query execution runs, as data: a request is planned with its caller's rights when it runs, so an
 * asynchronous execution (a background job, possibly on another node, possibly after a retry) checks access
 * again then, as the synchronous one does at once.
 */
export interface ExecutionRequest {
  /** The SQL as run (a template's stored text, or the caller's). */
  query: string;
  parameters: ParamValues;
  /** A warehouse connection the SQL is pushed down to; null: over datasets on the embedded engine. */
  connectionId: string | null;
  /** More table names the SQL may use, to dataset ids (a template's `dataset`). */
  aliases: Record<string, string>;
  templateId: string | null;
  templateVersion: number | null;
  datasetId: string | null;
  recordId: string | null;
  /** An administrator's admin mode; it holds at run time only while they still are one. */
  adminMode: boolean;
}

export interface ExecutionJobData {
  executionId: string;
  ownerId: string;
  request: ExecutionRequest;
}

/** The plan of a request for a caller: the datasets and connection it names are checked as the caller's. */
export async function planFor(s: Pick<Services, 'access' | 'executions'>, caller: Caller, request: ExecutionRequest): Promise<Plan> {
  const aliases = new Map<string, ResourceRow>();
  for (const [alias, datasetId] of Object.entries(request.aliases)) aliases.set(alias, (await s.access.guard(caller, 'dataset', datasetId, 'read', request.adminMode)).resource);
  const base = request.connectionId
    ? await s.executions.connectionPlan(await s.access.guardRun(caller, request.connectionId, request.adminMode), request.query, request.parameters)
    : await s.executions.sandboxPlan(caller, request.query, request.parameters, aliases);
  return { ...base, query: request.query, templateId: request.templateId, templateVersion: request.templateVersion, datasetId: request.datasetId, recordId: request.recordId };
}

/**
 * An execution answered at once (`Prefer: respond-async`): the caller's cached run when allowed, else a new
 * execution, queued, and a background job of the same id that runs it on any worker node (retried after a
 * crash, cancelled from the Jobs panel). `plan` was made by the caller's request: bad input is its 422 now.
 */
export async function submitExecution(s: Services, caller: Caller, request: ExecutionRequest, plan: Plan, useCache: boolean): Promise<{ row: ExecutionRow; fromCache: boolean; job: Job | null }> {
  const hit = useCache ? await s.executions.cachedRun(caller, plan) : null;
  if (hit) return { row: hit, fromCache: true, job: null };
  const id = await s.units.run(async () => {
    const jobId = await s.jobs.create(caller, 'query-execution', null);
    return s.executions.record(caller, plan, jobId);
  });
  try {
    const job = await s.jobs.enqueue<ExecutionJobData>(id, 'query-execution', { executionId: id, ownerId: caller.user.id, request });
    return { row: await s.executions.get(id), fromCache: false, job };
  } catch (e) {
    await s.executions.end(id, 'failure', 'The query could not be queued');
    throw e;
  }
}

/**
 * The job: plans the request again as its owner (a share or a connection removed since is refused), runs
 * it, and writes the outcome to the execution. A query that fails ends the job failed with the same
 * message, not retried (it would fail the same way); a lost node's run is retried from the start.
 */
export function executionJob(s: Services): StudioJobKind<ExecutionJobData> {
  return {
    kind: 'query-execution',
    async run(job) {
      const { executionId, ownerId, request } = job.data;
      let plan: Plan;
      try {
        plan = await planFor(s, await s.auth.callerOf(ownerId, 'session', ''), request);
      } catch (e) {
        if (isStudioError(e) && e.status < 500) await s.executions.end(executionId, 'failure', e.message);
        throw e;
      }
      const row = await s.executions.run(executionId, plan, job.signal);
      if (row.status === 'failure') throw new StudioError(422, row.error_message ?? 'The query failed');
    },
    async ended(data, outcome, message) {
      await s.executions.end(data.executionId, outcome === 'cancelled' ? 'cancelled' : 'failure', message);
    },
  };
}
