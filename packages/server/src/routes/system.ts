import { z } from 'zod';
import { FEATURE_FLAGS, MAX_QUOTA, itemOf } from '@studio/schema';
import { defineRoute } from '../http/route';
import { ping } from '../store/db';

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
      await ping(services.db);
      return { item: { status: 'ok', store: services.config.databaseUrl ? 'postgres' : 'pglite', version: '0.1.0' } };
    },
  }),
  defineRoute({
    spec: ['CAT-188'],
    method: 'GET',
    url: '/v1/tiers',
    summary: 'Service tiers',
    tag: 'system',
    auth: 'public',
    handler: async () => ({ items: TIERS }),
  }),
  defineRoute({
    spec: ['CAT-187'],
    method: 'GET',
    url: '/v1/static-configs',
    summary: 'Static configuration the web app needs at start',
    tag: 'system',
    auth: 'user',
    handler: async () => ({
      item: {
        maxQuota: MAX_QUOTA,
        defaultMapView: { latitude: 37.7749, longitude: -122.4194, zoom: 9 },
        imageTypes: ['png', 'jpeg', 'webp'],
        uploadContentTypes: ['text/csv', 'text/tab-separated-values', 'application/json', 'application/geo+json', 'application/vnd.apache.parquet'],
        defaultCacheMaxAgeSeconds: 2678400,
        h3ResolutionBounds: [0, 15],
      },
    }),
  }),
];
