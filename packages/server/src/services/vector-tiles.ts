import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { StudioError, badInput, isStudioError, type VectorTileBuild, type DatasetColumn, type Job, type VectorTileInfo, type VectorTileOptions, bestEffort } from '@studio/schema';
import type { IngestResult } from '@studio/engine';
import { VectorTiles, locationOf, tilesKeyOf } from '@studio/tiles';
import type { JobRun, StudioJobKind } from './jobs/service';
import type { Services } from '.';
import type { Caller } from '../http/caller';
import type { ResourceRow } from './records';
import { datasetAttrs, EMPTY_METADATA, type DatasetAttrs } from './datasets';
import { ExpiringCache } from './expiring-cache';
import { DatasetTileService, ownTilesOf } from './dataset-tiles';

export { DEFAULT_LAYER, locationOf, tilesKeyOf } from '@studio/tiles';

/** Where a vector-tile dataset's rows come from, as its metadata records it. */
export interface TileSource {
  name: string;
  pipelineType: VectorTileInfo['pipelineType'];
  query: string | null;
  sourceLabel: string;
  /** A dataset's cut: its options, kept so that the page can cut it again (queries are not kept this way). */
  build?: VectorTileBuild;
}
const PARQUET = 'application/vnd.apache.parquet';

/** What a vector-tile job needs: the stored rows and how to tile them; read again on whichever node runs it. */
export interface VectorTileJobData {
  datasetId: string;
  /** The rows, stored as the dataset's Parquet snapshot before the job was queued. */
  key: string;
  stored: Pick<IngestResult, 'rowCount' | 'byteSize' | 'columns' | 'detected'>;
  opts: VectorTileOptions;
  pipelineType: VectorTileInfo['pipelineType'];
  name: string;
}

/** What a published map's tile links rest on: the datasets it shows, and whether a password protects it. */
export interface Publication {
  datasetIds: string[];
  protected: boolean;
}

/**
 * Vector-tile datasets: a Parquet snapshot of the source (so preview, data and SQL work as for any
 * dataset) plus a PMTiles archive cut from it. The request stores the rows (a query that fails, or rows
 * with no location, is the caller's 422 and leaves nothing behind); the tiling, the long part, is a
 * background job ('vector-tiles') that any node can run again from the stored rows after a crash.
 */
export class VectorTileService {
  /** Cutting and reading the archives (@studio/tiles); this service decides when a cut becomes a dataset's. */
  readonly tiles: VectorTiles;
  /** Publications that published maps' tile links rest on, reused like the tile access checks (STUDIO_AUTH_CACHE_MS). */
  private readonly publications: ExpiringCache<Publication | null>;
  /** The datasets signed tile links name, reused the same way (linkedDataset). */
  private readonly linkedRows: ExpiringCache<ResourceRow | null>;

  constructor(private readonly services: Pick<Services, 'engine' | 'datasets' | 'records' | 'audit' | 'units' | 'jobs' | 'tileCache' | 'config'>) {
    this.tiles = new VectorTiles(services);
    this.publications = new ExpiringCache<Publication | null>({ ttlMs: services.config.authCacheMs, limit: 10_000 });
    this.linkedRows = new ExpiringCache<ResourceRow | null>({ ttlMs: services.config.authCacheMs, limit: 10_000 });
  }

  /**
   * The dataset a signed tile link names, read from the catalog at most once per access cache time on this
   * node, as the tile routes reuse a granted check: a map's tiles (dozens a view, for every viewer of a
   * published map) cost no catalog read each. A deleted dataset's links stop within that time; one not found is
   * never kept.
   */
  linkedDataset(id: string): Promise<ResourceRow | null> {
    return this.linkedRows.getOrLoad(id, async () => (await this.services.records.get(id)) ?? null, (row) => row !== null);
  }

  /**
   * A published map's publication as its tile links see it, `load`ed from the catalog at most once per access
   * cache time on this node: an unpublished map's links stop within that time. Not published is never kept.
   */
  publication(mapId: string, load: () => Promise<Publication | null>): Promise<Publication | null> {
    return this.publications.getOrLoad(mapId, load, (publication) => publication !== null);
  }

  /** One tile as stored (gzip or not), null where the pyramid has no feature, through the node's tile cache. */
  cachedTile(key: string, z: number, x: number, y: number): Promise<{ bytes: Buffer; gzip: boolean } | null> {
    return this.tiles.cachedTile(key, z, x, y);
  }

  /**
   * Creates the dataset (or, with `target`, cuts an existing vector-tile dataset again in place: it keeps its
   * id and serves its current tiles until the new ones are ready), stores `produce`'s Parquet as its rows and
   * queues the job that tiles them: answers at once with the dataset pending and the job. Bad input found on
   * the way (no location, an unknown column, a query the warehouse refuses) removes what was made: a 422
   * changes nothing; so does a caller who leaves before the rows are stored (`signal`).
   */
  async create(
    caller: Caller,
    opts: VectorTileOptions,
    source: TileSource,
    produce: (file: string) => Promise<void>,
    signal?: AbortSignal,
    target?: ResourceRow,
  ): Promise<{ row: ResourceRow; job: Job }> {
    const { datasets, engine, records, units, jobs } = this.services;
    const attrs: DatasetAttrs = { datasetType: 'vector-tile', status: 'new', storageKey: null, dataConnectionId: null, metadata: { ...EMPTY_METADATA } };
    const row = target ?? (await units.run(async () => {
      const created = await records.create(caller, 'dataset', { name: opts.name ?? source.name, description: opts.description, attrs: attrs as unknown as Record<string, unknown> });
      await this.services.audit.record(caller, 'dataset.create', 'dataset', created.id, { name: created.name, type: 'vector-tile', source: source.sourceLabel });
      return created;
    }));
    const meta = { source: source.sourceLabel, pipelineType: source.pipelineType, contentType: PARQUET, query: source.query, vectorTileBuild: source.build ?? null };
    const key = `datasets/${row.id}/${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.parquet`;
    let stored: IngestResult;
    const file = path.join(engine.tmpDir, `vt-rows-${randomUUID()}.parquet`);
    try {
      try {
        await produce(file);
        stored = await engine.ingest({ sourceFile: file, contentType: PARQUET, key });
      } finally {
        await fs.rm(file, { force: true });
      }
      locationOf(stored.columns as DatasetColumn[], opts);
      if (signal?.aborted) throw new StudioError(499, 'The request was cancelled');
    } catch (e) {
      if (target) {
        // The dataset goes on as it was, with its current tiles: only the rows stored for the new cut go.
        await bestEffort(engine.store.delete(key), `Removing the rows of an abandoned cut of ${row.id}`);
        throw e;
      }
      if (isStudioError(e) && (e.status === 422 || e.status === 499)) {
        // Bad input, or a caller gone before the end: nothing was made for anyone.
        await bestEffort(records.delete(caller, row), `Removing the record of an abandoned tileset ${row.id}`);
        await bestEffort(engine.store.delete(`datasets/${row.id}`), `Removing the files of an abandoned tileset ${row.id}`);
      } else {
        const message = isStudioError(e) ? e.message : 'Storing the rows to tile failed';
        await bestEffort(datasets.transition(row.id, 'error', { metadata: { ...meta, errorMessage: message, errorDetails: null } }), `Ending tileset ${row.id}`);
      }
      throw e;
    }
    let claim;
    try {
      claim = await units.run(async () => {
        if (target) await this.services.audit.record(caller, 'dataset.rebuild', 'dataset', row.id, { type: 'vector-tile', source: source.sourceLabel });
        const id = await jobs.create(caller, 'vector-tiles', row.id);
        return { pending: await datasets.transition(row.id, 'pending', { jobId: id, metadata: meta }, { claim: true }), jobId: id };
      });
    } catch (e) {
      // Another cut or upload claimed it meanwhile: the rows stored for this one go.
      await bestEffort(engine.store.delete(key), `Removing the rows of a refused cut of ${row.id}`);
      throw e;
    }
    const { pending, jobId } = claim;
    const data: VectorTileJobData = {
      datasetId: row.id,
      key,
      stored: { rowCount: stored.rowCount, byteSize: stored.byteSize, columns: stored.columns, detected: stored.detected },
      opts,
      pipelineType: source.pipelineType,
      name: pending.name,
    };
    try {
      return { row: pending, job: await jobs.enqueue(jobId, 'vector-tiles', data) };
    } catch (e) {
      await bestEffort(datasets.transition(row.id, 'error', { metadata: { errorMessage: 'The vector tile build could not be queued', errorDetails: null } }), `Ending tileset ${row.id}`);
      throw e;
    }
  }

  /** The job kind: cuts the archive from the stored rows and makes the dataset ready; a retry starts the cut again. */
  job(): StudioJobKind<VectorTileJobData> {
    return {
      kind: 'vector-tiles',
      retryLimit: 2,
      run: (job) => this.build(job),
      ended: async ({ datasetId, key }, outcome, message) => {
        const row = await this.services.records.get(datasetId);
        if (row && datasetAttrs(row).status === 'pending') {
          await this.services.datasets.transition(datasetId, 'error', { metadata: { errorMessage: outcome === 'cancelled' ? 'The vector tile build was cancelled' : message, errorDetails: null } });
        }
        // A cut that never became the dataset's (a rebuild that failed keeps the tiles it had): its files go. The
        // move to error above keeps the storage key, so the row read before it still says which data is current.
        if (row && datasetAttrs(row).storageKey !== key) {
          for (const stale of [key, tilesKeyOf(key)]) await bestEffort(this.services.engine.store.delete(stale), `Removing the unfinished cut ${stale}`);
        }
      },
    };
  }

  private async build(job: JobRun<VectorTileJobData>): Promise<void> {
    const { datasetId, key, stored, opts, pipelineType, name } = job.data;
    const target = await this.services.records.get(datasetId);
    if (!target || datasetAttrs(target).status !== 'pending') return; // deleted, or ended elsewhere
    // A cut again in place: the rows and tiles served until now, removed once the new ones are the dataset's.
    const previous = datasetAttrs(target).storageKey;
    job.progress(5, stored.rowCount);
    const vectorTile = await this.tiles.cut({ datasetId, key, columns: stored.columns as DatasetColumn[], opts, pipelineType, name, signal: job.signal });
    job.progress(95, stored.rowCount);
    job.signal.throwIfAborted();
    await this.services.datasets.transition(datasetId, 'ready', {
      storageKey: key,
      metadata: { ...stored, errorMessage: null, errorDetails: null, ingestedAt: new Date().toISOString(), vectorTile },
    });
    if (previous && previous !== key) await this.services.datasets.removeReplaced(previous, [tilesKeyOf(previous)]);
  }

  /**
   * The archive key and tile info of a vector-tile dataset that has tiles: a ready one, or one being cut again
   * (pending) or whose new cut failed (error), which serve the tiles they have; or a table dataset's own tiles
   * (DatasetTileService) while they show its current data.
   */
  tilesOf(row: ResourceRow): { key: string; info: VectorTileInfo } {
    const own = ownTilesOf(row);
    if (own) return own;
    const a = datasetAttrs(row);
    if (a.datasetType === 'managed' && a.metadata.vectorTile?.archiveKey) throw new StudioError(409, 'This dataset\'s data was replaced since its tiles were cut: build them again');
    if (a.datasetType !== 'vector-tile') throw badInput(`Dataset ${row.name} is not a vector-tile dataset (type: ${a.datasetType})`);
    if (!a.storageKey || !a.metadata.vectorTile) throw new StudioError(409, `Dataset is not ready (status: ${a.status})`, a.metadata.errorMessage ?? undefined);
    return { key: tilesKeyOf(a.storageKey), info: a.metadata.vectorTile };
  }
}

const byServices = new WeakMap<object, VectorTileService>();
/** One service (and archive cache) per studio. */
export function vectorTiles(services: Services): VectorTileService {
  let s = byServices.get(services);
  if (!s) byServices.set(services, (s = new VectorTileService(services)));
  return s;
}

const ownByServices = new WeakMap<object, DatasetTileService>();
/** The table datasets' own tiles, cut and read by the same VectorTiles (one archive cache per studio). */
export function datasetTiles(services: Services): DatasetTileService {
  let s = ownByServices.get(services);
  if (!s) ownByServices.set(services, (s = new DatasetTileService(services, vectorTiles(services).tiles)));
  return s;
}
