import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { StudioError, badInput, isStudioError, type HexTileCreate, type Job, bestEffort } from '@studio/schema';
import { compilePipeline, type TileResolver } from '@studio/pipeline';
import { archiveKeyOf, buildTileset, openArchive, planTileset, tileDatasetsOf, zipKeyOf, zipUrlOf, type PreparedSource, type TileArchive } from '@studio/tiles';
import type { Engine } from '@studio/engine';
import type { Caller } from '../http/caller';
import type { CatalogDeps } from './catalog-deps';
import type { ResourceRow } from './records';
import { datasetAttrs, EMPTY_METADATA, rebuildTarget, type DatasetAttrs } from './datasets';
import { assertCanCreate } from './quota';
import type { JobRun, StudioJobKind } from './jobs/service';

export { archiveKeyOf, metadataOf, tileDatasetsOf, zipUrlOf } from '@studio/tiles';

/**
 * The archive of a hex-tile dataset the caller was already allowed to read, or the one `zipUrl` names:
 * that must be another archive of the same dataset in the store (no outside fetches).
 */
export async function archiveOf(s: { engine: Engine }, row: ResourceRow, zipUrl?: string): Promise<TileArchive> {
  const a = datasetAttrs(row);
  if (a.datasetType !== 'hex-tile') throw badInput(`Dataset ${row.id} is not a hex-tile dataset (type ${a.datasetType})`);
  let key = a.storageKey ? archiveKeyOf(a.storageKey) : null;
  if (zipUrl !== undefined) {
    key = zipKeyOf(zipUrl, row.id);
    if (!(await s.engine.store.exists(key))) throw new StudioError(404, 'No such tileset archive', zipUrl);
  } else if (!key) {
    // Never built yet. One being built again (pending), or whose rebuild failed (error), serves the tiles it has.
    throw new StudioError(409, `Dataset is not ready (status: ${a.status})`, a.metadata.errorMessage ?? undefined);
  } else if (!(await s.engine.store.exists(key))) {
    throw new StudioError(409, 'This hex-tile dataset has no tile archive', 'A copy keeps the cells table only; build the hex tiles from the source again');
  }
  return openArchive(s.engine, key);
}

/**
 * The tile resolver for a (validated) pipeline: the caller must be able to read each hex-tile dataset
 * it names. A first compile records which entries the tile nodes touch, they are copied out of the
 * archives, and the resolver then answers with local files (see PreparedSource).
 */
export async function tileResolverFor(s: Pick<CatalogDeps, 'access' | 'engine'>, caller: Caller, node: unknown): Promise<{ resolve: TileResolver; archives: Map<string, TileArchive> } | undefined> {
  const ids = tileDatasetsOf(node);
  if (!ids.size) return undefined;
  const sources = new Map<string, PreparedSource>();
  const archives = new Map<string, TileArchive>();
  for (const id of ids) {
    const { resource } = await s.access.guard(caller, 'dataset', id, 'read', false);
    const archive = await archiveOf(s, resource);
    archives.set(id, archive);
    sources.set(id, archive.source());
  }
  const resolve: TileResolver = (uuid) => sources.get(uuid)!;
  compilePipeline(node, { dialect: 'duckdb', resolveDataset: () => ({ relationSql: '(SELECT 1)' }), resolveTiles: resolve });
  for (const src of sources.values()) await src.prepare();
  return { resolve, archives };
}

function newAttrs(): DatasetAttrs {
  return { datasetType: 'hex-tile', status: 'new', storageKey: null, dataConnectionId: null, metadata: { ...EMPTY_METADATA } };
}

/** What a hex-tile job needs: everything else is read again when it runs (on any node, after a restart). */
export interface HexTileJobData {
  datasetId: string;
  sourceId: string;
  body: HexTileCreate;
}

/**
 * POST /v1/datasets/hextile: a new hex-tile dataset built from a source the caller can read, or, with `target`,
 * an existing one built again in place. Everything the request can be refused for is checked first (a refusal
 * changes nothing); then the dataset is claimed pending and a background job builds it (`hexTileJob`): the call
 * answers at once with the record and the job. A rebuilt dataset keeps serving its current tiles meanwhile.
 */
export async function createHexTiles(s: CatalogDeps, caller: Caller, body: HexTileCreate): Promise<{ row: ResourceRow; job: Job }> {
  const { resource: source } = await s.access.guard(caller, 'dataset', body.source, 'read', false);
  const src = datasetAttrs(source);
  if (src.datasetType === 'hex-tile') throw badInput('The source must be a table dataset, not a hex-tile dataset');
  if (src.status !== 'ready' || !src.storageKey) throw new StudioError(409, `Source dataset is not ready (status: ${src.status})`);
  const target = body.target ? await rebuildTarget(s.access, caller, body.target, 'hex-tile', false) : null;
  if (!target) await assertCanCreate(s.db, caller, 'dataset');
  const sourceFile = await s.engine.store.localPath(src.storageKey);
  await s.engine.withConnection((c) => planTileset(c, body, sourceFile, src.metadata.columns));
  const { name: _name, description: _description, target: _target, ...build } = body;
  const { row, jobId } = await s.units.run(async () => {
    const name = body.name ?? `${source.name} (hex tiles)`.slice(0, 500);
    const dataset = target ?? (await s.records.create(caller, 'dataset', { name, description: body.description, attrs: newAttrs() as unknown as Record<string, unknown> }));
    if (target) await s.audit.record(caller, 'dataset.rebuild', 'dataset', dataset.id, { type: 'hex-tile', source: body.source });
    else await s.audit.record(caller, 'dataset.create', 'dataset', dataset.id, { name: dataset.name, type: 'hex-tile', source: body.source });
    const id = await s.jobs.create(caller, 'hex-tiles', dataset.id);
    const pending = await s.datasets.transition(dataset.id, 'pending', { jobId: id, metadata: { ...HEX_TILE_META(body.source), hexTile: build, errorMessage: null, errorDetails: null } }, { claim: true });
    return { row: pending, jobId: id };
  });
  try {
    return { row, job: await s.jobs.enqueue<HexTileJobData>(jobId, 'hex-tiles', { datasetId: row.id, sourceId: body.source, body }) };
  } catch (e) {
    await bestEffort(s.datasets.transition(row.id, 'error', { metadata: { errorMessage: 'The hex tile build could not be queued', errorDetails: null } }), `Ending hex-tile dataset ${row.id}`);
    throw e;
  }
}

const HEX_TILE_META = (sourceId: string) => ({ source: `dataset:${sourceId}`, pipelineType: 'hextile', contentType: 'application/zip', query: null });

/**
 * The hex-tile build as a background job: reads the source, writes the archive and the cells snapshot under a
 * new key, and switches the dataset to ready. A retry (after a crash or a handover) starts over from the source.
 */
export function hexTileJob(s: CatalogDeps): StudioJobKind<HexTileJobData> {
  return {
    kind: 'hex-tiles',
    retryLimit: 2,
    run: (job) => buildHexTiles(s, job),
    ended: async ({ datasetId }, outcome, message) => {
      const errorMessage = outcome === 'cancelled' ? 'The hex tile build was cancelled' : message;
      const row = await s.records.get(datasetId);
      if (row && datasetAttrs(row).status === 'pending') await s.datasets.transition(datasetId, 'error', { metadata: { errorMessage, errorDetails: null } });
    },
  };
}

async function buildHexTiles(s: CatalogDeps, job: JobRun<HexTileJobData>): Promise<void> {
  const { datasetId, sourceId, body } = job.data;
  const target = await s.records.get(datasetId);
  if (!target || datasetAttrs(target).status !== 'pending') return; // deleted, or ended elsewhere: nothing to build
  // A rebuild in place: the tiles served until now, removed once the new ones are the dataset's.
  const previous = datasetAttrs(target).storageKey;
  const source = await s.records.get(sourceId);
  const src = source ? datasetAttrs(source) : null;
  if (!src || src.status !== 'ready' || !src.storageKey) throw new StudioError(409, 'The source dataset was deleted or replaced before the build ran');
  const sourceFile = await s.engine.store.localPath(src.storageKey);
  const work = path.join(s.engine.tmpDir, 'hextile-builds');
  await fs.mkdir(work, { recursive: true });
  const file = path.join(work, `${datasetId}-${randomUUID()}.zip`);
  const snapshotFile = path.join(work, `${datasetId}-${randomUUID()}.parquet`);
  const key = `datasets/${datasetId}/${Date.now().toString(36)}-${randomUUID().slice(0, 8)}.parquet`;
  const meta = HEX_TILE_META(sourceId);
  try {
    const built = await s.engine.withConnection(async (c) => {
      const plan = await planTileset(c, body, sourceFile, src.metadata.columns);
      return buildTileset(c, {
        datasetId, sourceId, sourceFile, body, zipUrl: zipUrlOf(archiveKeyOf(key)), workDir: work, snapshotFile,
        // The last 5% is storing the archive and the snapshot.
        onProgress: (done, rows) => job.progress(done * 95, rows),
        signal: job.signal,
      }, plan, file);
    });
    const { size } = await fs.stat(file);
    // The archive first: once the snapshot's key is the dataset's, its archive must be there.
    await s.engine.store.put(archiveKeyOf(key), file);
    const snapshot = await s.engine.ingest({ sourceFile: snapshotFile, contentType: 'application/vnd.apache.parquet', key });
    job.signal.throwIfAborted();
    await s.datasets.transition(datasetId, 'ready', {
      storageKey: key,
      metadata: { ...meta, rowCount: snapshot.rowCount, byteSize: snapshot.byteSize + size, columns: snapshot.columns, detected: { ...snapshot.detected, h3: built.hexColumn }, errorMessage: null, errorDetails: null, ingestedAt: new Date().toISOString() },
    });
    if (previous && previous !== key) await s.datasets.removeReplaced(previous, [archiveKeyOf(previous)]);
  } catch (caught) {
    // A source deleted or replaced during the build takes its file away mid-read: say that, not the read error.
    const now = await s.records.get(sourceId);
    const e = !now || datasetAttrs(now).storageKey !== src.storageKey ? new StudioError(409, 'The source dataset was deleted or replaced while the build ran') : caught;
    await bestEffort(s.engine.store.delete(archiveKeyOf(key)), `Removing the hex tiles of ${datasetId} after a failed build`);
    await bestEffort(s.engine.store.delete(key), `Removing the cells of ${datasetId} after a failed build`);
    if (isStudioError(e) && e.status < 500) {
      // Bad input found while building (e.g. an archive past the ZIP limits): the dataset says why, and the job ends.
      await s.datasets.transition(datasetId, 'error', { metadata: { errorMessage: e.message, errorDetails: e.details?.replaceAll(s.engine.tmpDir, '<work>') ?? null } });
    }
    throw e;
  } finally {
    await fs.rm(file, { force: true });
    await fs.rm(snapshotFile, { force: true });
  }
}
