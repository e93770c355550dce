import { StudioError, UploadReadOptions, badInput, downloadFileBase, isStudioError, type Dataset, type DatasetDownloadFormat, type SpreadsheetForm } from '@studio/schema';
import { BufferPool, EXPORTS } from '@studio/engine';
import { wantsGeoArrow } from './media-types';
import { requireCaller, type RouteContext } from './route';
import type { Caller } from './caller';
import { clientGone, primed, sendStream } from './streams';
import { prefersAsync } from './prefer';
import type { Services } from '../services';
import type { ListOptions, ResourceRow } from '../services/records';
import { CUT_OFF, UnreadableDataset, datasetAttrs, EMPTY_METADATA, type DatasetAttrs } from '../services/datasets';
import { startBackgroundUpload } from '../services/upload-jobs';
import { workbookTableFile } from '../services/dataset-tables';

/**
 * The dataset answers and steps several route files share (the datasets', the storage, the kepler.gl import and
 * the published map's): a dataset on the wire, its data streamed, a new managed dataset. Route files import these,
 * never each other.
 */

export async function datasetItem(services: Services, row: ResourceRow, ctx: Pick<RouteContext<unknown, unknown, unknown>, 'caller' | 'adminMode'>) {
  const access = await services.access.accessOf(ctx.caller, row, ctx.adminMode);
  const [item] = await services.datasets.toWire([row], () => access);
  return { item: item! };
}

export function newAttrs(type: DatasetAttrs['datasetType'], extra: Partial<DatasetAttrs> = {}): DatasetAttrs {
  return { datasetType: type, status: 'new', storageKey: null, dataConnectionId: null, metadata: { ...EMPTY_METADATA }, ...extra };
}

/**
 * The stored data of a dataset, for readers. Data under replacement (pending) or whose replacement failed
 * (error) keeps its previous data until a new upload switches to its own: readers get that, whole. Only a
 * dataset that never had data is not ready (409).
 */
export function readableData(row: ResourceRow): DatasetAttrs & { storageKey: string } {
  const a = datasetAttrs(row);
  if (!a.storageKey) throw new StudioError(409, `Dataset is not ready (status: ${a.status})`, a.metadata.errorMessage ?? undefined);
  return a as DatasetAttrs & { storageKey: string };
}

/**
 * Streams a dataset's stored data in `format`, as `mediaType` (the format's own by default). Arrow batches are
 * written straight to the socket and their buffers reused once written (see BufferPool); a dataset read
 * before comes from its Arrow copy. The first piece is made before the headers leave, so a refusal
 * (FlatGeobuf past its size) or a failing read still answers with its status.
 */
export async function sendData(ctx: RouteContext<unknown, unknown, unknown>, row: ResourceRow, format: DatasetDownloadFormat, mediaType = EXPORTS[format].mediaType, spreadsheet?: SpreadsheetForm, data = readableData(row)) {
  return streamData(ctx, row, format, mediaType, `attachment; filename="${downloadFileBase(row.name)}.${EXPORTS[format].extension}"`, spreadsheet, data);
}

/**
 * The data a read of `row` streams: its current data, or with `?snapshot=` one of its kept snapshots (#51), as it was
 * then (404 for an id that is not this dataset's). The caller's access was checked on the dataset as it is now.
 */
export async function dataOf(services: Pick<Services, 'snapshots'>, row: ResourceRow, snapshotId: string | undefined): Promise<DatasetAttrs & { storageKey: string }> {
  if (!snapshotId) return readableData(row);
  const snap = await services.snapshots.get(row.id, snapshotId);
  const a = datasetAttrs(row);
  return { ...a, storageKey: snap.storageKey, metadata: { ...a.metadata, ...snap.metadata } };
}

/** sendData without the download's file name: data a page reads (a published map's layers). */
export async function streamData(ctx: RouteContext<unknown, unknown, unknown>, row: ResourceRow, format: DatasetDownloadFormat, mediaType = EXPORTS[format].mediaType, disposition?: string, spreadsheet?: SpreadsheetForm, a = readableData(row)) {
  const signal = clientGone(ctx.reply);
  // The map builder's GeoArrow (its Accept parameter), from the dataset's GeoArrow copy: its pieces may be shared by
  // concurrent reads, so they are not pooled.
  const geometry = format === 'arrow' && wantsGeoArrow(String(ctx.req.headers.accept ?? '')) ? a.metadata.detected.geometry : undefined;
  const pool = format === 'arrow' && !geometry ? new BufferPool() : undefined;
  const shape = { columns: a.metadata.columns.map((c) => c.name), rowCount: a.metadata.rowCount };
  const engine = ctx.services.engine;
  const rows = geometry ? engine.datasetGeoArrowStream(a.storageKey, geometry, { signal }) : engine.exportStream(a.storageKey, format, { signal, pool, location: a.metadata.detected, shape, spreadsheet });
  const stream = await primed(rows);
  ctx.reply.header('content-type', mediaType);
  if (disposition) ctx.reply.header('content-disposition', disposition);
  return sendStream(ctx.reply, stream, pool);
}

/** A new managed dataset and its audit record, in one unit of work (for routes that ingest outside one). */
export function createManaged(services: Services, caller: Caller, fields: { name: string; description: string }, details: Record<string, unknown> = {}, live: { datasetType?: 'sql'; dataConnectionId?: string } = {}) {
  return services.units.run(async () => {
    const attrs = newAttrs(live.datasetType ?? 'managed', live.dataConnectionId ? { dataConnectionId: live.dataConnectionId } : {});
    const created = await services.records.create(caller, 'dataset', { ...fields, attrs: attrs as unknown as Record<string, unknown> });
    await services.audit.record(caller, 'dataset.create', 'dataset', created.id, { name: created.name, ...details });
    return created;
  });
}

export const contentTypeOf = (ctx: RouteContext<unknown, unknown, unknown>) => String(ctx.req.headers['content-type'] ?? '').trim();

/** Deletes a dataset with its audit record; its files go once the deletion is kept (a rollback must not leave a dataset without its data). */
export async function deleteDataset(ctx: RouteContext<unknown, unknown, unknown>, row: ResourceRow): Promise<undefined> {
  const caller = requireCaller(ctx);
  await ctx.services.records.delete(caller, row);
  await ctx.services.audit.record(caller, 'dataset.delete', 'dataset', row.id, { name: row.name });
  await ctx.services.units.afterCommit(() => ctx.services.datasets.deleteData(row));
  return undefined;
}

/** A dataset whose data an upload may replace: a managed one not already ingesting (409 "Record is not upload-ready"). */
export function assertUploadReady(row: ResourceRow): void {
  const a = datasetAttrs(row);
  if (a.datasetType !== 'managed') throw badInput(`Only managed datasets store uploaded data; this one is ${a.datasetType}`);
  if (a.status === 'pending') throw new StudioError(409, 'Record is not upload-ready', 'Data is being ingested; try again when it is done');
}

/** Removes a dataset the one-step upload made for a file that was refused, with whatever it had stored. */
export async function discardRefused(services: Services, caller: Caller, id: string): Promise<void> {
  const row = await services.records.get(id);
  if (!row) return;
  await services.records.delete(caller, row);
  await services.datasets.deleteData(row);
}

/** Upload the request body as the dataset's data; answers the dataset, or the ingestion error. */
export async function uploadInto(ctx: RouteContext<unknown, unknown, unknown>, row: ResourceRow, opts: { skipArrow?: boolean; skipBadRows?: boolean; read: UploadReadOptions }) {
  const contentType = contentTypeOf(ctx);
  if (!contentType) throw badInput('Unsupported content type', 'Send the file with its media type as Content-Type');
  const body = ctx.req.body as NodeJS.ReadableStream | undefined;
  if (!body || typeof body.pipe !== 'function') throw badInput('Unsupported content type', 'The body must be the file itself');
  const { read, ...rest } = opts;
  const csv = Object.values(read).some((v) => v !== undefined) ? read : undefined;
  const contentEncoding = ctx.req.headers['content-encoding'] as string | undefined;
  if (prefersAsync(ctx.req.headers)) {
    // Stored, then ingested by a background job: the answer comes at once with the pending dataset and its job.
    const { row: pending, job } = await startBackgroundUpload(ctx.services, requireCaller(ctx), row, body, {
      contentType, contentEncoding, ...rest, csv,
      audit: () => ctx.services.audit.record(ctx.caller, 'dataset.upload', 'dataset', row.id, { contentType, background: true }),
    });
    ctx.reply.code(202).header('preference-applied', 'respond-async').header('location', `/v1/jobs/${job.id}`);
    return { ...(await datasetItem(ctx.services, pending, ctx)), job };
  }
  const ready = await ctx.services.datasets.ingestUpload(row, body, contentType, contentEncoding, {
    ...rest,
    csv,
    onClaim: () => ctx.services.audit.record(ctx.caller, 'dataset.upload', 'dataset', row.id, { contentType }),
  });
  return datasetItem(ctx.services, ready, ctx);
}

/** The query of a one-step upload (declared in @studio/schema beside the reading options). */
export { NewUploadQuery } from '@studio/schema';

/**
 * The one-step upload (/v1 and the Data SDK): a new managed dataset of the caller with the request body as its data.
 * A refused file (422: malformed or unsupported, 413: too large) leaves nothing behind, since the caller never saw the
 * record; the two-step flow keeps its record, in error with the reason, for another upload. An upload cut off on the
 * way stays in error, as before.
 */
export async function uploadNewDataset(
  ctx: RouteContext<unknown, unknown, unknown>,
  fields: { name: string; description: string },
  opts: Parameters<typeof uploadInto>[2],
  details: Record<string, unknown> = {},
) {
  const caller = requireCaller(ctx);
  await ctx.services.quota.assertCanCreate(caller, 'dataset');
  if (!contentTypeOf(ctx)) throw badInput('Unsupported content type', 'Send the file with its media type as Content-Type');
  const row = await createManaged(ctx.services, caller, fields, details);
  try {
    return await uploadInto(ctx, row, opts);
  } catch (e) {
    if (isStudioError(e) && (e.status === 422 || e.status === 413) && e.message !== CUT_OFF) await discardRefused(ctx.services, caller, row.id);
    throw e;
  }
}

/** The reading options of an upload's query (UploadReadOptions), without its other parameters. */
export const readOptionsOf = (q: UploadReadOptions): UploadReadOptions => ({ delimiter: q.delimiter, header: q.header, encoding: q.encoding, columnTypes: q.columnTypes, layer: q.layer });


/** User SQL over datasets the caller reads (and their temporary views: a workbook cell saved as a dataset). */
export const sandboxForCaller = (services: Services, caller: Caller, query: string) => services.sandbox.compile(query, (name) => workbookTableFile(services, caller, name, new Map()), { userId: caller.user.id });

/** Dataset lists answer datasets: record fields plus type, status and metadata. */
/** A page of datasets as lists answer them: records with the dataset fields (type, status, metadata). */
export async function listDatasets(ctx: RouteContext<unknown, unknown, unknown>, opts: ListOptions): Promise<{ items: Dataset[]; total: number }> {
  const { items, total, attrs } = await ctx.services.records.listWithAttrs(requireCaller(ctx), 'dataset', opts);
  // A row the catalog cannot read is left out of the page (and logged), as lists of other kinds leave theirs: one
  // broken record must not hide every other.
  const readable = items.flatMap((item) => {
    try {
      return [ctx.services.datasets.decorate(item, { id: item.id, attrs: attrs.get(item.id)! })];
    } catch (e) {
      if (!(e instanceof UnreadableDataset)) throw e;
      ctx.req.log.error({ err: e }, 'dataset left out of a list');
      return [];
    }
  });
  return { total: total - (items.length - readable.length), items: readable };
}


