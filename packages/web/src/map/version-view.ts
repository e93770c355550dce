import type { VersionSummary } from '@studio/schema';
import { client } from '../app/api';
import { history } from '../app/history/versions';
import { loadArrowDataset, type KeplerDataset } from './datasets';
import { upgradeMapState, type StudioMapState } from './state/versions';

/** A map's saved version, opened read-only as it was (#51): its state, the datasets its layers read, and their data. */
export interface MapVersionView {
  version: VersionSummary;
  saved: StudioMapState | null;
  /** The datasets its layers read (the map loads them as it does today's: tile-choice/map-draws.ts). */
  datasetIds: string[];
  /** The datasets it pinned (saved with "Pin data"), by id: their snapshot's rows, not today's (`loadPinned`). */
  pins: Map<string, string>;
}

/** A pinned dataset as the version showed it: all the rows of its snapshot, read with the dataset's permissions now. */
export async function loadPinned(id: string, snapshot: string): Promise<KeplerDataset> {
  return loadArrowDataset(await client.datasets.get(id), snapshot);
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
  return { version, saved, datasetIds, pins: new Map(version.pins.map((p) => [p.datasetId, p.snapshotId])) };
}
