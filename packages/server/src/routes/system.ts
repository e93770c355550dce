import { FEATURE_FLAGS, MAX_QUOTA, systemCalls, type Tier } from '@studio/schema';
import { defineRoute } from '../http/route';
import { readiness } from '../services/readiness';

/** Tiers of this self-hosted studio: one, with the quota ceiling of the spec. */
const TIERS: Tier[] = [
  {
    id: 'self-hosted',
    name: 'Self-hosted',
    description: 'Every capability of the studio, on your own infrastructure.',
    maxQuota: MAX_QUOTA,
    features: [...FEATURE_FLAGS],
  },
];

export const systemRoutes = [
  defineRoute(systemCalls.health, {
    handler: async ({ services }) => {
      await services.catalog.ping();
      return { item: { status: 'ok' as const, store: services.config.databaseUrl ? 'postgres' : 'pglite', version: '0.1.0' } };
    },
  }),
  defineRoute(systemCalls.ready, {
    handler: async ({ services, reply }) => {
      const checks = await readiness(services);
      const ready = Object.values(checks).every((c) => c !== 'unreachable');
      if (!ready) reply.code(503);
      return { item: { status: ready ? ('ready' as const) : ('not ready' as const), checks } };
    },
  }),
  defineRoute(systemCalls.metrics, {
    handler: async ({ services, reply }) => reply.type(services.metrics.contentType).send(await services.metrics.text()),
  }),
  defineRoute(systemCalls.tiers, {
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
