import { Id, StudioError, mapPublishingCalls, notFound } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { datasetAttrs } from '../services/datasets';
import { ARROW_STREAM } from '../http/media-types';
import { streamData } from '../http/dataset-answers';
import { canReadMap, mapKey, publishedDataset } from '../http/publication-access';

/**
 * Publishing of maps (catalog §7 Maps, "same pattern" as insights). {x} in POST /publish/{x} is the
 * kind of publication; `map` (the only kind) snapshots the map's saved state and its datasets.
 * A published map is readable without signing in; a password, when set, is asked of callers who
 * cannot read the map itself. Dataset data of a publication streams through its own route, only
 * for the datasets the snapshot names.
 */
export const publishingRoutes: RouteDef[] = [
  defineRoute(mapPublishingCalls.adminPublished, {
    handler: async (ctx) => ({ items: await ctx.services.publishing.all(ctx.query) }),
  }),
  defineRoute(mapPublishingCalls.published, {
    handler: async (ctx) => {
      const items = await ctx.services.publishing.list({ ownerId: requireCaller(ctx).user.id });
      return { items, total: items.length };
    },
  }),
  defineRoute(mapPublishingCalls.publishedSamples, {
    handler: async (ctx) => {
      const items = await ctx.services.publishing.list({ samples: true });
      return { items, total: items.length };
    },
  }),
  defineRoute(mapPublishingCalls.publishedList, {
    handler: async (ctx) => {
      const wanted = ctx.query.maps.split(',').map((s) => s.trim()).filter(Boolean);
      const bad = wanted.find((w) => !Id.safeParse(w).success);
      if (bad !== undefined) throw new StudioError(422, 'Invalid query parameters: maps must be map ids separated by commas');
      const items = await ctx.services.publishing.infos(wanted.slice(0, 500));
      return { items, total: items.length };
    },
  }),
  defineRoute(mapPublishingCalls.publishWith, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { mapId, insightId, ...options } = ctx.body.uploadOptions;
      if (insightId) throw new StudioError(422, 'uploadOptions.insightId names an insight: this publishes a map');
      if (mapId && mapId !== ctx.resource!.id) throw new StudioError(422, 'uploadOptions.mapId names another map than the path');
      const item = await ctx.services.publishing.publish(ctx.resource!, 'map', caller.user.id, options);
      await ctx.services.audit.record(caller, 'map.publish', 'map', ctx.resource!.id, { kind: 'map', passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute(mapPublishingCalls.publish, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await ctx.services.publishing.publish(ctx.resource!, ctx.params.x, caller.user.id, { password: ctx.body?.password });
      await ctx.services.audit.record(caller, 'map.publish', 'map', ctx.resource!.id, { kind: ctx.params.x, passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute(mapPublishingCalls.unpublish, {
    handler: async (ctx) => {
      if (!(await ctx.services.publishing.unpublish(ctx.resource!.id))) throw notFound('Published map not found');
      await ctx.services.audit.record(ctx.caller, 'map.unpublish', 'map', ctx.resource!.id);
      return undefined;
    },
  }),
  defineRoute(mapPublishingCalls.publishedMap, {
    embeddable: true,
    handler: async (ctx) => {
      const svc = ctx.services.publishing;
      if (ctx.query.infoOnly) {
        const item = await svc.info(ctx.params.id);
        if (!item) throw notFound('Published map not found');
        return { item };
      }
      const generic = ctx as RouteContext<unknown, unknown, unknown>;
      const canBypass = await canReadMap(generic, ctx.params.id);
      return { item: await svc.open(ctx.params.id, mapKey(generic, canBypass)) };
    },
  }),
  defineRoute(mapPublishingCalls.unlockPublishedMap, {
    embeddable: true,
    rateLimit: 'publishedPassword',
    handler: async (ctx) => {
      const { map, grant } = await ctx.services.publishing.unlock(ctx.params.id, ctx.body.password, ctx.req.ip);
      return { item: map, grant };
    },
  }),
  defineRoute(mapPublishingCalls.publishedDataset, {
    embeddable: true,
    handler: async (ctx) => {
      const row = await publishedDataset(ctx as RouteContext<unknown, unknown, unknown>, ctx.params.id, ctx.params.datasetId);
      const a = datasetAttrs(row);
      if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset is not ready (status: ${a.status})`);
      // As the dataset's own data route: from its Arrow copy, written once after ingestion (no DuckDB per viewer).
      return streamData(ctx as RouteContext<unknown, unknown, unknown>, row, 'arrow', ARROW_STREAM);
    },
  }),
  defineRoute(mapPublishingCalls.featured, {
    handler: async (ctx) => {
      const items = await ctx.services.publishing.featured();
      return { items, total: items.length };
    },
  }),
  defineRoute(mapPublishingCalls.feature, {
    handler: async (ctx) => {
      const item = await ctx.services.publishing.feature(ctx.body);
      await ctx.services.audit.record(ctx.caller, 'map.feature', 'map', ctx.body.mapId, { featuredId: item.id });
      return { item };
    },
  }),
  defineRoute(mapPublishingCalls.updateFeatured, {
    handler: async (ctx) => ({ item: await ctx.services.publishing.updateFeatured(ctx.params.id, ctx.body) }),
  }),
  defineRoute(mapPublishingCalls.unfeature, {
    handler: async (ctx) => {
      await ctx.services.publishing.unfeature(ctx.params.id);
      return undefined;
    },
  }),
  defineRoute(mapPublishingCalls.highlight, {
    handler: async (ctx) => ({ item: await ctx.services.publishing.highlight(ctx.params.id) }),
  }),
];
