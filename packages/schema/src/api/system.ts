import { z } from 'zod';
import { itemOf } from '../common';
import { contract } from './contract';

/**
 * When the map draws a table dataset from its own vector tiles instead of downloading all its rows (#50): past
 * either figure. An installation's setting (STUDIO_MAP_TILE_ROWS, STUDIO_MAP_TILE_BYTES), printed in the layer panel.
 */
export const MapTileThreshold = z.object({
  /** Rows past which a dataset is drawn from tiles. */
  rows: z.number().int().positive(),
  /** Bytes of stored Parquet past which a dataset is drawn from tiles. */
  bytes: z.number().positive(),
});
export type MapTileThreshold = z.infer<typeof MapTileThreshold>;

/** The defaults: 2 million rows or 250 MB of stored Parquet. */
export const DEFAULT_MAP_TILE_THRESHOLD: MapTileThreshold = { rows: 2_000_000, bytes: 250 * 2 ** 20 };

export const StaticConfigs = z.object({
  maxQuota: z.number(),
  defaultMapView: z.object({ latitude: z.number(), longitude: z.number(), zoom: z.number() }),
  imageTypes: z.array(z.string()),
  uploadContentTypes: z.array(z.string()),
  defaultCacheMaxAgeSeconds: z.number(),
  h3ResolutionBounds: z.tuple([z.number(), z.number()]),
  mapTileThreshold: MapTileThreshold,
});
export type StaticConfigs = z.infer<typeof StaticConfigs>;

/** Facts of this installation the web app reads at start. */
export const systemCalls = {
  staticConfigs: contract({
    spec: ['CAT-187'],
    method: 'GET',
    url: '/v1/static-configs',
    summary: "Static configuration the web app needs at start, with this installation's settings it shows (the map's tile threshold)",
    tag: 'system',
    auth: 'user',
    response: itemOf(StaticConfigs),
  }),
};
