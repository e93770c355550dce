import { z } from 'zod';
import { Id, IsoDate } from './common';

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
