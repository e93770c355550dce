import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import {
  Id,
  QueryBool,
  StudioError,
  TileJson,
  TileLinks,
  VectorTileCreate,
  VectorTilingBody,
  DatasetTilesBuild,
  badInput,
  notFound,
  Job,
  type VectorTileOptions,
  Dataset,
  itemOf,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { datasetAttrs } from '../services/datasets';
import { LINK_BASE, TILE_LINK_TTL_MS, checkTile, linkQuery, signTileLink, verifyTileLink } from '@studio/tiles';
import { clientGone, engineError } from '../http/streams';
import { REVALIDATE, notModified, publicImmutable, versionOf } from '../http/tile-headers';
import { MAP_GRANT_HEADER, MAP_PASSWORD_HEADER, publishedDataset } from '../http/publication-access';
import type { ResourceRow } from '../services/records';
import { datasetTiles, vectorTiles, type TileSource } from '../services/vector-tiles';
import { tileDataset } from '../http/dataset-tiling';
import { ownTilesOf } from '../services/dataset-tiles';

/**
 * Vector-tile datasets (catalog §7): POST /v1/datasets/vectortile tiles a dataset the caller reads,
 * PUT /v1/data-queries/vector-tiling tiles the result of a query (on a data connection the caller reads,
 * or over datasets on the embedded engine). Tiles and their TileJSON are served from the studio's own
 * host to whoever reads the dataset.
 */

type Ctx = RouteContext<unknown, unknown, unknown>;
const TAG = 'datasets';
export const MVT_CONTENT_TYPE = 'application/x-protobuf';

/** Coordinates are checked in the handler, after the permission check, so a stranger learns nothing from a 422. */
const Coordinate = z.string().max(64);
const TileParams = z.object({ id: Id, z: Coordinate, x: Coordinate, y: Coordinate });
/** `v`: the tileset version a TileJSON handed the URL out with (see http/tile-headers.ts). */
const Version = z.string().max(64).optional();
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });
const TileQuery = AdminQuery.extend({ v: Version });
const LinkQuery = z.object({ exp: z.coerce.number().int(), sig: z.string().max(200), map: Id.optional(), v: Version });

const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;
const intOf = (v: string) => (/^\d{1,9}$/.test(v) ? Number(v) : NaN);

/** Creates the vector-tile dataset (see VectorTileService.create): answers it, pending, as the caller sees it, with the job that tiles it. */
async function createTiled(ctx: Ctx, opts: VectorTileOptions, source: TileSource, produce: (file: string, signal: AbortSignal) => Promise<void>) {
  const signal = clientGone(ctx.reply);
  const { row, job } = await vectorTiles(ctx.services).create(requireCaller(ctx), opts, source, (file) => produce(file, signal), signal);
  return wireOf(ctx, row, job);
}

async function wireOf(ctx: Ctx, row: ResourceRow, job: Job) {
  const access = await ctx.services.access.accessOf(ctx.caller, row, ctx.adminMode);
  const [item] = await ctx.services.datasets.toWire([row], () => access);
  return { item: item!, job };
}


export const vectorTileRoutes: RouteDef[] = [
  defineRoute({
    spec: ['CAT-113'],
    method: 'POST',
    url: '/v1/datasets/vectortile',
    response: itemOf(Dataset).extend({ job: Job }),
    summary: 'Create a vector-tile dataset from a dataset the caller reads (lat/lng columns or GeoJSON/WKT geometry): an MVT pyramid in a PMTiles archive, cut by a background job; with target, cut an existing vector-tile dataset the caller may edit again in place (its current tiles served until the new are ready). Answers at once with the dataset pending and the job',
    tag: TAG,
    auth: 'user',
    transaction: false,
    body: VectorTileCreate,
    status: 201,
    handler: async (ctx) => {
      const { row, job } = await tileDataset(ctx as Ctx, ctx.body);
      return wireOf(ctx as Ctx, row, job);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/datasets/{id}/tiles',
    summary: "Build a table dataset's own vector tiles (#50, the page's Build tiles): cut by a background job from its data as it is now, kept with the dataset (no new record; its owner's storage), served at /v1/datasets/{id}/tiles/{z}/{x}/{y} once cut; answers at once with the job (progress, cancel)",
    tag: TAG,
    auth: 'user',
    transaction: false,
    params: z.object({ id: Id }),
    query: AdminQuery,
    body: DatasetTilesBuild,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    status: 202,
    response: z.object({ job: Job }),
    handler: async (ctx) => ({ job: await datasetTiles(ctx.services).build(requireCaller(ctx), ctx.resource!, ctx.body) }),
  }),
  defineRoute({
    spec: ['DQ-022'],
    method: 'PUT',
    url: '/v1/data-queries/vector-tiling',
    summary: 'Vector-tile the result of a query (on a data connection the caller reads, or over datasets on the embedded engine) into a new vector-tile dataset: the query runs in the request (its errors are a 422 that creates nothing), the tiling in a background job; answers with the dataset pending and the job',
    tag: 'data-queries',
    auth: 'user',
    transaction: false,
    body: VectorTilingBody,
    status: 201,
    response: itemOf(Dataset).extend({ job: Job }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      const { executions } = ctx.services;
      const b = ctx.body;
      const values = b.parameters ?? {};
      const plan = b.connectionId
        ? await executions.connectionPlan(await ctx.services.access.guardRun(caller, b.connectionId, ctx.adminMode), b.query, values)
        : await executions.sandboxPlan(caller, b.query, values);
      const source: TileSource = { name: 'Query result (vector tiles)', pipelineType: 'pipeline', query: b.query, sourceLabel: b.connectionId ? `connection:${b.connectionId}` : 'query' };
      return createTiled(ctx as Ctx, b, source, async (out, signal) => {
        try {
          await plan.produce(out, signal);
        } catch (e) {
          // What the query's content caused (a failed cast, say) is the caller's bad input, as for executions.
          throw signal.aborted ? new StudioError(499, 'The request was cancelled') : engineError(e);
        }
      });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/tiles.json',
    summary: 'TileJSON 3.0 of a vector-tile dataset: tile URL template on the caller’s host, zoom range, bounds, center, layer fields',
    tag: TAG,
    auth: 'user',
    params: z.object({ id: Id }),
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: TileJson,
    handler: async (ctx) => tileJson(ctx as Ctx, ctx.resource!, ''),
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/tiles/{z}/{x}/{y}',
    summary: `One Mapbox Vector Tile of a vector-tile dataset (${MVT_CONTENT_TYPE}); 204 where the dataset has no feature`,
    tag: TAG,
    auth: 'user',
    params: TileParams,
    query: TileQuery,
    resource: { type: 'dataset', param: 'id', action: 'read', reuse: true },
    produces: [MVT_CONTENT_TYPE],
    handler: async (ctx) => sendTile(ctx as Ctx, ctx.resource!, ctx.params),
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/tiles/link',
    summary: `Signed links to a vector-tile dataset's TileJSON and tiles, for map renderers that cannot send the session (valid ${TILE_LINK_TTL_MS / 3_600_000} hours)`,
    tag: TAG,
    auth: 'user',
    params: z.object({ id: Id }),
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: itemOf(TileLinks),
    handler: async (ctx) => ({ item: tileLinks(ctx as Ctx, ctx.resource!) }),
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/maps/{id}/published-map/datasets/{datasetId}/tiles/link',
    embeddable: true,
    summary: `Signed tile links of a vector-tile dataset of a published map, without signing in (for a protected map, the grant in the ${MAP_GRANT_HEADER} header or the password in ${MAP_PASSWORD_HEADER}); with own=1, also of a table dataset's own tiles while they show its data (#50: the map drew it from them); item null otherwise`,
    tag: 'maps',
    auth: 'public',
    params: z.object({ id: Id, datasetId: Id }),
    query: z.object({ own: z.enum(['0', '1']).optional() }),
    response: itemOf(TileLinks.nullable()),
    handler: async (ctx) => {
      // The rule of the publication's own dataset route: only datasets its snapshot names, behind its password.
      const row = await publishedDataset(ctx as Ctx, ctx.params.id, ctx.params.datasetId);
      const tiled = datasetAttrs(row).datasetType === 'vector-tile' || (ctx.query.own === '1' && ownTilesOf(row) !== null);
      return { item: tiled ? tileLinks(ctx as Ctx, row, ctx.params.id) : null };
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${LINK_BASE}/{id}/tiles.json`,
    embeddable: true,
    summary: 'TileJSON of a vector-tile dataset through a signed link (see /v1/datasets/{id}/tiles/link); its tile URLs carry the same signature',
    tag: TAG,
    auth: 'public',
    params: z.object({ id: Id }),
    query: LinkQuery,
    response: TileJson,
    handler: async (ctx) => tileJson(ctx as Ctx, (await linked(ctx as Ctx, ctx.params.id, ctx.query)).row, `?${linkQuery(ctx.query)}`, LINK_BASE),
  }),
  defineRoute({
    method: 'GET',
    url: `${LINK_BASE}/{id}/{z}/{x}/{y}`,
    embeddable: true,
    summary: 'One tile of a vector-tile dataset through a signed link',
    tag: TAG,
    auth: 'public',
    params: TileParams,
    query: LinkQuery,
    produces: [MVT_CONTENT_TYPE],
    handler: async (ctx) => {
      const { row, immutable } = await linked(ctx as Ctx, ctx.params.id, ctx.query);
      return sendTile(ctx as Ctx, row, ctx.params, immutable);
    },
  }),
];

/**
 * Signed links (see @studio/tiles, vector-tiles/links.ts) to a ready vector-tile dataset's TileJSON and tiles; those
 * handed out by a published map (`mapId`) work only while it is published with the dataset.
 */
function tileLinks(ctx: Ctx, row: ResourceRow, mapId?: string) {
  const { key } = vectorTiles(ctx.services).tilesOf(row);
  const { exp, query } = signTileLink(ctx.services.secrets, row.id, Date.now(), mapId);
  const base = `${originOf(ctx.req)}${LINK_BASE}/${row.id}`;
  return { tileJsonUrl: `${base}/tiles.json?${query}`, tileUrl: `${base}/{z}/{x}/{y}?${query}&v=${versionOf(key)}`, expiresAt: new Date(exp).toISOString() };
}

type LinkParams = { exp: number; sig: string; map?: string };

/**
 * The dataset a signed link names (403 for a bad or expired signature, 404 once the dataset is gone, or for a
 * published map's link, once the map is unpublished or no longer shows the dataset — each within the access
 * cache time), and the Cache-Control of its versioned tiles: public for a map without a password.
 */
async function linked(ctx: Ctx, id: string, q: LinkParams): Promise<{ row: ResourceRow; immutable?: string }> {
  verifyTileLink(ctx.services.secrets, id, q.exp, q.sig, q.map);
  let immutable: string | undefined;
  if (q.map) {
    const mapId = q.map;
    const publication = await vectorTiles(ctx.services).publication(mapId, () => ctx.services.publishing.publicationOf(mapId));
    if (!publication?.datasetIds.includes(id)) throw notFound('Dataset not found');
    if (!publication.protected) immutable = publicImmutable((q.exp - Date.now()) / 1000);
  }
  const row = await vectorTiles(ctx.services).linkedDataset(id);
  if (!row || row.type !== 'dataset') throw notFound('Dataset not found');
  return { row, immutable };
}

/**
 * TileJSON 3.0.0; tile URLs on the caller's host, under `base`, with `suffix` (a signed link's query) and the
 * tileset's version (answers to them are kept a year; a rebuilt tileset hands out new URLs).
 */
function tileJson(ctx: Ctx, row: ResourceRow, suffix: string, base?: string) {
  const { info, key } = vectorTiles(ctx.services).tilesOf(row);
  const version = `${suffix ? '&' : '?'}v=${versionOf(key)}`;
  ctx.reply.header('cache-control', REVALIDATE);
  // From the row, not the stored URL: a copy of the dataset carries its source's metadata.
  const template = base ? `${base}/${row.id}/{z}/{x}/{y}` : `/v1/datasets/${row.id}/tiles/{z}/{x}/{y}`;
  // Low zooms first (#50): while only they are cut, renderers are told so and enlarge them; deeper tiles answer 204.
  const maxzoom = info.cutMaxZoom ?? info.maxZoom;
  return {
    tilejson: '3.0.0',
    name: row.name,
    description: row.description,
    scheme: 'xyz',
    tiles: [`${originOf(ctx.req)}${template}${suffix}${version}`],
    minzoom: info.minZoom,
    maxzoom,
    bounds: info.bounds,
    center: info.center,
    vector_layers: [{ id: info.layer, fields: info.fields, minzoom: info.minZoom, maxzoom }],
    format: 'pbf',
    geometryType: info.geometryType,
    featureCount: info.featureCount,
  };
}

/** One tile: coordinates checked against the dataset's pyramid (422), 204 where it has no feature. */
async function sendTile(ctx: Ctx, row: ResourceRow, p: { z: string; x: string; y: string }, immutable?: string) {
  const service = vectorTiles(ctx.services);
  const { key, info } = service.tilesOf(row);
  const [z, x, y] = [p.z, p.x, p.y.replace(/\.(pbf|mvt)$/, '')].map(intOf) as [number, number, number];
  if ([z, x, y].some(Number.isNaN)) throw badInput('Tile coordinates must be whole numbers');
  checkTile(z, x, y, info.maxZoom);
  // Stored gzip goes out as it is to clients that accept it (every browser); others get it unpacked.
  const gzipOk = /\bgzip\b/.test(String(ctx.req.headers['accept-encoding'] ?? ''));
  ctx.reply.header('vary', 'Accept-Encoding');
  if (notModified(ctx.req, ctx.reply, versionOf(key), `${z}/${x}/${y}:${gzipOk ? 'gzip' : 'identity'}`, (ctx.query as { v?: string }).v, immutable)) return ctx.reply;
  const tile = await service.cachedTile(key, z, x, y);
  if (!tile) return ctx.reply.code(204).send();
  const { gzip, bytes } = tile;
  ctx.reply.header('content-type', MVT_CONTENT_TYPE);
  if (gzip && gzipOk) return ctx.reply.header('content-encoding', 'gzip').send(bytes);
  return ctx.reply.send(gzip ? gunzipSync(bytes) : bytes);
}
