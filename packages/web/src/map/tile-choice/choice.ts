import { systemCalls, type DataDraw, type Dataset, type MapTileThreshold, type StudioMapState } from '@studio/schema';
import { client } from '../../app/api';
import { formatCount } from '../../datasets/format';

/**
 * Which way a table dataset is drawn on a map (#50): from its own vector tiles past the installation's threshold
 * (STUDIO_MAP_TILE_ROWS rows or STUDIO_MAP_TILE_BYTES of stored Parquet), else all its rows downloaded as Arrow;
 * a layer's override (saved in the map state's `draw`) wins. The sentence says which and why, with the threshold:
 * a setting, printed, not a guess.
 */
export interface DrawChoice {
  draw: DataDraw;
  /** The threshold chose, or the user did for this layer. */
  by: 'threshold' | 'layer';
  /** What the layer panel prints. */
  text: string;
}

let threshold: Promise<MapTileThreshold> | null = null;
/** This installation's threshold, asked once per page (GET /v1/static-configs). */
export function tileThreshold(): Promise<MapTileThreshold> {
  threshold ??= client.call(systemCalls.staticConfigs, {}).then((r) => r.item.mapTileThreshold);
  threshold.catch(() => (threshold = null)); // asked again next time rather than failing every map of the page
  return threshold;
}

/** Sizes as the setting reads them (DuckDB's units, powers of 1024): 250 MB, 1.5 GB. */
export function formatSize(bytes: number): string {
  const i = Math.min(SIZE_UNITS.length - 1, Math.floor(Math.log(Math.max(bytes, 1)) / Math.log(1024)));
  const v = bytes / 1024 ** i;
  return `${Number(v.toFixed(v < 10 && i > 0 ? 1 : 0))} ${SIZE_UNITS[i]}`;
}
const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/**
 * The datasets a saved map drew from tiles: those of its vector tile layers. A published map is read by people who
 * may not know the threshold (it is not public) and may not cut tiles, so it draws as it was saved.
 */
export function drawnFromTiles(saved: StudioMapState | null): Set<string> {
  const layers = (saved?.kepler.config.visState as { layers?: { type?: unknown; config?: { dataId?: unknown } }[] } | undefined)?.layers ?? [];
  return new Set(layers.flatMap((l) => (l.type === 'vectorTile' && typeof l.config?.dataId === 'string' ? [l.config.dataId] : [])));
}

/** Datasets the choice applies to: table datasets with a location their tiles can be cut from. */
export function tileable(meta: Pick<Dataset, 'type' | 'metadata'>): boolean {
  const { latitude, longitude, geometry } = meta.metadata.detected;
  return meta.type === 'managed' && Boolean((latitude && longitude) || geometry);
}

/** How `meta` is drawn with `t` and the layer's override; null for a dataset with no choice (not tileable). */
export function drawChoice(meta: Pick<Dataset, 'type' | 'metadata'>, t: MapTileThreshold, override?: DataDraw): DrawChoice | null {
  if (!tileable(meta)) return null;
  const rows = meta.metadata.rowCount ?? 0;
  const bytes = meta.metadata.byteSize ?? 0;
  const setting = `this studio's threshold: ${formatCount(t.rows)} rows or ${formatSize(t.bytes)}`;
  const pastRows = rows > t.rows;
  const pastBytes = bytes > t.bytes;
  if (override) {
    return override === 'tiles'
      ? { draw: 'tiles', by: 'layer', text: `Drawn from tiles, as set for this layer (${formatCount(rows)} rows; ${setting})` }
      : { draw: 'rows', by: 'layer', text: `All ${formatCount(rows)} rows drawn, as set for this layer (${setting})` };
  }
  if (pastRows) return { draw: 'tiles', by: 'threshold', text: `Drawn from tiles: ${formatCount(rows)} rows is past this studio's ${formatCount(t.rows)}-row threshold` };
  if (pastBytes) return { draw: 'tiles', by: 'threshold', text: `Drawn from tiles: ${formatSize(bytes)} of stored data is past this studio's ${formatSize(t.bytes)} threshold` };
  return { draw: 'rows', by: 'threshold', text: `All ${formatCount(rows)} rows drawn: within ${setting}` };
}
