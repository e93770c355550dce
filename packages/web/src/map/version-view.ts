import type { VersionSummary } from '@studio/schema';
import { history } from '../app/history/versions';
import { upgradeMapState, type StudioMapState } from './state/versions';

/** A map's saved version, opened read-only as it was (#51): its state, the datasets its layers read, and their data. */
export interface MapVersionView {
  version: VersionSummary;
  saved: StudioMapState | null;
  /** The datasets its layers read (the map loads them as it does today's: tile-choice/map-draws.ts). */
  datasetIds: string[];
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
  // Versions do not pin dataset snapshots yet (#51, docs/decisions.md): an old version draws today's data.
  return { version, saved, datasetIds };
}
