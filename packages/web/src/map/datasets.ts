import { tableFromIPC } from 'apache-arrow';
import { processArrowBatches } from '@kepler.gl/processors';
import { client } from '../app/api';
import { markMap } from './timing';
import { int64ColumnsAsNumbers } from './arrow-numbers';
import { isVectorTileDataset, publishedVectorTileDataset, vectorTileDataset } from './vector-tiles';

export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';

/** One dataset in the shape addDataToMap takes; its id is the catalog id, so saved configs match it. */
export interface KeplerDataset {
  info: { id: string; label: string };
  data: NonNullable<ReturnType<typeof processArrowBatches>>;
}

/** Turns an Arrow IPC stream into kepler's dataset (an Arrow data container, no row copy). */
export function arrowToKepler(id: string, label: string, bytes: ArrayBuffer): KeplerDataset {
  const table = tableFromIPC(new Uint8Array(bytes));
  const data = processArrowBatches(int64ColumnsAsNumbers(table) as Parameters<typeof processArrowBatches>[0]);
  if (!data) throw new Error(`Dataset ${label} has no rows kepler can read`);
  markMap('data-decoded');
  return { info: { id, label }, data };
}

/** A catalog dataset, read as Arrow with the signed-in session. */
export async function loadCatalogDataset(id: string): Promise<KeplerDataset> {
  const meta = await client.datasets.get(id);
  if (isVectorTileDataset(meta)) return vectorTileDataset(meta);
  const response = await client.raw('GET', `/v1/datasets/${id}/data`, { headers: { accept: ARROW_STREAM } });
  return arrowToKepler(id, meta.name, await response.arrayBuffer());
}

/** A dataset of a published map, for anonymous viewers; `grant` (from the password form) when the map is protected. */
export async function loadPublishedDataset(mapId: string, id: string, label: string, grant?: string): Promise<KeplerDataset> {
  const tiles = await publishedVectorTileDataset(mapId, id, label, grant);
  if (tiles) return tiles;
  const response = await client.raw('GET', `/v1/maps/${mapId}/published-map/datasets/${id}`, { headers: { accept: ARROW_STREAM, ...(grant ? { 'x-map-grant': grant } : {}) } });
  return arrowToKepler(id, label, await response.arrayBuffer());
}
