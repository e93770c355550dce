import { z } from 'zod';
import { Id, IsoDate } from './common';
import { HexTileCreate, TILE_INTERVALS, type TileInterval } from './tilesets';
import { VectorTileCreate } from './vector-tiles';

/**
 * The Studio Data SDK's API (the Python `unfolded.data_sdk` / `foursquare.data_sdk`), served under /sdk by
 * a thin adapter over the studio's own services. Its shapes are the SDK's models (`models.py`): records
 * bare rather than in `{item}`, camel-case fields, the dataset types and media types it knows.
 */

/** The dataset types the SDK's `DatasetType` enum knows; the studio's others are mapped or left out (sdk-wire.ts). */
export const SDK_DATASET_TYPES = ['managed', 'externally-hosted', 'vector-tile', 'raster-tile', 'hex-tile', 'sql'] as const;
export const SdkDatasetType = z.enum(SDK_DATASET_TYPES);

/** The media types the SDK uploads and downloads (its `MediaType` enum), exactly as it compares them. */
export const SDK_MEDIA_TYPES = { csv: 'text/csv', geojson: 'application/geo+json', json: 'application/json' } as const;

export const SdkDatasetMetadata = z.object({
  contentType: z.string().nullable(),
  size: z.number().int().nullable(),
  source: z.string().nullable(),
  tilesetDataUrl: z.string().nullable(),
  tilesetMetadataUrl: z.string().nullable(),
  imageUrl: z.string().nullable(),
  metadataUrl: z.string().nullable(),
  dataStatus: z.string().nullable(),
});

export const SdkDataset = z.object({
  id: Id,
  name: z.string(),
  type: SdkDatasetType,
  createdAt: IsoDate,
  updatedAt: IsoDate,
  description: z.string().nullable(),
  /** True once the data is ingested and readable; false while an upload is on its way or after it failed. */
  isValid: z.boolean(),
  metadata: SdkDatasetMetadata,
});
export type SdkDataset = z.infer<typeof SdkDataset>;

/** A map's saved state as the SDK carries it: `data` is the builder's saved state, kept as given. */
export const SdkMapState = z.object({ id: Id, data: z.record(z.string(), z.unknown()) });

export const SdkMap = z.object({
  id: Id,
  name: z.string(),
  description: z.string().nullable(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  /** Only on a single map (get, create, update): lists leave out the state and the datasets, as the SDK documents. */
  latestState: SdkMapState.nullable().optional(),
  datasets: z.array(SdkDataset).optional(),
});
export type SdkMap = z.infer<typeof SdkMap>;

/** The body of create_map and update_map (`MapUpdateParams`): the state's id, when sent, is not kept. */
export const SdkMapWrite = z.object({
  name: z.string().trim().min(1, 'Name must not be empty').max(500).optional(),
  description: z.string().max(10_000).optional(),
  latestState: z.object({ id: Id.optional(), data: z.record(z.string(), z.unknown()) }).optional(),
  datasets: z.array(Id).max(1024).optional(),
});
export type SdkMapWrite = z.infer<typeof SdkMapWrite>;

/** The SDK's token refresh (an OAuth 2 refresh-token grant, JSON body). */
export const SdkTokenRequest = z.object({
  grant_type: z.literal('refresh_token', { error: 'must be refresh_token' }),
  client_id: z.string().max(200).optional(),
  refresh_token: z.string().min(1, 'refresh_token must not be empty').max(500),
});

export const SdkTokenAnswer = z.object({
  /** A JWT signed by the studio: `exp` (read by the SDK to refresh in time), `jti` (the key, checked on every call). */
  access_token: z.string(),
  /** The same refresh token: it stays valid until its key is revoked. */
  refresh_token: z.string(),
  expires_in: z.number().int(),
  token_type: z.literal('Bearer'),
  scope: z.string(),
});
export type SdkTokenAnswer = z.infer<typeof SdkTokenAnswer>;

/** The SDK's `TimeInterval` names (generate_hextile's time_intervals) and the studio's step codes; its codes pass too. */
export const SDK_TIME_INTERVALS: Record<string, TileInterval> = { YEAR: 'Y', MONTH: 'M', DAY: 'D', HOUR: 'H', MINUTE: 'T' };

const sdkInterval = z.string().max(20).transform((v, c) => {
  const code = SDK_TIME_INTERVALS[v.toUpperCase()] ?? ((TILE_INTERVALS as readonly string[]).includes(v) ? (v as TileInterval) : undefined);
  if (code) return code;
  c.addIssue({ code: 'custom', message: `${v} is not a time step tiles are sliced by (YEAR, MONTH, DAY, HOUR or MINUTE)` });
  return z.NEVER;
});
const sdkColumn = z.string().max(300).nullish();

/** One output column as the SDK sends it (`HexTileOutputColumnConfig`); `dtype` is the studio's own choice (DuckDB's type of the aggregate). */
const SdkHexTileOutputColumn = z.object({
  sourceColumn: sdkColumn,
  targetColumn: z.string().max(300),
  aggMethod: z.string().max(20).nullish(),
  dtype: z.string().max(50).nullish(),
});

/**
 * generate_hextile's body (`HexTileConfig`, sent with exclude_none and its aliases), read as POST /v1/datasets/hextile:
 * targetResOffset is resolutionOffset; an output column without aggMethod sums; no output columns counts the rows
 * of each cell. tileMode, positionalIndexes and jobSize choose among the SDK service's own build modes and are
 * not read (the studio has one).
 */
export const SdkHexTileConfig = z
  .object({
    source: Id,
    target: Id.nullish(),
    sourceHexColumn: sdkColumn,
    sourceLatColumn: sdkColumn,
    sourceLngColumn: sdkColumn,
    sourceTimeColumn: sdkColumn,
    timeIntervals: z.array(sdkInterval).max(10).nullish(),
    targetResOffset: z.number().int().nullish(),
    finestResolution: z.number().int().nullish(),
    outputColumns: z.array(SdkHexTileOutputColumn).max(50).nullish(),
    tileMode: z.string().max(50).nullish(),
    positionalIndexes: z.boolean().nullish(),
    jobSize: z.string().max(50).nullish(),
  })
  .transform((b) => ({
    source: b.source,
    target: b.target ?? undefined,
    sourceHexColumn: b.sourceHexColumn ?? undefined,
    sourceLatColumn: b.sourceLatColumn ?? undefined,
    sourceLngColumn: b.sourceLngColumn ?? undefined,
    sourceTimeColumn: b.sourceTimeColumn ?? undefined,
    timeIntervals: b.timeIntervals ?? [],
    resolutionOffset: b.targetResOffset ?? undefined,
    finestResolution: b.finestResolution ?? undefined,
    outputColumns: b.outputColumns?.length
      ? b.outputColumns.map((c) => ({ sourceColumn: c.sourceColumn ?? undefined, targetColumn: c.targetColumn, aggMethod: (c.aggMethod ?? 'sum').toLowerCase() }))
      : [{ targetColumn: 'count', aggMethod: 'count' }],
  }) as z.input<typeof HexTileCreate>)
  .pipe(HexTileCreate);

/**
 * generate_vectortile's body (`VectorTileConfig`), read as POST /v1/datasets/vectortile: attributes are the
 * properties kept (excludeAllAttributes keeps none), tileSizeKb the most a tile may weigh.
 */
export const SdkVectorTileConfig = z
  .object({
    source: Id,
    target: Id.nullish(),
    sourceLatColumn: sdkColumn,
    sourceLngColumn: sdkColumn,
    attributes: z.array(z.string().max(300)).max(500).nullish(),
    excludeAllAttributes: z.boolean().nullish(),
    tileSizeKb: z.number().nullish(),
  })
  .transform((b) => ({
    datasetId: b.source,
    target: b.target ?? undefined,
    latColumn: b.sourceLatColumn ?? undefined,
    lngColumn: b.sourceLngColumn ?? undefined,
    columns: b.excludeAllAttributes ? [] : (b.attributes ?? undefined),
    tileSizeKb: b.tileSizeKb ?? undefined,
  }) as z.input<typeof VectorTileCreate>)
  .pipe(VectorTileCreate);

