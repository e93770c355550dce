import type { VersionSummary } from '@studio/schema';
import { client } from '../app/api';
import { history } from '../app/history/versions';
import { ARROW_STREAM, arrowToKepler, boundsOf, loadCatalogDataset, type KeplerDataset } from './datasets';
import { upgradeMapState, type StudioMapState } from './state/versions';
import { isVectorTileDataset } from './vector-tiles';

/** A map's saved version, opened read-only as it was (#51): its state, the datasets its layers read, and their data. */
export interface MapVersionView {
  version: VersionSummary;
  saved: StudioMapState | null;
  datasetIds: string[];
  /** The data: a pinned dataset as it was then (its snapshot), the others as they are today. */
  load: () => Promise<KeplerDataset[]>;
}

/** The catalog datasets a saved kepler config reads (its layers' and filters' dataId), in order, once each. */
export function datasetIdsOfState(saved: StudioMapState | null): string[] {
  const vis = saved?.kepler.config.visState as { layers?: { config?: { dataId?: unknown } }[]; filters?: { dataId?: unknown }[] } | undefined;
  const ids = [...(vis?.layers ?? []).map((l) => l.config?.dataId), ...(vis?.filters ?? []).flatMap((f) => (Array.isArray(f.dataId) ? f.dataId : [f.dataId]))];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/** Version `n` of a map; `recordDatasetIds` stand in when the version's state names no dataset (a map without layers). */
export async function openMapVersion(mapId: string, n: number, recordDatasetIds: string[]): Promise<MapVersionView> {
  const version = await history('maps').get(mapId, n);
  const saved = upgradeMapState(version.state);
  const named = datasetIdsOfState(saved);
  const datasetIds = named.length ? named : recordDatasetIds;
  const pins = new Map(version.pins.map((p) => [p.datasetId, p.snapshotId]));
  return { version, saved, datasetIds, load: () => Promise.all(datasetIds.map((id) => (pins.has(id) ? loadPinnedDataset(id, pins.get(id)!) : loadCatalogDataset(id)))) };
}

/** A dataset's kept snapshot, read with the dataset's current permissions; a vector-tile dataset is drawn as it is now. */
async function loadPinnedDataset(id: string, snapshot: string): Promise<KeplerDataset> {
  const meta = await client.datasets.get(id);
  if (isVectorTileDataset(meta)) return loadCatalogDataset(id);
  const response = await client.raw('GET', `/v1/datasets/${id}/data`, { query: { snapshot }, headers: { accept: ARROW_STREAM } });
  return { ...arrowToKepler(id, meta.name, await response.arrayBuffer()), bounds: boundsOf(meta) };
}
