import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { StudioError, badInput, bestEffort, type DatasetMetadata, type DatasetTilesBuild, type Job, type VectorTileInfo } from '@studio/schema';
import { locationOf, type VectorTiles } from '@studio/tiles';
import type { Caller } from '../http/caller';
import type { Services } from '.';
import type { ResourceRow } from './records';
import { datasetAttrs } from './datasets';
import type { JobRun, StudioJobKind } from './jobs/service';

/** What a dataset-tiles job needs: the snapshot it cuts (a replaced one is not cut) and how. */
export interface DatasetTilesJobData {
  datasetId: string;
  /** The dataset's data when the build was asked for. */
  key: string;
  opts: DatasetTilesBuild;
}

type Deps = Pick<Services, 'engine' | 'datasets' | 'records' | 'audit' | 'units' | 'jobs' | 'config'>;

/**
 * Low zooms first: the zooms up to this one are cut into an archive of their own and served before the rest
 * (0..6 is the world to a region: what a map opened on a large dataset shows first, and a small share of the work).
 */
export const LOW_ZOOMS = 6;

/** A table dataset's own tiles as its metadata records them. */
type OwnTiles = Pick<DatasetMetadata, 'vectorTile' | 'vectorTileBuild'>;

/** Told when a cut's low zooms are served (`onLowZooms`); the cut goes on once it settles. */
export type LowZoomsListener = (e: { datasetId: string; jobId: string }) => void | Promise<void>;

/**
 * A table dataset's own vector tiles (#50, "Build tiles" on the dataset page): cut from its current snapshot by a
 * background job into an archive stored under the dataset (`datasets/{id}/…`), so they are the dataset's — no new
 * record, counted against its owner's storage, gone with it — and recorded in `metadata.vectorTile` with the
 * snapshot they show (`dataKey`). The dataset stays ready (readable) while they are cut.
 */
export class DatasetTileService {
  constructor(
    private readonly deps: Deps,
    private readonly tiles: VectorTiles,
  ) {}

  /** Queues the cut of `row`'s tiles: 422 for a dataset that has no location or is not a ready table dataset. */
  async build(caller: Caller, row: ResourceRow, opts: DatasetTilesBuild): Promise<Job> {
    const a = datasetAttrs(row);
    if (a.datasetType !== 'managed') throw badInput(`Only table datasets get tiles of their own (this one is ${a.datasetType})`);
    if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${row.name} is not ready (status: ${a.status})`);
    locationOf(a.metadata.columns, { ...opts, description: row.description }); // no location, or an unknown column: 422 before anything is queued
    const key = a.storageKey;
    // A cut of this same data already queued or running (the owner's from the dataset page, another editor's map)
    // is answered instead of a second cut of the same rows; one started before the data was replaced is not.
    const running = await this.deps.jobs.active('dataset-tiles', row.id);
    if (running && (!a.metadata.ingestedAt || Date.parse(running.createdAt) >= Date.parse(a.metadata.ingestedAt))) return running;
    const id = await this.deps.units.run(async () => {
      await this.deps.audit.record(caller, 'dataset.tiles', 'dataset', row.id, { minZoom: opts.minZoom ?? null, maxZoom: opts.maxZoom ?? null });
      return this.deps.jobs.create(caller, 'dataset-tiles', row.id);
    });
    // Queued once the job's record is committed, as the other tile builds do: on PGlite (one connection) the queue
    // runs the job in this process, and a job started inside the unit waits for the unit's connection for ever.
    return this.deps.jobs.enqueue<DatasetTilesJobData>(id, 'dataset-tiles', { datasetId: row.id, key, opts });
  }

  /** The job kind: a retry cuts again from the start; a cancelled or failed cut leaves the tiles the dataset had. */
  job(): StudioJobKind<DatasetTilesJobData> {
    return { kind: 'dataset-tiles', retryLimit: 2, run: (job) => this.cut(job) };
  }

  /**
   * Low zooms first (docs/decisions.md "Low zooms first"): `listener` is awaited each time a cut has made its low
   * zooms the dataset's tiles, before it cuts the rest; the job waits for it (tests hold it there to look at what
   * is served meanwhile). Answers the function that removes it. A listener's failure is logged, not the job's.
   */
  onLowZooms(listener: LowZoomsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly listeners = new Set<LowZoomsListener>();

  private async cut(job: JobRun<DatasetTilesJobData>): Promise<void> {
    const { datasetId, key, opts } = job.data;
    const row = await this.deps.records.get(datasetId);
    // Deleted, or its data replaced before the job ran: those rows are nobody's any more.
    if (!row || datasetAttrs(row).storageKey !== key) return;
    const a = datasetAttrs(row);
    job.progress(5, a.metadata.rowCount ?? undefined);
    // A key per cut: tile caches key tiles by archive, so a second cut must not reuse the first's name.
    const archiveOf = (suffix: string) => key.replace(/\.parquet$/, `.tiles-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}${suffix}.pmtiles`);
    const archiveKey = archiveOf('');
    const lowKey = archiveOf('-low');
    // What the dataset had before this cut's first record (its low zooms): put back if the cut does not end.
    const had: { tiles?: OwnTiles } = {};
    const record = async (vectorTile: VectorTileInfo): Promise<void> => {
      job.signal.throwIfAborted();
      if (await job.ended()) throw new StudioError(499, 'The job was cancelled');
      const switched = await this.deps.datasets.patchMetadata(datasetId, (now) => {
        // Replaced while cutting: the new data's tiles are another build's.
        if (now.storageKey !== key) return {};
        had.tiles ??= { vectorTile: now.metadata.vectorTile ?? null, vectorTileBuild: now.metadata.vectorTileBuild ?? null };
        return { vectorTile, vectorTileBuild: { ...opts, datasetId } };
      });
      if (!switched || datasetAttrs(switched).metadata.vectorTile?.archiveKey !== vectorTile.archiveKey) throw new StudioError(409, 'The dataset was deleted or its data replaced while its tiles were cut');
    };
    const early = {
      upTo: Math.min(LOW_ZOOMS, opts.maxZoom ?? LOW_ZOOMS),
      tilesKey: lowKey,
      ready: async (low: VectorTileInfo) => {
        await record({ ...low, dataKey: key, archiveKey: lowKey });
        job.progress(50, a.metadata.rowCount ?? undefined);
        for (const listener of this.listeners) await bestEffort(Promise.resolve().then(() => listener({ datasetId, jobId: job.id })), 'A listener of low zooms served');
      },
    };
    try {
      const info = await this.tiles.cut({ datasetId, key, columns: a.metadata.columns, opts: { ...opts, description: row.description }, pipelineType: 'managed', name: row.name, signal: job.signal, tilesKey: archiveKey, early });
      job.progress(95, a.metadata.rowCount ?? undefined);
      await record({ ...info, dataKey: key, archiveKey });
    } catch (e) {
      await bestEffort(this.deps.engine.store.delete(archiveKey), `Removing the unfinished tiles ${archiveKey}`);
      if (had.tiles) await this.putBack(datasetId, lowKey, had.tiles);
      await this.removeServed([lowKey]);
      throw e;
    }
    // The low zooms, and what the dataset had before this cut, are replaced.
    await this.removeServed([lowKey, had.tiles?.vectorTile?.archiveKey].filter((k): k is string => Boolean(k) && k !== archiveKey));
  }

  /**
   * Deletes archives the dataset served until just now, once no tile request can still reach them: tile routes
   * reuse a granted check, and the row it read, for the access cache time (STUDIO_AUTH_CACHE_MS) on every node,
   * so a map drawing through the switch would otherwise ask an archive already gone.
   */
  private async removeServed(keys: string[]): Promise<void> {
    if (!keys.length) return;
    await delay(this.deps.config.authCacheMs);
    for (const k of keys) await bestEffort(this.deps.engine.store.delete(k), `Removing the replaced tiles ${k}`);
  }

  /** A cut that did not end: the tiles the dataset had before it, if its low zooms are still what it serves. */
  private async putBack(datasetId: string, lowKey: string, tiles: OwnTiles): Promise<void> {
    await bestEffort(
      this.deps.datasets.patchMetadata(datasetId, (now) => (now.metadata.vectorTile?.archiveKey === lowKey ? tiles : {})),
      `Putting back the tiles of dataset ${datasetId}`,
    );
  }
}

/**
 * The archive of a table dataset's own tiles, when they show its current data; null otherwise (none built, or
 * built for data since replaced).
 */
export function ownTilesOf(row: ResourceRow): { key: string; info: VectorTileInfo } | null {
  const a = datasetAttrs(row);
  const info = a.metadata.vectorTile;
  if (a.datasetType !== 'managed' || !info?.archiveKey || !a.storageKey || info.dataKey !== a.storageKey) return null;
  return { key: info.archiveKey, info };
}
