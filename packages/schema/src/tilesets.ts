import { z } from 'zod';
import { Id } from './common';

/**
 * Hex tilesets (catalog §3, §7): H3 cells aggregated at a range of resolutions, grouped into tiles,
 * optionally sliced by time. See docs/decisions.md "Hex tiles" for the layout.
 */

/** Aggregations (catalog §3). */
export const TILE_AGGREGATIONS = ['sum', 'count', 'min', 'max', 'mean', 'median', 'mode'] as const;
export const TileAggregation = z.enum(TILE_AGGREGATIONS);
export type TileAggregation = z.infer<typeof TileAggregation>;

/** Time interval short codes (catalog §3): T minute, H hour, D day, M month, Y year. */
export const TILE_INTERVALS = ['T', 'H', 'D', 'M', 'Y'] as const;
export const TileInterval = z.enum(TILE_INTERVALS);
export type TileInterval = z.infer<typeof TileInterval>;

/** Quantile boundaries stored per field: minimum, deciles, maximum. */
export const TILE_QUANTILE_LEVELS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;

const res = (what: string) => z.number(`${what} must be an integer from 0 to 15`).int(`${what} must be an integer from 0 to 15`).min(0, `${what} must be an integer from 0 to 15`).max(15, `${what} must be an integer from 0 to 15`);
const columnName = (what: string) => z.string(`${what} must be a string`).trim().min(1, `${what} must not be empty`).max(200);
/** Output field names become Parquet column names and URL query values: keep them plain. */
const fieldName = z
  .string('targetColumn must be a string')
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'targetColumn must start with a letter or underscore and hold only letters, digits and underscores (at most 63)');

export const TileOutputColumn = z.object({
  /** The column aggregated; optional for count (rows per cell). */
  sourceColumn: columnName('sourceColumn').optional(),
  targetColumn: fieldName,
  aggMethod: TileAggregation,
});
export type TileOutputColumn = z.infer<typeof TileOutputColumn>;

/**
 * How a hex tileset is built from its source: kept in the tileset's metadata (`metadata.hexTile`) so that it can
 * be built again in place from the source as it is then.
 */
export const HexTileBuild = z.object({
  /** The dataset the cells come from (the caller must be able to read it). */
  source: Id,
  /** An H3 cell column of the source, or a latitude/longitude pair. */
  sourceHexColumn: columnName('sourceHexColumn').optional(),
  sourceLatColumn: columnName('sourceLatColumn').optional(),
  sourceLngColumn: columnName('sourceLngColumn').optional(),
  sourceTimeColumn: columnName('sourceTimeColumn').optional(),
  timeIntervals: z.array(TileInterval).max(TILE_INTERVALS.length).default([]),
  /** Finest data resolution (default: the H3 column's resolution; required with latitude/longitude). */
  finestResolution: res('finestResolution').optional(),
  /** Coarsest data resolution (default: finestResolution - 3, not below resolutionOffset). */
  coarsestResolution: res('coarsestResolution').optional(),
  /** Data cells of a tile are this many resolutions finer than the tile cell. */
  resolutionOffset: z.number('resolutionOffset must be an integer from 1 to 15').int('resolutionOffset must be an integer from 1 to 15').min(1, 'resolutionOffset must be an integer from 1 to 15').max(15, 'resolutionOffset must be an integer from 1 to 15').default(4),
  outputColumns: z.array(TileOutputColumn).min(1, 'outputColumns must hold at least one column').max(50),
});
export type HexTileBuild = z.infer<typeof HexTileBuild>;

/** POST /v1/datasets/hextile. */
export const HexTileCreate = HexTileBuild.extend({
  /** Default: the source's name and "(hex tiles)" (the Data SDK sends none). */
  name: z.string().trim().min(1, 'Name must not be empty').max(500).optional(),
  description: z.string().max(10_000).default(''),
  /**
   * An existing hex-tile dataset the caller may edit (the Data SDK's `target`): its tiles are built again in
   * place, under the same id, so maps that show it keep it; its current tiles are served until the new ones
   * are ready. Its name and description stay as they are.
   */
  target: Id.optional(),
})
  .superRefine((b, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (b.sourceHexColumn && (b.sourceLatColumn || b.sourceLngColumn)) issue('Give either sourceHexColumn or sourceLatColumn and sourceLngColumn, not both');
    if (!b.sourceHexColumn && !(b.sourceLatColumn && b.sourceLngColumn)) issue('Either sourceHexColumn or both sourceLatColumn and sourceLngColumn are required');
    if (b.sourceLatColumn && b.finestResolution === undefined) issue('finestResolution is required with sourceLatColumn and sourceLngColumn');
    if (b.timeIntervals.length && !b.sourceTimeColumn) issue('timeIntervals need sourceTimeColumn');
    if (new Set(b.timeIntervals).size !== b.timeIntervals.length) issue('timeIntervals must not repeat');
    const names = b.outputColumns.map((c) => c.targetColumn.toLowerCase());
    const reserved = names.find((n) => n === 'hex' || n === 'time');
    if (reserved) issue(`targetColumn ${reserved} is reserved for the cell and time columns`);
    if (new Set(names).size !== names.length) issue('targetColumn names must be unique');
    for (const c of b.outputColumns) if (!c.sourceColumn && c.aggMethod !== 'count') issue(`outputColumns ${c.targetColumn}: sourceColumn is required for ${c.aggMethod}`);
    if (b.coarsestResolution !== undefined && b.finestResolution !== undefined && b.coarsestResolution > b.finestResolution) issue('coarsestResolution must not be finer than finestResolution');
    if (b.target !== undefined && b.target === b.source) issue('target must be a hex-tile dataset, not the source');
  });
export type HexTileCreate = z.infer<typeof HexTileCreate>;

/** Query of the zip proxy calls (TIL-001..007). */
export const TilesetQuery = z.object({
  /** Another tileset archive of this dataset in the studio's own store (`store://datasets/{id}/{file}.zip`). */
  zipUrl: z.string().max(1000).optional(),
  /** Tiles, metadata, quantiles: comma-separated fields to answer; index: the viewport as JSON. */
  q: z.string().max(10_000).optional(),
  isAdmin: z.string().optional(),
  /** Tiles: the tileset version the URL was handed out with (metadata `tileUrl`); the current one makes the answer immutable. */
  v: z.string().max(64).optional(),
});

/** One field of a tileset: name, DuckDB type, how it was aggregated. */
export const TileField = z.object({ name: z.string(), type: z.string(), aggMethod: TileAggregation, sourceColumn: z.string().nullable() });

export const TilesetMetadata = z.object({
  version: z.literal(1),
  dataset: Id,
  source: Id,
  zipUrl: z.string(),
  resolutionOffset: z.number(),
  minRes: z.number(),
  maxRes: z.number(),
  /** Tile resolutions: minRes - resolutionOffset .. maxRes - resolutionOffset. */
  minZoom: z.number(),
  maxZoom: z.number(),
  hexColumn: z.literal('hex'),
  timeColumn: z.literal('time').nullable(),
  fields: z.array(TileField),
  timeIntervals: z.array(TileInterval),
  timeRange: z.object({ start: z.string(), end: z.string() }).nullable(),
  /** Cells per data resolution. */
  cellCounts: z.record(z.string(), z.number()),
  quantileLevels: z.array(z.number()),
  createdAt: z.string(),
});
export type TilesetMetadata = z.infer<typeof TilesetMetadata>;

/** A tileset's metadata as answered for a dataset: its version (of the stored archive) and the tile URL carrying it. */
export const TilesetAnswer = TilesetMetadata.extend({ version: z.string(), tileUrl: z.string() });

/** Row counts by tile cell, by zoom. */
export const TileCounts = z.record(z.string(), z.record(z.string(), z.number()));

/** The tileset index: its required metadata, the tiles of each zoom, and of each time step of each interval. */
export const TilesetIndex = z.object({
  version: z.literal(1),
  metadata: z.object({ resolutionOffset: z.number(), minRes: z.number(), maxRes: z.number(), fields: z.array(z.string()), timeIntervals: z.array(z.string()) }),
  tiles: TileCounts,
  time: z.record(z.string(), z.record(z.string(), z.object({ start: z.string(), tiles: TileCounts }))),
  /** With q: the viewport whose tiles were kept. */
  viewport: z.object({ bbox: z.array(z.number()).optional(), z: z.number().optional() }).optional(),
});

/** Quantile boundaries of each field (null where they could not be read). */
export const FieldQuantiles = z.record(z.string(), z.array(z.number()).nullable());

/** The time steps of one interval. */
export const TilesetRange = z.object({
  interval: z.string(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  steps: z.array(z.object({ path: z.string(), start: z.string(), tiles: z.number().int() })),
});

/** Stored quantiles at one resolution: of the whole tileset, or per time step of an interval. */
export const TilesetQuantiles = z.union([
  z.object({ res: z.number().int(), levels: z.array(z.number()), quantiles: FieldQuantiles }),
  z.object({ res: z.number().int(), interval: z.string(), levels: z.array(z.number()), steps: z.record(z.string(), FieldQuantiles.nullable()) }),
]);
