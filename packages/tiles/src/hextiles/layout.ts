import { z } from 'zod';
import { cellToParent, getResolution, isValidCell, polygonToCellsExperimental, POLYGON_TO_CELLS_FLAGS } from 'h3-js';
import { badInput, TileInterval, type TilesetMetadata } from '@studio/schema';
import { TIME_PATH } from './sql';

/**
 * The archive layout of a hex tileset (docs/decisions.md "Hex tiles"):
 *   metadata.json                      TilesetMetadata
 *   index.json                         TileIndex: required metadata, tiles per zoom, time steps
 *   tiles/{z}/{tile}.parquet           cells at z + resolutionOffset inside tile cell {tile}
 *   time/{path}/{z}/{tile}.parquet     the same for one time step (path e.g. D2024-01-05)
 *   quantiles/{res}.json               {field: boundaries | null}
 *   quantiles/{res}/{path}.json        the same for one time step
 */
export type TilesetMeta = TilesetMetadata;

/** Row counts by tile cell, by zoom. */
export type TileCounts = Record<string, Record<string, number>>;

export interface TileIndex {
  version: 1;
  metadata: { resolutionOffset: number; minRes: number; maxRes: number; fields: string[]; timeIntervals: string[] };
  tiles: TileCounts;
  /** interval -> step path -> its start and tiles. */
  time: Record<string, Record<string, { start: string; tiles: TileCounts }>>;
}

export const entryName = ({ z, tile, time }: { z: number; tile: string; time?: string }) =>
  time ? `time/${time}/${z}/${tile}.parquet` : `tiles/${z}/${tile}.parquet`;

/**
 * The Arrow IPC twin of a tile's Parquet entry, written beside it when the tileset is built: every column of
 * the entry (hex, time when sliced, the fields in the tileset's order), deflated, so a tile answers stored
 * bytes (docs/decisions.md "Tile caching"). Archives built before, or made elsewhere, have none.
 */
export const arrowEntryName = (parquetEntry: string) => `arrow/${parquetEntry.replace(/\.parquet$/, '.arrow')}`;

const res = z.number().int().min(0).max(15);
const RequiredMetadata = z.object({
  resolutionOffset: z.number().int().min(1).max(15),
  minRes: res,
  maxRes: res,
  fields: z.array(z.string()),
  timeIntervals: z.array(TileInterval),
});
// Keys become entry names and cache file names: only zooms, H3 cells and step paths pass.
const Counts = z.record(z.string().regex(/^\d{1,2}$/), z.record(z.string().regex(/^[0-9a-f]{15}$/), z.number()));
const IndexShape = z.object({
  version: z.literal(1),
  metadata: z.unknown(),
  tiles: Counts,
  time: z.record(z.string().regex(/^[THDMY]$/), z.record(z.string().regex(TIME_PATH), z.object({ start: z.string(), tiles: Counts }))).default({}),
});

export const MISSING_METADATA = 'HexTile index does not include required metadata';

/** Checks an archive's index.json; an index without the fields every call needs is refused as the spec says. */
export function parseIndex(raw: unknown): TileIndex {
  const shape = IndexShape.safeParse(raw);
  if (!shape.success) throw badInput('The tileset index is not readable', shape.error.issues[0]?.message);
  const meta = RequiredMetadata.safeParse(shape.data.metadata);
  if (!meta.success) throw badInput(MISSING_METADATA, meta.error.issues.map((i) => i.path.join('.')).join(', '));
  return { ...shape.data, metadata: meta.data } as TileIndex;
}

/** The viewport of GET .../tileset-index?q=: a bounding box and, optionally, one zoom. */
const Viewport = z.object({
  bbox: z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)]),
  z: res.optional(),
}).strict();
export type Viewport = z.infer<typeof Viewport>;
export const BAD_VIEWPORT = 'Could not deserialize index viewport';

export function parseViewport(q: string): Viewport {
  let raw: unknown;
  try {
    raw = JSON.parse(q);
  } catch {
    throw badInput(BAD_VIEWPORT, 'q must be JSON: {"bbox": [west, south, east, north], "z": zoom}');
  }
  const v = Viewport.safeParse(raw);
  if (!v.success) throw badInput(BAD_VIEWPORT, v.error.issues.map((i) => `${i.path.join('.') || 'q'}: ${i.message}`).join('; '));
  const [w, s, e, n] = v.data.bbox;
  if (w > e || s > n) throw badInput(BAD_VIEWPORT, 'bbox must be [west, south, east, north] with west <= east and south <= north');
  return v.data;
}

/** Above this many viewport cells at a zoom, every tile of that zoom is answered instead (the whole world). */
const MAX_VIEWPORT_CELLS = 200_000;

/** The tiles of `counts` at zoom `z` that overlap the viewport box. */
export function tilesInViewport(counts: Record<string, number>, z: number, v: Viewport): Record<string, number> {
  const [w, s, e, n] = v.bbox;
  const ring = [[w, s], [e, s], [e, n], [w, n], [w, s]];
  let cover: Set<string>;
  try {
    const cells = polygonToCellsExperimental([ring], z, POLYGON_TO_CELLS_FLAGS.containmentOverlapping, true);
    if (cells.length > MAX_VIEWPORT_CELLS) return counts;
    cover = new Set(cells);
  } catch {
    return counts;
  }
  return Object.fromEntries(Object.entries(counts).filter(([tile]) => cover.has(tile)));
}

/** A tile cell from a path: valid H3 at zoom z. */
export function checkTile(zText: string, hex: string): { z: number; tile: string } {
  const z = Number(zText);
  if (!/^\d{1,2}$/.test(zText) || z > 15) throw badInput('z must be an integer from 0 to 15');
  if (!isValidCell(hex)) throw badInput('hex must be a valid H3 index');
  if (getResolution(hex) !== z) throw badInput(`hex ${hex} is a resolution ${getResolution(hex)} cell, not ${z}`);
  return { z, tile: hex };
}

/** Whether a stored tile (zoom zs) holds cells inside `cell` (any resolution), or is inside it. */
export const tileTouches = (tile: string, zs: number, cell: string) => {
  const rc = getResolution(cell);
  return rc <= zs ? cellToParent(tile, rc) === cell : cellToParent(cell, zs) === tile;
};
