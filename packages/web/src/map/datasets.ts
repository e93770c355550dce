import { tableFromIPC } from 'apache-arrow';
import type { Dataset } from '@studio/schema';
import { processArrowBatches } from '@kepler.gl/processors';
import { client } from '../app/api';
import { markMap } from './timing';
import { int64ColumnsAsNumbers } from './arrow-numbers';
import { publishedVectorTileDataset } from './vector-tiles';

export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';
/**
 * What the map asks for: the Arrow stream with polygon geometry as GeoArrow (`geoarrow.multipolygon`), which kepler's
 * GeoJSON layer triangulates from its buffers instead of parsing a GeoJSON string a row (docs/decisions.md, #46).
 */
export const GEOARROW_STREAM = `${ARROW_STREAM}; geoarrow=1`;

/** One dataset in the shape addDataToMap takes; its id is the catalog id, so saved configs match it. */
export interface KeplerDataset {
  info: { id: string; label: string };
  data: NonNullable<ReturnType<typeof processArrowBatches>>;
  /**
   * [west, south, east, north] of its points, from the catalog's column statistics, when it has latitude and
   * longitude columns: the view is fitted before the data is added, so a large layer is drawn once.
   */
  bounds?: Bounds;
}

export type Bounds = [number, number, number, number];

/** The extent of a dataset's detected latitude/longitude columns, from their min/max statistics. */
export function boundsOf(meta: Pick<Dataset, 'metadata'>): Bounds | undefined {
  const { latitude, longitude } = meta.metadata.detected;
  const stat = (name: string | undefined) => meta.metadata.columns.find((c) => c.name === name)?.stats;
  const lat = stat(latitude);
  const lng = stat(longitude);
  const nums = [lng?.min, lat?.min, lng?.max, lat?.max];
  if (!nums.every((n): n is number => typeof n === 'number' && Number.isFinite(n))) return undefined;
  const [w, s, e, n] = nums as Bounds;
  if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90 && w <= e && s <= n)) return undefined;
  // One place (or a line of them) has no extent to fit: a few hundred metres around it.
  const pad = (lo: number, hi: number, max: number): [number, number] => (hi - lo > 1e-6 ? [lo, hi] : [Math.max(-max, lo - 0.005), Math.min(max, hi + 0.005)]);
  const [west, east] = pad(w, e, 180);
  const [south, north] = pad(s, n, 90);
  return [west, south, east, north];
}

/** Turns an Arrow IPC stream into kepler's dataset (an Arrow data container, no row copy). */
export function arrowToKepler(id: string, label: string, bytes: ArrayBuffer): KeplerDataset {
  const table = tableFromIPC(new Uint8Array(bytes));
  const data = processArrowBatches(int64ColumnsAsNumbers(table) as Parameters<typeof processArrowBatches>[0]);
  if (!data) throw new Error(`Dataset ${label} has no rows kepler can read`);
  markMap('data-decoded');
  return { info: { id, label }, data };
}

/**
 * All of a table dataset's rows, as Arrow (the map builder's way below its tile threshold, tile-choice/); with
 * `snapshot`, the rows of that kept snapshot of it (a pinned version, #51).
 */
export async function loadArrowDataset(meta: Pick<Dataset, 'id' | 'name' | 'metadata'>, snapshot?: string): Promise<KeplerDataset> {
  const response = await client.raw('GET', `/v1/datasets/${meta.id}/data`, { headers: { accept: GEOARROW_STREAM }, ...(snapshot && { query: { snapshot } }) });
  return { ...arrowToKepler(meta.id, meta.name, await response.arrayBuffer()), bounds: boundsOf(meta) };
}

/**
 * A dataset of a published map, for anonymous viewers; `grant` (from the password form) when the map is protected;
 * `ownTiles` when the saved map drew this table dataset from its own tiles (tile-choice/choice.ts `drawnFromTiles`).
 */
export async function loadPublishedDataset(mapId: string, id: string, label: string, grant?: string, ownTiles = false): Promise<KeplerDataset> {
  const tiles = await publishedVectorTileDataset(mapId, id, label, grant, ownTiles);
  if (tiles) return tiles;
  const response = await client.raw('GET', `/v1/maps/${mapId}/published-map/datasets/${id}`, { headers: { accept: GEOARROW_STREAM, ...(grant ? { 'x-map-grant': grant } : {}) } });
  return arrowToKepler(id, label, await response.arrayBuffer());
}
