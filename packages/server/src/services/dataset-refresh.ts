import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CronExpressionParser } from 'cron-parser';
import {
  REFRESH_PRESETS,
  StudioError,
  badInput,
  bestEffort,
  forbidden,
  isStudioError,
  type DatasetRefresh,
  type DatasetRefreshUpdate,
  type Job,
  type RefreshPreset,
  type RefreshTrigger,
} from '@studio/schema';
import type { CatalogDeps } from './catalog-deps';
import type { AuthService } from './auth';
import type { ExecutionService } from './executions';
import type { Caller } from '../http/caller';
import type { ResourceRow } from './records';
import type { JobRun, StudioJobKind } from './jobs/service';
import { datasetAttrs, refreshOf, type DatasetAttrs } from './datasets';
import { every } from './every';

/** What a refresh job needs: the dataset and what set it off; the rest is read again when it runs. */
export interface RefreshJobData {
  datasetId: string;
  trigger: RefreshTrigger;
}

const PARQUET = 'application/vnd.apache.parquet';

/** A live dataset's query changed by someone who may not run queries on its connection (403). */
export const QUERY_CHANGE_REFUSED = "Changing a live dataset's query needs the right to run queries on its data connection";
/** A refresh whose query setter may no longer run queries on the connection (the job fails with it). */
export const REFRESH_REFUSED = "The refresh did not run: whoever last set this dataset's query may no longer run queries on its data connection; someone who may can set the query again";

/**
 * The cron expression a schedule stands for (`hourly`, `daily`, or five fields, UTC); a 422 naming what is
 * wrong otherwise. Six-field expressions (seconds) are refused: a warehouse query is not run every second.
 */
export function cronOf(schedule: string): string {
  const preset = REFRESH_PRESETS[schedule as RefreshPreset] as string | undefined;
  if (preset) return preset;
  const hint = 'use hourly, daily or a cron expression of five fields (minute hour day-of-month month day-of-week, UTC) such as "0 6 * * *"';
  if (schedule.trim().split(/\s+/).length !== 5) throw badInput(`Invalid schedule "${schedule}": ${hint}`);
  try {
    CronExpressionParser.parse(schedule, { tz: 'UTC' });
  } catch (e) {
    throw badInput(`Invalid schedule "${schedule}": ${(e as Error).message}`, hint);
  }
  return schedule;
}

/** The first time a schedule runs strictly after `after`. */
export function nextRunAfter(schedule: string, after: Date): Date {
  return CronExpressionParser.parse(cronOf(schedule), { currentDate: after, tz: 'UTC' }).next().toDate();
}

/** A live dataset's connection and query; a 422 for any other dataset. */
function liveOf(row: ResourceRow): { attrs: DatasetAttrs; connectionId: string; query: string; refresh: DatasetRefresh } {
  const attrs = datasetAttrs(row);
  const refresh = refreshOf(attrs);
  if (!refresh || !attrs.dataConnectionId || !attrs.metadata.query) {
    throw badInput(`Only live datasets refresh; this one is ${attrs.datasetType === 'sql' ? 'a live dataset without its query' : attrs.datasetType}`, 'A live dataset is made from a connection with live: true (POST /v1/datasets/query)');
  }
  return { attrs, connectionId: attrs.dataConnectionId, query: attrs.metadata.query, refresh };
}

/**
 * Live datasets run their query again as a background job ('dataset-refresh') — asked for, on their
 * schedule, or on open when older than their max age. The dataset stays ready on its old snapshot while
 * the job runs and switches to the new one only when it is complete; a refresh that fails leaves the
 * old data and says why on the dataset's page. At most one refresh per dataset is queued or running.
 */
export class DatasetRefreshService {
  constructor(private readonly s: CatalogDeps & { auth: AuthService; executions: ExecutionService }) {}

  /** Sets the schedule and/or max age; the next scheduled time is worked out from now. */
  async setSchedule(caller: Caller, row: ResourceRow, update: DatasetRefreshUpdate): Promise<ResourceRow> {
    const { refresh } = liveOf(row);
    const schedule = update.schedule === undefined ? refresh.schedule : update.schedule;
    const nextRefreshAt = schedule ? nextRunAfter(schedule, new Date()).toISOString() : null;
    const updated = await this.s.units.run(async () => {
      const written = await this.s.datasets.patchMetadata(row.id, (a) => ({
        refresh: { ...refreshOf(a)!, schedule, maxAgeSeconds: update.maxAgeSeconds ?? refresh.maxAgeSeconds, nextRefreshAt },
      }));
      await this.s.audit.record(caller, 'dataset.refresh-schedule', 'dataset', row.id, { schedule, maxAgeSeconds: update.maxAgeSeconds ?? refresh.maxAgeSeconds });
      return written;
    });
    if (!updated) throw new StudioError(404, 'Dataset not found');
    return updated;
  }

  /**
   * Starts a refresh, or answers the one already queued or running (asking twice runs the query once).
   * The job is the caller's: it shows in their Jobs panel.
   */
  async request(caller: Caller, row: ResourceRow, trigger: RefreshTrigger): Promise<{ job: Job; started: boolean }> {
    liveOf(row);
    const running = await this.s.jobs.active('dataset-refresh', row.id);
    if (running) return { job: running, started: false };
    const jobId = await this.s.units.run(async () => {
      // Two requests at once (two nodes, a schedule and a click): the row lock lets one create the job.
      await this.s.db.selectFrom('resources').select('id').where('id', '=', row.id).forUpdate().executeTakeFirst();
      if (await this.s.jobs.active('dataset-refresh', row.id)) return null;
      if (trigger === 'manual') await this.s.audit.record(caller, 'dataset.refresh', 'dataset', row.id, {});
      return this.s.jobs.create(caller, 'dataset-refresh', row.id);
    });
    if (!jobId) return { job: (await this.s.jobs.active('dataset-refresh', row.id))!, started: false };
    return { job: await this.s.jobs.enqueue<RefreshJobData>(jobId, 'dataset-refresh', { datasetId: row.id, trigger }), started: true };
  }

  /**
   * Opening a live dataset whose data is older than its max age starts a refresh on its owner's behalf; the
   * answer is the data as it is. The age counts from the last attempt, so a failing warehouse is not asked
   * again on every open.
   */
  async refreshIfStale(row: ResourceRow, now = Date.now()): Promise<Job | null> {
    const a = datasetAttrs(row);
    const refresh = refreshOf(a);
    if (!refresh || a.status !== 'ready' || !a.dataConnectionId || !a.metadata.query) return null;
    const last = Math.max(Date.parse(a.metadata.ingestedAt ?? '') || 0, Date.parse(refresh.lastRefreshAt ?? '') || 0);
    if (now - last < refresh.maxAgeSeconds * 1000) return null;
    const { job, started } = await this.request(await this.ownerOf(row), row, 'open');
    return started ? job : null;
  }

  /** Every worker node runs this each minute (app.ts): datasets whose scheduled time has come are refreshed. */
  startScheduling(everyMs = 60_000): () => void {
    return every(everyMs, () => this.runDue(), 'Refreshing live datasets on their schedules');
  }

  /**
   * Starts the refreshes whose time has come and moves each schedule on to its next time, once, whichever
   * node sees it first (a row lock; others skip the row). Answers how many jobs it started.
   */
  async runDue(now = new Date()): Promise<number> {
    const due = await this.s.db
      .selectFrom('resources')
      .select('id')
      .where('type', '=', 'dataset')
      .where(sql<boolean>`attrs->>'datasetType' = 'sql'`)
      .where(sql<boolean>`(attrs->'metadata'->'refresh'->>'nextRefreshAt')::timestamptz <= ${now.toISOString()}::timestamptz`)
      .limit(100)
      .execute();
    let started = 0;
    for (const { id } of due) {
      const claim = await this.s.units.run(async () => {
        const row = await this.s.db.selectFrom('resources').selectAll().where('id', '=', id).forUpdate().skipLocked().executeTakeFirst();
        const refresh = row ? refreshOf(datasetAttrs(row)) : null;
        if (!row || !refresh?.schedule || !refresh.nextRefreshAt || Date.parse(refresh.nextRefreshAt) > now.getTime()) return null;
        // The next time is set whether or not this one starts: a time fires once, and one missed is not made up twice.
        const nextRefreshAt = nextRunAfter(refresh.schedule, now).toISOString();
        await this.s.datasets.patchMetadata(id, (a) => ({ refresh: { ...refreshOf(a)!, nextRefreshAt } }));
        return row;
      });
      if (!claim) continue;
      await bestEffort(async () => {
        if ((await this.request(await this.ownerOf(claim), claim, 'schedule')).started) started++;
      }, `The scheduled refresh of ${id}`);
    }
    return started;
  }

  private ownerOf(row: ResourceRow): Promise<Caller> {
    return this.s.auth.callerOf(row.owner_id, 'session', '');
  }

  /**
   * Before a workbench query replaces a dataset's data: for a live dataset, the caller must be allowed to run
   * queries on its connection (the text they store runs there at every refresh, on the connection's
   * credentials), and the query must be meant for that connection. Answers the connection to run on; null
   * for a dataset that is not live (the workbench's own rules apply). Nothing is changed on a refusal.
   */
  async guardQueryChange(caller: Caller, row: ResourceRow, connectionId: string | undefined): Promise<ResourceRow | null> {
    const a = datasetAttrs(row);
    if (a.datasetType !== 'sql' || !a.dataConnectionId) return null;
    let connection: ResourceRow;
    try {
      connection = await this.s.access.guardRun(caller, a.dataConnectionId, false);
    } catch (e) {
      // Not found or read-only alike: the dataset's page already names its connection, so saying why hides nothing.
      if (isStudioError(e) && (e.status === 403 || e.status === 404)) throw forbidden(QUERY_CHANGE_REFUSED);
      throw e;
    }
    if (connectionId !== a.dataConnectionId) {
      throw badInput(`This live dataset reads data connection ${a.dataConnectionId}: its query runs there at every refresh, so give that connectionId`, 'To keep the result of a query over datasets or another connection, make a dataset of its own (POST /v1/datasets/query)');
    }
    return connection;
  }

  /** Records who set a live dataset's query (with the claim of the workbench ingestion that stores it). */
  async recordQuerySetter(datasetId: string, userId: string): Promise<void> {
    await this.s.db.updateTable('resources').set({ attrs: sql`attrs || jsonb_build_object('querySetBy', ${userId}::text)` }).where('id', '=', datasetId).execute();
  }

  /**
   * The rights a refresh runs with, checked now: those of whoever last set the query (the text is theirs), and
   * the owner's as before (an owner who lost the connection gets no new data from it). On rows from before the
   * setter was recorded the owner alone stands.
   */
  private async connectionForRefresh(row: ResourceRow, attrs: DatasetAttrs, connectionId: string): Promise<ResourceRow> {
    const owner = await this.ownerOf(row);
    const connection = await this.s.access.guardRun(owner, connectionId, false);
    if (!attrs.querySetBy || attrs.querySetBy === row.owner_id) return connection;
    try {
      return await this.s.access.guardRun(await this.s.auth.callerOf(attrs.querySetBy, 'session', ''), connectionId, false);
    } catch (e) {
      if (isStudioError(e) && e.status < 500) throw forbidden(REFRESH_REFUSED);
      throw e;
    }
  }

  /** The job kind: runs the query on the warehouse with its owner's rights, and switches the data. */
  job(): StudioJobKind<RefreshJobData> {
    return {
      kind: 'dataset-refresh',
      retryLimit: 2,
      run: (job) => this.run(job),
      ended: async ({ datasetId, trigger }, outcome, message) => {
        await this.s.datasets.patchMetadata(datasetId, (a) => ({
          refresh: { ...refreshOf(a)!, lastRefreshAt: new Date().toISOString(), lastOutcome: outcome, lastMessage: outcome === 'cancelled' ? 'The refresh was cancelled' : message, lastTrigger: trigger },
        }));
      },
    };
  }

  private async run(job: JobRun<RefreshJobData>): Promise<void> {
    const { datasetId, trigger } = job.data;
    const row = await this.s.records.get(datasetId);
    if (!row || datasetAttrs(row).datasetType !== 'sql') return; // deleted meanwhile: nothing to refresh
    const { attrs, connectionId, query } = liveOf(row);
    if (attrs.status === 'pending') throw new StudioError(409, 'The dataset was being replaced; this refresh did not run');
    const connection = await this.connectionForRefresh(row, attrs, connectionId);
    const plan = await this.s.executions.connectionPlan(connection, query, {});
    const work = path.join(this.s.engine.tmpDir, 'refresh');
    await fs.mkdir(work, { recursive: true });
    const file = path.join(work, `${datasetId}-${randomUUID()}.parquet`);
    const key = `datasets/${datasetId}/${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.parquet`;
    let switched = false;
    try {
      job.progress(5);
      await plan.produce(file, job.signal);
      job.progress(60);
      const result = await this.s.engine.ingest({ sourceFile: file, contentType: PARQUET, key });
      job.progress(90, result.rowCount);
      job.signal.throwIfAborted();
      const at = new Date().toISOString();
      const ready = await this.s.datasets.replaceData(datasetId, attrs.storageKey, key, (a) => ({
        rowCount: result.rowCount,
        byteSize: result.byteSize,
        columns: result.columns,
        detected: result.detected,
        ingestedAt: at,
        refresh: { ...refreshOf(a)!, lastRefreshAt: at, lastOutcome: 'succeeded', lastMessage: null, lastTrigger: trigger },
      }));
      if (!ready) throw new StudioError(409, 'The dataset was replaced while the refresh ran; the newer data stays');
      switched = true;
    } finally {
      if (!switched) await bestEffort(this.s.engine.store.delete(key), `Removing the unused refresh of ${datasetId}`);
      await fs.rm(file, { force: true });
    }
  }
}
