import { z } from 'zod';
import { Id } from './common';

/**
 * Vector-tile datasets (catalog §3, §7: POST /v1/datasets/vectortile, PUT /v1/data-queries/vector-tiling).
 * The studio cuts a Mapbox Vector Tile pyramid from a table with point/line/polygon geometry or lat/lng
 * columns and keeps it as one PMTiles archive, served tile by tile from its own host.
 */

/** Tiles are cut up to this zoom at most; maps overzoom past a dataset's own maxZoom. */
export const VECTOR_TILE_MAX_ZOOM = 14;
export const VECTOR_TILE_PIPELINE_KINDS = ['remote', 'pipeline', 'managed', 'temporary-table'] as const;
export const VECTOR_TILE_FORMATS = ['mvt', 'pmtiles'] as const;

const ColumnName = z.string().min(1).max(300);
const Zoom = z.number().int().min(0).max(VECTOR_TILE_MAX_ZOOM);

/** How to tile: which columns hold the location, which become feature properties, which zooms. */
export const VectorTileOptions = z.object({
  name: z.string().trim().min(1, 'Name must not be empty').max(500).optional(),
  description: z.string().max(10_000).default(''),
  /** Point columns; default: the detected latitude/longitude roles. */
  latColumn: ColumnName.optional(),
  lngColumn: ColumnName.optional(),
  /** A GeoJSON or WKT text column; default: the detected geometry role (when there are no lat/lng). */
  geometryColumn: ColumnName.optional(),
  /** Columns kept as feature properties; default all but the location columns. */
  columns: z.array(ColumnName).max(500).optional(),
  /** Default 0 and a zoom chosen from the data's density (points) or feature size (lines, polygons). */
  minZoom: Zoom.optional(),
  maxZoom: Zoom.optional(),
  /**
   * Most a tile may weigh, in kilobytes of MVT before gzip (the Data SDK's tile_size_kb); default no limit. A tile
   * past it keeps the features with the lowest row numbers that fit and is counted in `cappedTiles`.
   */
  tileSizeKb: z.number('tileSizeKb must be an integer from 4 to 65536').int('tileSizeKb must be an integer from 4 to 65536').min(4, 'tileSizeKb must be an integer from 4 to 65536').max(65_536, 'tileSizeKb must be an integer from 4 to 65536').optional(),
  /** The MVT layer name; default `features`. */
  layerName: z
    .string()
    .regex(/^[A-Za-z_][\w-]{0,63}$/, 'Layer names are letters, digits, _ and -, starting with a letter or _')
    .optional(),
});
export type VectorTileOptions = z.infer<typeof VectorTileOptions>;

/**
 * How a vector-tile dataset was cut from a dataset: kept in its metadata (`metadata.vectorTileBuild`) so that it can
 * be cut again in place from the source as it is then.
 */
export const VectorTileBuild = VectorTileOptions.omit({ name: true, description: true }).extend({ datasetId: Id });
export type VectorTileBuild = z.infer<typeof VectorTileBuild>;

const zoomOrder = (b: { minZoom?: number; maxZoom?: number }) => b.minZoom === undefined || b.maxZoom === undefined || b.minZoom <= b.maxZoom;
const pointPair = (b: { latColumn?: string; lngColumn?: string }) => !b.latColumn === !b.lngColumn;
const ZOOM_ORDER = { message: 'minZoom must not be above maxZoom', path: ['minZoom'] };
const POINT_PAIR = { message: 'Give latColumn and lngColumn together', path: ['latColumn'] };

/** CAT-113: a vector-tile dataset from a dataset the caller reads. */
export const VectorTileCreate = VectorTileOptions.extend({
  datasetId: Id,
  /**
   * An existing vector-tile dataset the caller may edit (the Data SDK's `target`): cut again in place from the
   * source as it is now, under the same id (maps keep it), serving its current tiles until the new ones are
   * ready. Its name and description stay as they are.
   */
  target: Id.optional(),
})
  .refine(zoomOrder, ZOOM_ORDER)
  .refine(pointPair, POINT_PAIR)
  .refine((b) => b.target === undefined || b.target !== b.datasetId, { message: 'target must be a vector-tile dataset, not the source', path: ['target'] });
export type VectorTileCreate = z.infer<typeof VectorTileCreate>;

/** POST /v1/datasets/{id}/tiles (#50): a table dataset's own tiles, cut in place, owned by the dataset. */
export const DatasetTilesBuild = VectorTileOptions.omit({ name: true, description: true }).refine(zoomOrder, ZOOM_ORDER).refine(pointPair, POINT_PAIR);
export type DatasetTilesBuild = z.infer<typeof DatasetTilesBuild>;

const Scalar = z.union([z.string().max(100_000), z.number(), z.boolean(), z.null()]);
/** DQ-022: a vector-tile dataset from a query: on a data connection the caller reads, or over datasets. */
export const VectorTilingBody = VectorTileOptions.extend({
  query: z.string().trim().min(1, 'Query must not be empty').max(1_000_000),
  connectionId: Id.nullable().optional(),
  parameters: z.record(z.string().regex(/^[A-Za-z_]\w{0,199}$/, 'Parameter names are letters, digits and underscores'), z.union([Scalar, z.array(Scalar).max(10_000)])).optional(),
})
  .refine(zoomOrder, ZOOM_ORDER)
  .refine(pointPair, POINT_PAIR);

/** What a vector-tile dataset's metadata says of its tiles (metadata.vectorTile). */
export const VectorTileInfo = z.object({
  pipelineType: z.enum(VECTOR_TILE_PIPELINE_KINDS),
  format: z.enum(VECTOR_TILE_FORMATS),
  tileFormat: z.literal('mvt'),
  layer: z.string(),
  minZoom: z.number().int(),
  maxZoom: z.number().int(),
  /** [west, south, east, north] in degrees. */
  bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  /** [lng, lat, zoom]. */
  center: z.tuple([z.number(), z.number(), z.number()]),
  geometryType: z.enum(['Point', 'LineString', 'Polygon', 'Mixed']),
  /** Property name -> TileJSON vector_layers field type. */
  fields: z.record(z.string(), z.enum(['Number', 'String', 'Boolean'])),
  featureCount: z.number().int(),
  tileCount: z.number().int(),
  /** Tiles (or blocks of 64) that held more features than the tiler keeps in one (100,000); the rest are left out. */
  cappedTiles: z.number().int(),
  byteSize: z.number().int(),
  /** Relative to the studio's origin. */
  tileUrl: z.string(),
  tileJsonUrl: z.string(),
  /**
   * A table dataset's own tiles (#50): the snapshot they were cut from and the archive they are in (a new key each
   * cut, so no node's tile cache serves an earlier cut). Its data replaced, they are not served (they show rows it
   * no longer has) until they are cut again.
   */
  dataKey: z.string().optional(),
  archiveKey: z.string().optional(),
  /**
   * Low zooms first (#50): set while only zooms minZoom..cutMaxZoom are cut and served (the rest still being cut);
   * deeper tiles answer as where there is no feature, and the TileJSON's maxzoom is this one until the full
   * pyramid (to maxZoom) replaces them. Absent once the tiles are whole.
   */
  cutMaxZoom: z.number().int().optional(),
});
export type VectorTileInfo = z.infer<typeof VectorTileInfo>;

/** TileJSON 3.0.0 of a vector-tile dataset, its tile URLs on the caller's host. */
export const TileJson = z.object({
  tilejson: z.literal('3.0.0'),
  name: z.string(),
  description: z.string(),
  scheme: z.literal('xyz'),
  tiles: z.array(z.string()),
  minzoom: z.number().int(),
  maxzoom: z.number().int(),
  bounds: VectorTileInfo.shape.bounds,
  center: VectorTileInfo.shape.center,
  vector_layers: z.array(z.object({ id: z.string(), fields: VectorTileInfo.shape.fields, minzoom: z.number().int(), maxzoom: z.number().int() })),
  format: z.literal('pbf'),
  geometryType: VectorTileInfo.shape.geometryType,
  featureCount: z.number().int(),
});
export type TileJson = z.infer<typeof TileJson>;

/** Signed links to a vector-tile dataset's TileJSON and tiles, for renderers that cannot send the session. */
export const TileLinks = z.object({ tileJsonUrl: z.string(), tileUrl: z.string(), expiresAt: z.string() });
export type TileLinks = z.infer<typeof TileLinks>;
