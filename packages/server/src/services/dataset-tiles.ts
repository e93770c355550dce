import { randomUUID } from 'node:crypto';
import { StudioError, badInput, bestEffort, type DatasetTilesBuild, type Job, type VectorTileInfo } from '@studio/schema';
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

type Deps = Pick<Services, 'engine' | 'datasets' | 'records' | 'audit' | 'units' | 'jobs'>;

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

  private async cut(job: JobRun<DatasetTilesJobData>): Promise<void> {
    const { datasetId, key, opts } = job.data;
    const row = await this.deps.records.get(datasetId);
    // Deleted, or its data replaced before the job ran: those rows are nobody's any more.
    if (!row || datasetAttrs(row).storageKey !== key) return;
    const a = datasetAttrs(row);
    job.progress(5, a.metadata.rowCount ?? undefined);
    // A key per cut: tile caches key tiles by archive, so a second cut must not reuse the first's name.
    const archiveKey = key.replace(/\.parquet$/, `.tiles-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.pmtiles`);
    const info = await this.tiles.cut({ datasetId, key, columns: a.metadata.columns, opts: { ...opts, description: row.description }, pipelineType: 'managed', name: row.name, signal: job.signal, tilesKey: archiveKey });
    let previous: string | undefined;
    try {
      job.progress(95, a.metadata.rowCount ?? undefined);
      job.signal.throwIfAborted();
      const switched = await this.deps.datasets.patchMetadata(datasetId, (now) => {
        // Replaced while cutting: the new data's tiles are another build's.
        if (now.storageKey !== key) return {};
        previous = now.metadata.vectorTile?.archiveKey;
        const vectorTile: VectorTileInfo = { ...info, dataKey: key, archiveKey };
        return { vectorTile, vectorTileBuild: { ...opts, datasetId } };
      });
      if (!switched || datasetAttrs(switched).metadata.vectorTile?.archiveKey !== archiveKey) throw new StudioError(409, 'The dataset was deleted or its data replaced while its tiles were cut');
    } catch (e) {
      await bestEffort(this.deps.engine.store.delete(archiveKey), `Removing the unfinished tiles ${archiveKey}`);
      throw e;
    }
    if (previous && previous !== archiveKey) await bestEffort(this.deps.engine.store.delete(previous), `Removing the replaced tiles ${previous}`);
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
