import { z } from 'zod';
import { Id, QueryBool, itemOf, itemsOf } from '../common';
import { AdminPublishedMap, FeaturedMap, MAP_GRANT_HEADER, MAP_PASSWORD_HEADER, PUBLISH_KINDS, PublicationGrant, PublishedMap, PublishedMapInfo } from '../publishing';
import { UploadOptions } from '../dashboards';
import { contract } from './contract';

const tag = 'maps';
const IdParam = z.object({ id: Id });
const PublishBody = z.object({ password: z.string().max(200).nullable().optional() }).strict();
const FeaturedBody = z.object({ mapId: Id, title: z.string().max(200).optional(), description: z.string().max(2000).optional(), position: z.number().int().min(0).max(10_000).optional() });
const mapShare = { type: 'map', param: 'id', action: 'share' } as const;

/**
 * Publishing of maps (catalog §7 Maps, "same pattern" as insights). {x} in POST /publish/{x} is the kind of
 * publication; `map` (the only kind) snapshots the map's saved state and its datasets. A published map is
 * readable without signing in; a password, when set, is asked of callers who cannot read the map itself.
 */
export const mapPublishingCalls = {
  adminPublished: contract({
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
  }),
  published: contract({ spec: ['CAT-154'], method: 'GET', url: '/v1/maps/published', summary: "Publications of the caller's maps", tag, auth: 'user', response: itemsOf(PublishedMapInfo) }),
  publishedSamples: contract({ spec: ['CAT-157'], method: 'GET', url: '/v1/maps/published/samples', summary: 'Publications of sample maps', tag, auth: 'user', response: itemsOf(PublishedMapInfo) }),
  publishedList: contract({
    spec: ['CAT-158'],
    method: 'GET',
    url: '/v1/maps/published/list',
    summary: 'Publication info (no state) of the maps named in maps=id,id,…; maps not published are left out',
    tag,
    auth: 'user',
    query: z.object({ maps: z.string().max(40_000).default('') }),
    response: itemsOf(PublishedMapInfo),
  }),
  publishWith: contract({
    spec: ['CAT-159'],
    method: 'POST',
    url: '/v1/maps/{id}/publish/resources',
    summary: 'Publish the map with upload options {password, title, description} (the schema insights and reports share): snapshots its saved state and datasets. password: a string sets it, null or empty removes it, absent keeps it; title and description default to the map\'s',
    tag,
    auth: 'user',
    params: IdParam,
    body: z.object({ uploadOptions: UploadOptions.default({}) }).strict(),
    resource: mapShare,
    status: 201,
    response: itemOf(PublishedMapInfo),
  }),
  publish: contract({
    spec: ['CAT-160'],
    method: 'POST',
    url: '/v1/maps/{id}/publish/{x}',
    summary: `Publish the map: x=${PUBLISH_KINDS.join('|')} snapshots its saved state and datasets. Body {password?}: a string sets it, null removes it, absent keeps it`,
    tag,
    auth: 'user',
    params: z.object({ id: Id, x: z.string().max(50) }),
    body: PublishBody.optional(),
    resource: mapShare,
    status: 201,
    response: itemOf(PublishedMapInfo),
  }),
  unpublish: contract({
    spec: ['CAT-161'],
    method: 'DELETE',
    url: '/v1/maps/{id}/unpublish',
    summary: 'Withdraw the publication (and its featured entry)',
    tag,
    auth: 'user',
    params: IdParam,
    resource: mapShare,
    status: 204,
  }),
  publishedMap: contract({
    spec: ['CAT-155'],
    method: 'GET',
    url: '/v1/maps/{id}/published-map',
    summary: `The published map, without signing in. infoOnly=true: the info without state (never asks the password). A protected map answers 401 with details passwordRequired unless the caller can read the map or sends a grant in the ${MAP_GRANT_HEADER} header`,
    tag,
    auth: 'public',
    params: IdParam,
    query: z.object({ infoOnly: QueryBool.optional(), isAdmin: QueryBool.optional() }),
    // infoOnly=true: the info without the state.
    response: itemOf(z.union([PublishedMap, PublishedMapInfo])),
  }),
  unlockPublishedMap: contract({
    spec: ['CAT-156'],
    method: 'POST',
    url: '/v1/maps/{id}/published-map/password',
    summary: `The published map when the password matches (403 otherwise), and a grant {token, expiresAt} that later calls send in the ${MAP_GRANT_HEADER} header instead of the password. Wrong passwords back off per address (429 with Retry-After)`,
    tag,
    auth: 'public',
    params: IdParam,
    body: z.object({ password: z.string().min(1).max(200) }),
    response: itemOf(PublishedMap).extend({ grant: PublicationGrant.nullable() }),
  }),
  publishedDataset: contract({
    method: 'GET',
    url: '/v1/maps/{id}/published-map/datasets/{datasetId}',
    summary: `Data of one dataset of a published map as an Arrow IPC stream, without signing in; for a protected map, the grant in the ${MAP_GRANT_HEADER} header (or the password in ${MAP_PASSWORD_HEADER})`,
    tag,
    auth: 'public',
    params: z.object({ id: Id, datasetId: Id }),
    produces: ['application/vnd.apache.arrow.stream'],
  }),
  featured: contract({
    spec: ['CAT-162'],
    method: 'GET',
    url: '/v1/maps/published/featured',
    summary: 'Featured maps, the highlighted one first',
    tag,
    auth: 'user',
    response: itemsOf(FeaturedMap.extend({ map: PublishedMapInfo })),
  }),
  feature: contract({ spec: ['CAT-163'], method: 'POST', url: '/v1/maps/published/featured', summary: 'Feature a published map (administrators)', tag, auth: 'admin', body: FeaturedBody, status: 201, response: itemOf(FeaturedMap) }),
  updateFeatured: contract({
    spec: ['CAT-164'],
    method: 'PUT',
    url: '/v1/maps/published/featured/{id}',
    summary: 'Update a featured map: title, description, position (administrators)',
    tag,
    auth: 'admin',
    params: IdParam,
    body: FeaturedBody.omit({ mapId: true }),
    response: itemOf(FeaturedMap),
  }),
  unfeature: contract({ spec: ['CAT-165'], method: 'DELETE', url: '/v1/maps/published/featured/{id}', summary: 'Stop featuring a map (administrators)', tag, auth: 'admin', params: IdParam, status: 204 }),
  highlight: contract({
    spec: ['CAT-166'],
    method: 'PUT',
    url: '/v1/maps/published/featured/{id}/highlight',
    summary: 'Highlight one featured map (the others lose the highlight; administrators)',
    tag,
    auth: 'admin',
    params: IdParam,
    response: itemOf(FeaturedMap),
  }),
};
