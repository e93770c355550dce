import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { StudioError, isStudioError, bestEffort, type Job } from '@studio/schema';
import type { CsvOverrides } from '@studio/engine';
import type { Services } from '.';
import type { Caller } from '../http/caller';
import type { ResourceRow } from './records';
import { datasetAttrs, receiveUpload, uploadMeta } from './datasets';
import type { JobRun, StudioJobKind } from './jobs/service';

/**
 * Uploads ingested in the background (`Prefer: respond-async`): the request stores the file and answers at
 * once with the dataset pending and its job; a worker on any node ingests it. A large file's ingestion is then
 * neither bound to the request (a client or proxy giving up after a minute) nor lost with the node: the file
 * waits in the object store, so a retry on another node starts it over.
 */

/** What an ingestion job needs; the file waits under `uploadKey` until the job ends. */
export interface UploadJobData {
  datasetId: string;
  uploadKey: string;
  contentType: string;
  contentEncoding: 'gzip' | null;
  skipArrow: boolean;
  skipBadRows: boolean;
  csv: CsvOverrides | null;
}

export interface BackgroundUpload {
  contentType: string;
  contentEncoding: string | undefined;
  skipArrow?: boolean;
  skipBadRows?: boolean;
  csv?: CsvOverrides;
  /** The caller's audit record of the upload, written with the claim. */
  audit: () => Promise<unknown>;
}

/**
 * Receives the body, stores it for the job, claims the dataset (pending, with the job) and queues the
 * ingestion. A body cut off or in an unknown encoding is refused here (422) and changes nothing.
 */
export async function startBackgroundUpload(s: Services, caller: Caller, row: ResourceRow, body: NodeJS.ReadableStream, upload: BackgroundUpload): Promise<{ row: ResourceRow; job: Job }> {
  const work = path.join(s.engine.tmpDir, 'uploads');
  await fs.mkdir(work, { recursive: true });
  const file = path.join(work, `${row.id}-${randomUUID()}.part`);
  const uploadKey = `uploads/${row.id}/${randomUUID()}`;
  try {
    const contentEncoding = await receiveUpload(body, file, upload.contentEncoding);
    await s.engine.store.put(uploadKey, file);
    const claimed = await s.units.run(async () => {
      const fresh = await s.records.get(row.id);
      if (!fresh || datasetAttrs(fresh).status === 'pending') throw new StudioError(409, 'Record is not upload-ready', 'Data is being ingested');
      const jobId = await s.jobs.create(caller, 'dataset-ingest', row.id);
      const pending = await s.datasets.transition(row.id, 'pending', { jobId, metadata: { errorMessage: null, errorDetails: null } }, { claim: true });
      await upload.audit();
      return { pending, jobId };
    });
    const data: UploadJobData = {
      datasetId: row.id, uploadKey, contentType: upload.contentType, contentEncoding: contentEncoding ?? null,
      skipArrow: upload.skipArrow ?? false, skipBadRows: upload.skipBadRows ?? false, csv: upload.csv ?? null,
    };
    try {
      return { row: claimed.pending, job: await s.jobs.enqueue<UploadJobData>(claimed.jobId, 'dataset-ingest', data) };
    } catch (e) {
      await bestEffort(s.datasets.transition(row.id, 'error', { jobId: null, metadata: { errorMessage: 'The ingestion could not be queued', errorDetails: null } }), `Ending dataset ${row.id}`);
      throw e;
    }
  } catch (e) {
    await bestEffort(s.engine.store.delete(uploadKey), `Removing the upload of ${row.id}`);
    throw e;
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** The ingestion job: the stored file into the dataset's data; a retry (after a crash or a hand-over) starts over. */
export function uploadJob(s: Services): StudioJobKind<UploadJobData> {
  return {
    kind: 'dataset-ingest',
    retryLimit: 2,
    run: (job) => ingestStored(s, job),
    ended: async ({ datasetId, uploadKey, contentType }, outcome, message) => {
      await bestEffort(s.engine.store.delete(uploadKey), `Removing the upload of ${datasetId}`);
      const row = await s.records.get(datasetId);
      if (!row || datasetAttrs(row).status !== 'pending') return;
      const errorMessage = outcome === 'cancelled' ? 'The ingestion was cancelled' : message;
      await s.datasets.transition(datasetId, 'error', { jobId: null, metadata: { ...uploadMeta(contentType), errorMessage, errorDetails: null } });
    },
  };
}

async function ingestStored(s: Services, job: JobRun<UploadJobData>): Promise<void> {
  const { datasetId, uploadKey, contentType } = job.data;
  const target = await s.records.get(datasetId);
  // Deleted, or claimed since by another upload: that one's data is the newer, and this job has nothing to do.
  const stored = target && datasetAttrs(target);
  if (!stored || stored.status !== 'pending' || stored.jobId !== job.id) return;
  const meta = uploadMeta(contentType);
  job.progress(5);
  try {
    const file = await s.engine.store.localPath(uploadKey);
    await s.datasets.ingestFile(target, file, meta, { contentType, contentEncoding: job.data.contentEncoding ?? undefined }, {
      skipArrow: job.data.skipArrow, skipBadRows: job.data.skipBadRows, csv: job.data.csv ?? undefined,
    });
  } catch (e) {
    // A file the studio refuses (malformed, unsupported) fails the same way on every retry: the dataset says why now.
    if (isStudioError(e) && e.status < 500) throw await s.datasets.failIngestion(datasetId, meta, e);
    throw e;
  }
  job.progress(100);
  await bestEffort(s.engine.store.delete(uploadKey), `Removing the ingested upload of ${datasetId}`);
}
