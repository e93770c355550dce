import { z } from 'zod';
import { FEATURE_FLAGS, MAX_QUOTA, itemOf, systemCalls } from '@studio/schema';
import { defineRoute } from '../http/route';
import { readiness } from '../services/readiness';

/** Tiers of this self-hosted studio: one, with the quota ceiling of the spec. */
const TIERS = [
  {
    id: 'self-hosted',
    name: 'Self-hosted',
    description: 'Every capability of the studio, on your own infrastructure.',
    maxQuota: MAX_QUOTA,
    features: [...FEATURE_FLAGS],
  },
];

const ReadinessCheck = z.enum(['ok', 'unreachable']);

export const systemRoutes = [
  defineRoute({
    spec: ['CAT-189'],
    method: 'GET',
    url: '/v1/health',
    summary: 'Liveness and catalog reachability',
    tag: 'system',
    auth: 'public',
    response: itemOf(z.object({ status: z.literal('ok'), store: z.string(), version: z.string() })),
    handler: async ({ services }) => {
      await services.catalog.ping();
      return { item: { status: 'ok', store: services.config.databaseUrl ? 'postgres' : 'pglite', version: '0.1.0' } };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/ready',
    summary: 'Readiness for traffic: the catalog, the data engine and Redis (when configured) answer; 503 naming what does not',
    tag: 'system',
    auth: 'public',
    response: itemOf(
      z.object({
        status: z.enum(['ready', 'not ready']),
        checks: z.object({ catalog: ReadinessCheck, engine: ReadinessCheck, redis: ReadinessCheck.or(z.literal('not configured')) }),
      }),
    ),
    handler: async ({ services, reply }) => {
      const checks = await readiness(services);
      const ready = Object.values(checks).every((c) => c !== 'unreachable');
      if (!ready) reply.code(503);
      return { item: { status: ready ? 'ready' : 'not ready', checks } };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/metrics',
    summary: 'Metrics for Prometheus (text exposition format): requests and latencies by route, work waiting, DuckDB memory, the process; administrators only',
    tag: 'system',
    auth: 'admin',
    produces: ['text/plain'],
    handler: async ({ services, reply }) => reply.type(services.metrics.contentType).send(await services.metrics.text()),
  }),
  defineRoute({
    spec: ['CAT-188'],
    method: 'GET',
    url: '/v1/tiers',
    summary: 'Service tiers',
    tag: 'system',
    auth: 'public',
    response: z.object({
      items: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), maxQuota: z.number(), features: z.array(z.string()) })),
    }),
    handler: async () => ({ items: TIERS }),
  }),
  defineRoute(systemCalls.staticConfigs, {
    handler: async ({ services }) => ({
      item: {
        maxQuota: MAX_QUOTA,
        defaultMapView: { latitude: 37.7749, longitude: -122.4194, zoom: 9 },
        imageTypes: ['png', 'jpeg', 'webp'],
        uploadContentTypes: ['text/csv', 'text/tab-separated-values', 'application/json', 'application/geo+json', 'application/vnd.apache.parquet'],
        defaultCacheMaxAgeSeconds: 2678400,
        h3ResolutionBounds: [0, 15] as [number, number],
        mapTileThreshold: services.config.mapTileThreshold,
      },
    }),
  }),
];
