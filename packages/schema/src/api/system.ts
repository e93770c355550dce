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

/** A reachability check of /v1/ready: a part answers, or does not. */
const ReadinessCheck = z.enum(['ok', 'unreachable']);

/** Whether this node takes traffic: ready when no part it needs is unreachable (Redis only when configured). */
export const Readiness = z.object({
  status: z.enum(['ready', 'not ready']),
  checks: z.object({ catalog: ReadinessCheck, engine: ReadinessCheck, redis: ReadinessCheck.or(z.literal('not configured')) }),
});
export type Readiness = z.infer<typeof Readiness>;

/** A service tier: what an installation of it may do. */
export const Tier = z.object({ id: z.string(), name: z.string(), description: z.string(), maxQuota: z.number(), features: z.array(z.string()) });
export type Tier = z.infer<typeof Tier>;

/** Facts of this installation: whether it is up and ready, its metrics, its tiers, what the web app reads at start. */
export const systemCalls = {
  health: contract({
    spec: ['CAT-189'],
    method: 'GET',
    url: '/v1/health',
    summary: 'Liveness and catalog reachability',
    tag: 'system',
    auth: 'public',
    response: itemOf(z.object({ status: z.literal('ok'), store: z.string(), version: z.string() })),
  }),
  ready: contract({
    method: 'GET',
    url: '/v1/ready',
    summary: 'Readiness for traffic: the catalog, the data engine and Redis (when configured) answer; 503 naming what does not',
    tag: 'system',
    auth: 'public',
    response: itemOf(Readiness),
  }),
  metrics: contract({
    method: 'GET',
    url: '/metrics',
    summary: 'Metrics for Prometheus (text exposition format): requests and latencies by route, work waiting, DuckDB memory, the process; administrators only',
    tag: 'system',
    auth: 'admin',
    produces: ['text/plain'],
  }),
  tiers: contract({
    spec: ['CAT-188'],
    method: 'GET',
    url: '/v1/tiers',
    summary: 'Service tiers',
    tag: 'system',
    auth: 'public',
    response: z.object({ items: z.array(Tier) }),
  }),
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
