import { z } from 'zod';
import {
  AdminPublishedMap,
  FeaturedMap,
  Id,
  PublicationGrant,
  PublishedMap,
  PublishedMapInfo,
  QueryBool,
  StudioError,
  UploadOptions,
  itemOf,
  itemsOf,
  notFound,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { PUBLISH_KINDS } from '../services/publishing';
import { datasetAttrs } from '../services/datasets';
import { ARROW_STREAM } from '../http/media-types';
import { streamData } from '../http/dataset-answers';
import { canReadMap, mapKey, MAP_GRANT_HEADER, MAP_PASSWORD_HEADER, publishedDataset, publishing } from '../http/publication-access';

/**
 * Publishing of maps (catalog §7 Maps, "same pattern" as insights). {x} in POST /publish/{x} is the
 * kind of publication; `map` (the only kind) snapshots the map's saved state and its datasets.
 * A published map is readable without signing in; a password, when set, is asked of callers who
 * cannot read the map itself. Dataset data of a publication streams through its own route, only
 * for the datasets the snapshot names.
 */
const tag = 'maps';
const IdParam = z.object({ id: Id });
const FeaturedParam = z.object({ id: Id });
const PublishBody = z.object({ password: z.string().max(200).nullable().optional() }).strict();
const PasswordBody = z.object({ password: z.string().min(1).max(200) });
const FeaturedBody = z.object({ mapId: Id, title: z.string().max(200).optional(), description: z.string().max(2000).optional(), position: z.number().int().min(0).max(10_000).optional() });
const FeaturedUpdate = FeaturedBody.omit({ mapId: true });
/** The header that carries a publication's password to the dataset route (never the query: logs). */

export const publishingRoutes: RouteDef[] = [
  defineRoute({
    spec: ['ADM-005'],
    method: 'GET',
    url: '/v1/admin/maps/published',
    summary: 'All published maps, for administrators: count (default 50), offset, sortBy views (default) or date',
    tag: 'admin',
    auth: 'admin',
    query: z.object({
      count: z.coerce.number().int().min(1).max(1000).default(50),
      offset: z.coerce.number().int().min(0).default(0),
      sortBy: z.enum(['views', 'date']).default('views'),
    }),
    response: z.object({ items: z.array(AdminPublishedMap) }),
    handler: async (ctx) => ({ items: await publishing(ctx).all(ctx.query) }),
  }),
  defineRoute({
    spec: ['CAT-154'],
    method: 'GET',
    url: '/v1/maps/published',
    summary: "Publications of the caller's maps",
    tag,
    auth: 'user',
    response: itemsOf(PublishedMapInfo),
    handler: async (ctx) => {
      const items = await publishing(ctx).list({ ownerId: requireCaller(ctx).user.id });
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-157'],
    method: 'GET',
    url: '/v1/maps/published/samples',
    summary: 'Publications of sample maps',
    tag,
    auth: 'user',
    response: itemsOf(PublishedMapInfo),
    handler: async (ctx) => {
      const items = await publishing(ctx).list({ samples: true });
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-158'],
    method: 'GET',
    url: '/v1/maps/published/list',
    summary: 'Publication info (no state) of the maps named in maps=id,id,…; maps not published are left out',
    tag,
    auth: 'user',
    query: z.object({ maps: z.string().max(40_000).default('') }),
    response: itemsOf(PublishedMapInfo),
    handler: async (ctx) => {
      const wanted = ctx.query.maps.split(',').map((s) => s.trim()).filter(Boolean);
      const bad = wanted.find((w) => !Id.safeParse(w).success);
      if (bad !== undefined) throw new StudioError(422, 'Invalid query parameters: maps must be map ids separated by commas');
      const items = await publishing(ctx).infos(wanted.slice(0, 500));
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-159'],
    method: 'POST',
    url: '/v1/maps/{id}/publish/resources',
    summary: 'Publish the map with upload options {password, title, description} (the schema insights and reports share): snapshots its saved state and datasets. password: a string sets it, null or empty removes it, absent keeps it; title and description default to the map\'s',
    tag,
    auth: 'user',
    params: IdParam,
    body: z.object({ uploadOptions: UploadOptions.default({}) }).strict(),
    resource: { type: 'map', param: 'id', action: 'share' },
    status: 201,
    response: itemOf(PublishedMapInfo),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { mapId, insightId, ...options } = ctx.body.uploadOptions;
      if (insightId) throw new StudioError(422, 'uploadOptions.insightId names an insight: this publishes a map');
      if (mapId && mapId !== ctx.resource!.id) throw new StudioError(422, 'uploadOptions.mapId names another map than the path');
      const item = await publishing(ctx).publish(ctx.resource!, 'map', caller.user.id, options);
      await ctx.services.audit.record(caller, 'map.publish', 'map', ctx.resource!.id, { kind: 'map', passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-160'],
    method: 'POST',
    url: '/v1/maps/{id}/publish/{x}',
    summary: `Publish the map: x=${PUBLISH_KINDS.join('|')} snapshots its saved state and datasets. Body {password?}: a string sets it, null removes it, absent keeps it`,
    tag,
    auth: 'user',
    params: z.object({ id: Id, x: z.string().max(50) }),
    body: PublishBody.optional(),
    resource: { type: 'map', param: 'id', action: 'share' },
    status: 201,
    response: itemOf(PublishedMapInfo),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const item = await publishing(ctx).publish(ctx.resource!, ctx.params.x, caller.user.id, { password: ctx.body?.password });
      await ctx.services.audit.record(caller, 'map.publish', 'map', ctx.resource!.id, { kind: ctx.params.x, passwordProtected: item.passwordProtected });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-161'],
    method: 'DELETE',
    url: '/v1/maps/{id}/unpublish',
    summary: 'Withdraw the publication (and its featured entry)',
    tag,
    auth: 'user',
    params: IdParam,
    resource: { type: 'map', param: 'id', action: 'share' },
    status: 204,
    handler: async (ctx) => {
      if (!(await publishing(ctx).unpublish(ctx.resource!.id))) throw notFound('Published map not found');
      await ctx.services.audit.record(ctx.caller, 'map.unpublish', 'map', ctx.resource!.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['CAT-155'],
    method: 'GET',
    url: '/v1/maps/{id}/published-map',
    embeddable: true,
    summary: `The published map, without signing in. infoOnly=true: the info without state (never asks the password). A protected map answers 401 with details passwordRequired unless the caller can read the map or sends a grant in the ${MAP_GRANT_HEADER} header`,
    tag,
    auth: 'public',
    params: IdParam,
    query: z.object({ infoOnly: QueryBool.optional(), isAdmin: QueryBool.optional() }),
    // infoOnly=true: the info without the state.
    response: itemOf(z.union([PublishedMap, PublishedMapInfo])),
    handler: async (ctx) => {
      const svc = publishing(ctx);
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
  defineRoute({
    spec: ['CAT-156'],
    method: 'POST',
    url: '/v1/maps/{id}/published-map/password',
    embeddable: true,
    summary: `The published map when the password matches (403 otherwise), and a grant {token, expiresAt} that later calls send in the ${MAP_GRANT_HEADER} header instead of the password. Wrong passwords back off per address (429 with Retry-After)`,
    tag,
    auth: 'public',
    params: IdParam,
    body: PasswordBody,
    rateLimit: 'publishedPassword',
    response: itemOf(PublishedMap).extend({ grant: PublicationGrant.nullable() }),
    handler: async (ctx) => {
      const { map, grant } = await publishing(ctx).unlock(ctx.params.id, ctx.body.password, ctx.req.ip);
      return { item: map, grant };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/maps/{id}/published-map/datasets/{datasetId}',
    embeddable: true,
    summary: `Data of one dataset of a published map as an Arrow IPC stream, without signing in; for a protected map, the grant in the ${MAP_GRANT_HEADER} header (or the password in ${MAP_PASSWORD_HEADER})`,
    tag,
    auth: 'public',
    params: z.object({ id: Id, datasetId: Id }),
    produces: [ARROW_STREAM],
    handler: async (ctx) => {
      const row = await publishedDataset(ctx as RouteContext<unknown, unknown, unknown>, ctx.params.id, ctx.params.datasetId);
      const a = datasetAttrs(row);
      if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset is not ready (status: ${a.status})`);
      // As the dataset's own data route: from its Arrow copy, written once after ingestion (no DuckDB per viewer).
      return streamData(ctx as RouteContext<unknown, unknown, unknown>, row, 'arrow', ARROW_STREAM);
    },
  }),
  defineRoute({
    spec: ['CAT-162'],
    method: 'GET',
    url: '/v1/maps/published/featured',
    summary: 'Featured maps, the highlighted one first',
    tag,
    auth: 'user',
    response: itemsOf(FeaturedMap.extend({ map: PublishedMapInfo })),
    handler: async (ctx) => {
      const items = await publishing(ctx).featured();
      return { items, total: items.length };
    },
  }),
  defineRoute({
    spec: ['CAT-163'],
    method: 'POST',
    url: '/v1/maps/published/featured',
    summary: 'Feature a published map (administrators)',
    tag,
    auth: 'admin',
    body: FeaturedBody,
    status: 201,
    response: itemOf(FeaturedMap),
    handler: async (ctx) => {
      const item = await publishing(ctx).feature(ctx.body);
      await ctx.services.audit.record(ctx.caller, 'map.feature', 'map', ctx.body.mapId, { featuredId: item.id });
      return { item };
    },
  }),
  defineRoute({
    spec: ['CAT-164'],
    method: 'PUT',
    url: '/v1/maps/published/featured/{id}',
    summary: 'Update a featured map: title, description, position (administrators)',
    tag,
    auth: 'admin',
    params: FeaturedParam,
    body: FeaturedUpdate,
    response: itemOf(FeaturedMap),
    handler: async (ctx) => ({ item: await publishing(ctx).updateFeatured(ctx.params.id, ctx.body) }),
  }),
  defineRoute({
    spec: ['CAT-165'],
    method: 'DELETE',
    url: '/v1/maps/published/featured/{id}',
    summary: 'Stop featuring a map (administrators)',
    tag,
    auth: 'admin',
    params: FeaturedParam,
    status: 204,
    handler: async (ctx) => {
      await publishing(ctx).unfeature(ctx.params.id);
      return undefined;
    },
  }),
  defineRoute({
    spec: ['CAT-166'],
    method: 'PUT',
    url: '/v1/maps/published/featured/{id}/highlight',
    summary: 'Highlight one featured map (the others lose the highlight; administrators)',
    tag,
    auth: 'admin',
    params: FeaturedParam,
    response: itemOf(FeaturedMap),
    handler: async (ctx) => ({ item: await publishing(ctx).highlight(ctx.params.id) }),
  }),
];
