import fs from 'node:fs/promises';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { Id, QueryBool, StudioError, VectorTileCreate, VectorTilingBody, badInput, type VectorTileOptions } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { assertCanCreate } from '../services/quota';
import { datasetAttrs } from '../services/datasets';
import { checkTile } from '../services/vector-tiles/mvt';
import { locationOf, vectorTiles, type TileSource } from '../services/vector-tiles';

/**
 * Vector-tile datasets (catalog §7): POST /v1/datasets/vectortile tiles a dataset the caller reads,
 * PUT /v1/data-queries/vector-tiling tiles the result of a query (on a data connection the caller reads,
 * or over datasets on the embedded engine). Tiles and their TileJSON are served from the studio's own
 * host to whoever reads the dataset.
 */

type Ctx = RouteContext<unknown, unknown, unknown>;
const TAG = 'datasets';
export const MVT_CONTENT_TYPE = 'application/x-protobuf';
/** An archive never changes under its key (re-tiling writes a new one), but access can: keep it private and short. */
const TILE_CACHE = 'private, max-age=300';

/** Coordinates are checked in the handler, after the permission check, so a stranger learns nothing from a 422. */
const Coordinate = z.string().max(64);
const TileParams = z.object({ id: Id, z: Coordinate, x: Coordinate, y: Coordinate });
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });

const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;
const intOf = (v: string) => (/^\d{1,9}$/.test(v) ? Number(v) : NaN);

/** Creates the vector-tile dataset (see VectorTileService.create) and answers it as the caller sees it. */
async function createTiled(ctx: Ctx, opts: VectorTileOptions, source: TileSource, produce: (file: string) => Promise<void>) {
  const row = await vectorTiles(ctx.services).create(requireCaller(ctx), opts, source, produce);
  const access = await ctx.services.access.accessOf(ctx.caller, row, ctx.adminMode);
  const [item] = await ctx.services.datasets.toWire([row], () => access);
  return { item: item! };
}

export const vectorTileRoutes: RouteDef[] = [
  defineRoute({
    spec: ['CAT-113'],
    method: 'POST',
    url: '/v1/datasets/vectortile',
    summary: 'Create a vector-tile dataset from a dataset the caller reads (lat/lng columns or GeoJSON/WKT geometry): an MVT pyramid in a PMTiles archive',
    tag: TAG,
    auth: 'user',
    body: VectorTileCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await assertCanCreate(ctx.services.db, caller, 'dataset');
      const { resource: source } = await ctx.services.access.guard(caller, 'dataset', ctx.body.datasetId, 'read', ctx.adminMode);
      const a = datasetAttrs(source);
      if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${source.name} is not ready (status: ${a.status})`);
      locationOf(a.metadata.columns, ctx.body); // bad input answers 422 before anything is created
      const file = await ctx.services.engine.store.localPath(a.storageKey);
      const dataset: TileSource = { name: `${source.name} (vector tiles)`, pipelineType: 'managed', query: null, sourceLabel: `dataset:${source.id}` };
      return createTiled(ctx as Ctx, ctx.body, dataset, (out) => fs.copyFile(file, out));
    },
  }),
  defineRoute({
    spec: ['DQ-022'],
    method: 'PUT',
    url: '/v1/data-queries/vector-tiling',
    summary: 'Vector-tile the result of a query (on a data connection the caller reads, or over datasets on the embedded engine) into a new vector-tile dataset',
    tag: 'data-queries',
    auth: 'user',
    body: VectorTilingBody,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await assertCanCreate(ctx.services.db, caller, 'dataset');
      const { executions } = ctx.services;
      const b = ctx.body;
      const values = b.parameters ?? {};
      const plan = b.connectionId
        ? await executions.connectionPlan((await ctx.services.access.guard(caller, 'data-connection', b.connectionId, 'read', ctx.adminMode)).resource, b.query, values)
        : await executions.sandboxPlan(caller, b.query, values);
      const signal = new AbortController().signal;
      const source: TileSource = { name: 'Query result (vector tiles)', pipelineType: 'pipeline', query: b.query, sourceLabel: b.connectionId ? `connection:${b.connectionId}` : 'query' };
      return createTiled(ctx as Ctx, b, source, async (out) => {
        await plan.produce(out, signal);
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
    handler: async (ctx) => {
      const { info } = vectorTiles(ctx.services).tilesOf(ctx.resource!);
      const origin = originOf(ctx.req);
      return {
        tilejson: '3.0.0',
        name: ctx.resource!.name,
        description: ctx.resource!.description,
        scheme: 'xyz',
        tiles: [`${origin}${info.tileUrl}`],
        minzoom: info.minZoom,
        maxzoom: info.maxZoom,
        bounds: info.bounds,
        center: info.center,
        vector_layers: [{ id: info.layer, fields: info.fields, minzoom: info.minZoom, maxzoom: info.maxZoom }],
        format: 'pbf',
        geometryType: info.geometryType,
        featureCount: info.featureCount,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/datasets/{id}/tiles/{z}/{x}/{y}',
    summary: `One Mapbox Vector Tile of a vector-tile dataset (${MVT_CONTENT_TYPE}); 204 where the dataset has no feature`,
    tag: TAG,
    auth: 'user',
    params: TileParams,
    query: AdminQuery,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    handler: async (ctx) => {
      const service = vectorTiles(ctx.services);
      const { key, info } = service.tilesOf(ctx.resource!);
      const [z, x, y] = [ctx.params.z, ctx.params.x, ctx.params.y.replace(/\.(pbf|mvt)$/, '')].map(intOf) as [number, number, number];
      if ([z, x, y].some(Number.isNaN)) throw badInput('Tile coordinates must be whole numbers');
      checkTile(z, x, y, info.maxZoom);
      const bytes = await service.archives.tile(key, z, x, y);
      ctx.reply.header('cache-control', TILE_CACHE);
      if (!bytes) return ctx.reply.code(204).send();
      return ctx.reply.header('content-type', MVT_CONTENT_TYPE).send(Buffer.from(bytes));
    },
  }),
];
