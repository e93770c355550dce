import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { EMPTY_METADATA, StudioError, StoredDataset, badInput, initialRefresh, isStudioError, type Access, type DatasetRefresh, type Dataset, type DatasetMetadata, type DatasetStatus, DATASET_TRANSITIONS, bestEffort } from '@studio/schema';
import { UPLOAD_MAX_BYTES, arrowCopyKey, geoArrowCopyKey, rejectedLinesKey, type CsvOverrides, type Engine } from '@studio/engine';
import { every } from './every';
import { copyDatasetFiles } from './dataset-copy';
import { keepReplaced } from './dataset-snapshots';
import type { Db } from '../store/db';
import { atomically } from '../store/unit-of-work';
import type { RecordService, ResourceRow } from './records';
import type { AccessService } from './access';
import type { Caller } from '../http/caller';

/** What a dataset keeps in `attrs` besides the record fields (`StoredDataset`, parsed on every read). */
export type DatasetAttrs = StoredDataset;
/** A change to a dataset's attrs: the named fields (the stored object's other keys stay as they are). */
export type DatasetAttrsPatch = Partial<Pick<DatasetAttrs, 'datasetType' | 'status' | 'storageKey' | 'dataConnectionId' | 'jobId'>> & { metadata?: Partial<DatasetMetadata> };

export { EMPTY_METADATA };

/** A dataset row whose attrs `StoredDataset` refuses. */
export class UnreadableDataset extends Error {
  override name = 'UnreadableDataset';
}

export const datasetAttrs = (row: Pick<ResourceRow, 'attrs'> & { id?: string }): DatasetAttrs => {
  const parsed = StoredDataset.safeParse(row.attrs ?? {});
  if (parsed.success) return parsed.data;
  // A row the schema refuses was written by a defect (or by hand): an error the log names (the caller gets a 500
  // with its request id), never passed on as if it read.
  const issue = parsed.error.issues[0]!;
  throw new UnreadableDataset(`The catalog holds a dataset it cannot read${row.id ? ` (${row.id})` : ''}: ${issue.path.join('.') || 'attrs'}: ${issue.message}`);
};

/**
 * The tileset a build goes into in place (`target` of the hex- and vector-tile calls): the caller may edit it, it
 * is of the call's kind, and nothing is building it now.
 */
export async function rebuildTarget(access: Pick<AccessService, 'guard'>, caller: Caller, id: string, type: 'hex-tile' | 'vector-tile', adminMode: boolean): Promise<ResourceRow> {
  const { resource } = await access.guard(caller, 'dataset', id, 'write', adminMode);
  const a = datasetAttrs(resource);
  if (a.datasetType !== type) throw badInput(`target must be a ${type} dataset (${resource.name} is of type ${a.datasetType})`);
  if (a.status === 'pending') throw new StudioError(409, 'Record is not upload-ready', 'Its tiles are being built');
  return resource;
}

/** A live dataset's refresh settings, with the defaults for one never set; null for other datasets. */
export function refreshOf(a: DatasetAttrs): DatasetRefresh | null {
  return a.datasetType === 'sql' ? { ...initialRefresh(), ...(a.metadata.refresh ?? {}) } : null;
}

/** How an ingestion stores its data: `skipArrow` leaves the Arrow copy to the first read (spec: PUT /{id}/data). */
export interface IngestOpts {
  skipArrow?: boolean;
  /** CSV and TSV: leave malformed lines out and count them (metadata.rejectedRows) instead of refusing the file. */
  skipBadRows?: boolean;
  /** CSV and TSV: what the user set instead of what is detected (UploadReadOptions). */
  csv?: CsvOverrides;
  /** Writes that belong to the caller's claim of the dataset (its audit record): committed with the move to pending. */
  onClaim?: () => Promise<unknown>;
}

/** A dataset upload that stopped before its end (client gone, connection cut). */
export const CUT_OFF = 'The upload was cut off before the end of the file';

/** How a dataset's data was made, as its metadata records it. */
export type IngestMeta = Pick<DatasetMetadata, 'source' | 'pipelineType' | 'contentType' | 'query'>;

/** The metadata of uploaded data: its media type without parameters. */
export const uploadMeta = (contentType: string): IngestMeta => ({ source: 'upload', pipelineType: 'managed', contentType: contentType.split(';')[0]!.trim(), query: null });

/**
 * Streams an upload's body to `file` (memory stays flat whatever the size); answers its content encoding
 * (gzip or none). A body cut off on the way, or in an encoding the studio does not read, is refused (422); one
 * past `maxBytes` as it arrives (413; a gzip body's decompressed bytes are counted again when it is ingested).
 */
export async function receiveUpload(body: NodeJS.ReadableStream, file: string, contentEncoding: string | undefined, maxBytes = UPLOAD_MAX_BYTES): Promise<'gzip' | undefined> {
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(new StudioError(413, `Upload is larger than ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body as NodeJS.ReadableStream & AsyncIterable<Buffer>, count, createWriteStream(file));
  } catch (e) {
    if (isStudioError(e)) throw e;
    throw new StudioError(422, CUT_OFF);
  }
  const encoding = contentEncoding?.toLowerCase() === 'gzip' ? 'gzip' : undefined;
  if (contentEncoding && !encoding && contentEncoding.toLowerCase() !== 'identity') throw new StudioError(422, `Unsupported content encoding ${contentEncoding}`);
  return encoding;
}
/**
 * A dataset pending this long without a heartbeat lost the node ingesting it: two heartbeats missed, plus
 * half an interval for a slow catalog. (Its own node fails it at once when it starts again.)
 */
export const STALE_PENDING_MS = 5 * 60 * 1000;

/** How often the node ingesting a dataset marks it alive. */
export interface IngestTiming {
  heartbeatMs: number;
}
export const DEFAULT_TIMING: IngestTiming = { heartbeatMs: STALE_PENDING_MS / 2.5 };
export const INTERRUPTED = 'Ingestion was interrupted; upload the file again';

/**
 * Datasets: the status machine, streaming uploads to disk, ingestion into Parquet through the engine.
 * Each ingestion writes a new storage key and switches to it only when complete, so readers see the old
 * data or the new, never a half.
 */
export class DatasetService {
  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly records: RecordService,
    private readonly timing: IngestTiming = DEFAULT_TIMING,
    /** This node (STUDIO_NODE_ID or <dataDir>/node-id): pending datasets record it, to be failed at its restart. */
    private readonly nodeId = 'local',
  ) {}

  /** Arrow copies being written after ingestion, by dataset id (see keepArrowCopy). */
  private readonly copies = new Map<string, Promise<void>>();

  async toWire(rows: ResourceRow[], accessOf: (row: ResourceRow) => Access): Promise<Dataset[]> {
    const wires = await this.records.toWire(rows, accessOf);
    return wires.map((w) => {
      const row = rows.find((r) => r.id === w.id)!;
      return this.decorate(w, row);
    });
  }

  decorate<T extends { id: string }>(w: T, row: Pick<ResourceRow, 'attrs'> & { id?: string }): Omit<T, 'type'> & Pick<Dataset, 'type' | 'status' | 'metadata' | 'dataConnectionId'> {
    const a = datasetAttrs(row);
    const metadata = { ...a.metadata, storageReadPath: a.status === 'ready' ? `/v1/datasets/${w.id}/data` : null, refresh: refreshOf(a) };
    return { ...w, type: a.datasetType, status: a.status, metadata, dataConnectionId: a.dataConnectionId };
  }

  /**
   * Moves a dataset along the status machine; an illegal move is a bug, not user input. A move to `ready`
   * with new data starts writing that data's Arrow copy (see keepArrowCopy) unless `skipArrow`. A `claim`
   * (work about to replace the dataset's data) is refused while other work holds it pending: checked on the
   * locked row, so two claims that race cannot both win.
   */
  async transition(
    id: string,
    to: DatasetStatus,
    patch: DatasetAttrsPatch = {},
    opts: { skipArrow?: boolean; claim?: boolean } = {},
  ): Promise<ResourceRow> {
    const row = await this.move(id, to, patch, opts.claim);
    if (to === 'ready' && patch.storageKey && !opts.skipArrow) this.keepArrowCopy(id, patch.storageKey);
    return row;
  }

  /**
   * Writes the Arrow copy of a dataset's new data after it is `ready`, so the first read streams a file
   * instead of building Arrow from Parquet; ingestion does not wait for it (the copy takes about as long as
   * the ingestion itself). Until it exists reads stream from the Parquet; a failure leaves the dataset as
   * it is (reads keep building from the Parquet, and the first complete one keeps a copy). Data replaced or
   * deleted while the copy was written would leave a copy of a key nobody reads: it is removed.
   */
  private keepArrowCopy(id: string, key: string): void {
    const job = bestEffort(async () => {
      try {
        await this.engine.keepArrowCopy(key);
      } catch (e) {
        if (this.engine.isClosed) return; // stopped by the engine's close(), not failed: a later read starts another
        throw e;
      }
      if (this.engine.isClosed) return; // the studio is closing: the catalog goes with it
      const row = await this.db.selectFrom('resources').select('attrs').where('id', '=', id).executeTakeFirst();
      if (!row || datasetAttrs(row).storageKey !== key) await this.engine.store.delete(arrowCopyKey(key));
    }, `The Arrow copy of ${key}`);
    const settled = Promise.all([this.copies.get(id), job]).then(() => undefined);
    this.copies.set(id, settled);
    void settled.then(() => {
      if (this.copies.get(id) === settled) this.copies.delete(id);
    });
  }

  /**
   * Removes data a dataset no longer points at, once it has switched to new data: the snapshot under `key`, its
   * Arrow and GeoArrow copies and rejected lines, and `beside` (a tileset's archive kept next to its snapshot).
   */
  async removeReplaced(key: string, beside: string[] = []): Promise<void> {
    for (const old of [...beside, key, arrowCopyKey(key), geoArrowCopyKey(key), rejectedLinesKey(key)]) await bestEffort(this.engine.store.delete(old), `Removing the replaced ${old}`);
  }

  /**
   * Keeps table data a dataset no longer points at as a snapshot (#51, services/dataset-snapshots.ts): versions may
   * pin it, and retention removes it later. Its Arrow and GeoArrow copies go now: each is as large as the data and only
   * speeds up reads, which a snapshot seldom has. A failure to record it is logged and leaves the files (space, not data
   * lost); a dataset deleted meanwhile takes them with its folder.
   */
  private async keepSnapshot(id: string, key: string, metadata: DatasetMetadata): Promise<void> {
    await bestEffort(keepReplaced(this.db, id, key, metadata), `Keeping the replaced ${key} as a snapshot`);
    for (const copy of [arrowCopyKey(key), geoArrowCopyKey(key)]) await bestEffort(this.engine.store.delete(copy), `Removing the copy ${copy} of the replaced data`);
  }

  /** Resolves once the Arrow copies started for this dataset have been written (or given up). */
  arrowCopySettled(id: string): Promise<void> {
    return this.copies.get(id) ?? Promise.resolve();
  }

  private move(id: string, to: DatasetStatus, patch: DatasetAttrsPatch, claim = false): Promise<ResourceRow> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('resources').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) throw new StudioError(409, 'Record is not upload-ready');
      const current = datasetAttrs(row);
      if (claim && current.status === 'pending') throw new StudioError(409, 'Record is not upload-ready', 'Its data is being built or ingested');
      if (current.status !== to && !DATASET_TRANSITIONS[current.status].includes(to)) {
        throw new StudioError(409, `Dataset cannot go from ${current.status} to ${to}`);
      }
      const next: DatasetAttrs = { ...current, ...patch, status: to, metadata: { ...current.metadata, ...(patch.metadata ?? {}) } };
      return trx
        .updateTable('resources')
        .set({ attrs: JSON.stringify({ ...row.attrs, ...next }), updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** Changes a dataset's metadata where it stands (status and data untouched), from what it holds now; null when it is gone. */
  async patchMetadata(id: string, patch: (current: DatasetAttrs) => Partial<DatasetMetadata>): Promise<ResourceRow | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('resources').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) return null;
      const current = datasetAttrs(row);
      const next = { ...current, metadata: { ...current.metadata, ...patch(current) } };
      return trx.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, ...next }), updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    });
  }

  /**
   * Switches a dataset to data stored elsewhere first (a live dataset's refresh): readers kept the old data
   * all along and see the new once this commits. Only when its data is still `fromKey` and nothing is
   * ingesting it: an upload or another refresh that switched first wins, and this answers null (the caller
   * removes its file). A dataset in error or new goes through pending to ready, as the status machine says.
   */
  async replaceData(id: string, fromKey: string | null, key: string, metadata: (current: DatasetAttrs) => Partial<DatasetMetadata>): Promise<ResourceRow | null> {
    const current = await this.db.selectFrom('resources').select('attrs').where('id', '=', id).executeTakeFirst();
    const a = current ? datasetAttrs(current) : null;
    if (!a || a.storageKey !== fromKey || a.status === 'pending') return null;
    const claimed = a.status !== 'ready';
    if (claimed) await this.move(id, 'pending', {});
    let replaced: DatasetMetadata | null = null;
    const switched = await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('resources').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      const now = row ? datasetAttrs(row) : null;
      // An upload that claimed the dataset meanwhile is ingesting: its data will be the newer.
      if (!row || !now || now.storageKey !== fromKey || now.status !== (claimed ? 'pending' : 'ready')) return null;
      replaced = now.metadata;
      const next: DatasetAttrs = { ...now, status: 'ready', storageKey: key, metadata: { ...now.metadata, ...metadata(now), errorMessage: null, errorDetails: null } };
      return trx.updateTable('resources').set({ attrs: JSON.stringify({ ...row.attrs, ...next }), updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    });
    if (!switched) return null;
    this.keepArrowCopy(id, key);
    if (fromKey && replaced) await this.keepSnapshot(id, fromKey, replaced);
    return switched;
  }

  /**
   * Streams an upload body to a temp file (memory stays flat whatever the size), ingests it, and leaves
   * the dataset `ready` with its schema and statistics, or `error` with a message saying what was wrong.
   */
  async ingestUpload(row: ResourceRow, body: NodeJS.ReadableStream, contentType: string, contentEncoding: string | undefined, opts: IngestOpts = {}): Promise<ResourceRow> {
    return this.ingestWith(row, uploadMeta(contentType), async (file) => ({ contentType, contentEncoding: await receiveUpload(body, file, contentEncoding) }), opts);
  }

  /** Materializes a checked SQL query (see sql-sandbox.ts) as the dataset's data. */
  /** A dataset made from user SQL: `writeParquet` runs it in the SQL sandbox into the file it is given. */
  async ingestQuery(row: ResourceRow, writeParquet: (file: string) => Promise<unknown>, queryText: string, opts: IngestOpts = {}): Promise<ResourceRow> {
    return this.ingestWith(row, { source: 'query', pipelineType: 'query', contentType: 'application/vnd.apache.parquet', query: queryText }, async (file) => {
      await writeParquet(file);
      return { contentType: 'application/vnd.apache.parquet', contentEncoding: undefined };
    }, opts);
  }

  /**
   * The one ingestion path: pending, produce a file, ingest it under a new storage key, switch to it,
   * ready; or error with the message. The previous data stays readable until the switch. Once ready, the
   * data's Arrow copy is written unless `skipArrow` (then the first complete Arrow read writes it).
   */
  async ingestWith(
    row: ResourceRow,
    meta: IngestMeta,
    produce: (file: string) => Promise<{ contentType: string; contentEncoding: 'gzip' | undefined }>,
    opts: IngestOpts = {},
  ): Promise<ResourceRow> {
    if (datasetAttrs(row).status === 'pending') throw new StudioError(409, 'Record is not upload-ready', 'Data is being ingested');
    // The claim commits on its own, before the work: other requests and nodes must see the dataset pending.
    const pending = await atomically(this.db, async () => {
      const claimed = await this.transition(row.id, 'pending', { metadata: { errorMessage: null, errorDetails: null } }, { claim: true });
      await this.db.updateTable('resources').set({ attrs: sql`attrs || jsonb_build_object('ingestNode', ${this.nodeId}::text, 'jobId', null)` }).where('id', '=', row.id).execute();
      await opts.onClaim?.();
      return claimed;
    });
    // A long ingestion stays fresh, so that no node's sweep (failStalePending) takes it for a crashed one.
    const heartbeat = setInterval(() => void bestEffort(this.markAlive(row.id), `The heartbeat of ingestion ${row.id}`), this.timing.heartbeatMs);
    heartbeat.unref();
    const work = path.join(this.engine.tmpDir, 'uploads');
    await fs.mkdir(work, { recursive: true });
    const file = path.join(work, `${row.id}-${randomUUID()}.part`);
    try {
      return await this.ingestFile(pending, file, meta, await produce(file), opts);
    } catch (e) {
      throw await this.failIngestion(row.id, meta, e);
    } finally {
      clearInterval(heartbeat);
      await fs.rm(file, { force: true });
    }
  }

  /**
   * Ingests `file` under a new storage key and switches the claimed (pending) dataset to it, ready; then keeps
   * the data it replaced as a snapshot. The file stays where it is (an upload waiting in the object store may be retried).
   */
  async ingestFile(pending: ResourceRow, file: string, meta: IngestMeta, input: { contentType: string; contentEncoding: 'gzip' | undefined }, opts: IngestOpts = {}): Promise<ResourceRow> {
    const previous = datasetAttrs(pending).storageKey;
    const key = `datasets/${pending.id}/${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.parquet`;
    const result = await this.engine.ingest({ sourceFile: file, contentType: input.contentType, contentEncoding: input.contentEncoding, key, skipBadRows: opts.skipBadRows, csv: opts.csv });
    const ready = await this.transition(pending.id, 'ready', {
      storageKey: key,
      jobId: null,
      metadata: {
        ...meta,
        rowCount: result.rowCount,
        byteSize: result.byteSize,
        columns: result.columns,
        detected: result.detected,
        errorMessage: null,
        errorDetails: null,
        ingestedAt: new Date().toISOString(),
        rejectedRows: result.rejectedRows ?? null,
        geometryRepairs: result.geometryRepairs ?? null,
      },
    }, opts);
    if (previous && previous !== key) await this.keepSnapshot(pending.id, previous, datasetAttrs(pending).metadata);
    return ready;
  }

  /** Ends a failed ingestion: the dataset in error, saying why without server paths. Answers the error to throw. */
  async failIngestion(id: string, meta: IngestMeta, e: unknown): Promise<StudioError> {
    const message = isStudioError(e) ? e.message : 'Ingestion failed';
    // The engine's messages name its temp files; a user needs neither the path nor the layout.
    const details = (isStudioError(e) ? (e.details ?? null) : String(e))?.replaceAll(this.engine.tmpDir, '<upload>') ?? null;
    await this.transition(id, 'error', { jobId: null, metadata: { ...meta, errorMessage: message, errorDetails: details } });
    return isStudioError(e) ? e : new StudioError(500, message, details ?? undefined);
  }

  /** Marks a pending dataset as being ingested right now (its updated_at), without touching anything else. */
  private async markAlive(id: string): Promise<void> {
    await this.db.updateTable('resources').set({ updated_at: new Date() }).where('id', '=', id).where(sql<boolean>`attrs->>'status' = 'pending'`).execute();
  }

  /**
   * Every node runs this at start and then every minute (app.ts): a dataset pending past STALE_PENDING_MS
   * without a heartbeat lost the node that ingested it (a crash), and ends in error instead of pending forever.
   */
  startSweeping(everyMs = 60_000): () => void {
    return every(everyMs, () => this.failStalePending(), 'Sweeping stale ingestions');
  }

  /** After a crash: datasets left pending past STALE_PENDING_MS end in error, so none is pending forever. */
  async failStalePending(now = Date.now()): Promise<number> {
    const rows = await this.db
      .selectFrom('resources')
      .select('id')
      .where('type', '=', 'dataset')
      .where(sql<boolean>`attrs->>'status' = 'pending'`)
      .where('updated_at', '<', new Date(now - STALE_PENDING_MS))
      // A job's dataset is the job's: its retries and its end (services/jobs) decide, however long it runs.
      .where(sql<boolean>`attrs->>'jobId' is null`)
      .execute();
    for (const r of rows) await bestEffort(this.transition(r.id, 'error', { metadata: { errorMessage: INTERRUPTED } }), `Ending the stale ingestion of ${r.id}`);
    return rows.length;
  }

  /** At start: this node's own pending ingestions died with its previous process, so they fail at once. */
  async failOwnInterrupted(): Promise<number> {
    const rows = await this.db
      .selectFrom('resources')
      .select('id')
      .where('type', '=', 'dataset')
      .where(sql<boolean>`attrs->>'status' = 'pending'`)
      .where(sql<boolean>`attrs->>'ingestNode' = ${this.nodeId}`)
      .execute();
    for (const r of rows) await this.transition(r.id, 'error', { metadata: { errorMessage: INTERRUPTED } });
    return rows.length;
  }

  async deleteData(row: ResourceRow): Promise<void> {
    await this.engine.store.delete(`datasets/${row.id}`);
  }

  /** A page of a dataset's stored rows, for preview tables. */
  preview(a: DatasetAttrs & { storageKey: string }, page: { offset: number; limit: number }): Promise<Record<string, unknown>[]> {
    return this.engine.preview(a.storageKey, page);
  }

  /** The lines a "skip bad rows" upload left out, as the CSV kept beside its data; null when it kept none. */
  async rejectedLines(a: DatasetAttrs & { storageKey: string }): Promise<NodeJS.ReadableStream | null> {
    const key = rejectedLinesKey(a.storageKey);
    if (!a.metadata.rejectedRows || !(await this.engine.store.exists(key))) return null;
    return this.engine.store.createReadStream(key);
  }

  /** A copy's files: the source's data under the copy's own key (outside any transaction: they can be large). */
  copyFiles(fromKey: string, toKey: string): Promise<void> {
    return copyDatasetFiles(this.engine, fromKey, toKey);
  }

  /** A new file name in the engine's temp folder under `kind` (e.g. an object fetched before it is ingested). */
  async scratchFile(kind: 'imports'): Promise<string> {
    const dir = path.join(this.engine.tmpDir, kind);
    await fs.mkdir(dir, { recursive: true });
    return path.join(dir, randomUUID());
  }

  /** The folder multi-layer uploads (GeoPackage, KML) are received into. */
  get uploadDir(): string {
    return this.engine.tmpDir;
  }
}
