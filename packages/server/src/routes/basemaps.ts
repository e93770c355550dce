import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { defineRoute, type RouteDef } from '../http/route';
import { BASEMAPS, BasemapTiles, GlyphRanges, TILE_PATH, basemapOf, styleJson } from '@studio/tiles';

const BASE = '/v1/basemaps';
/** One tile builder per process: the geography is the same for every studio in it. */
const tiles = new BasemapTiles();
/** Likewise the glyphs: one font, made into ranges as maps ask for them. */
const glyphs = new GlyphRanges();
/** Tiles change only with the installed data packages; styles may follow a new release sooner. */
const TILE_CACHE = 'public, max-age=86400, stale-while-revalidate=604800';
const STYLE_CACHE = 'public, max-age=300';

/** The origin the caller reached the studio at, so style URLs work through any host name or port. */
const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

const coordinate = z.coerce.number().int().min(0).max(2 ** 14);

export const basemapRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    url: BASE,
    embeddable: true,
    summary: 'The built-in basemaps (offline, served by the studio): id, label, description and style URL',
    tag: 'basemaps',
    auth: 'public',
    response: z.object({
      items: z.array(z.object({ id: z.string(), label: z.string(), description: z.string(), styleUrl: z.string() })),
      tileUrl: z.string(),
    }),
    handler: async ({ req, reply }) => {
      reply.header('cache-control', STYLE_CACHE);
      const origin = originOf(req);
      return {
        items: BASEMAPS.map((b) => ({ id: b.id, label: b.label, description: b.description, styleUrl: `${origin}${BASE}/${b.id}/style.json` })),
        tileUrl: `${origin}${TILE_PATH}`,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/{id}/style.json`,
    embeddable: true,
    summary: 'A built-in basemap as a MapLibre/Mapbox style v8 whose tiles are the studio’s own',
    tag: 'basemaps',
    auth: 'public',
    params: z.object({ id: z.string().max(64) }),
    // A style document, sent as the text it was made into.
    produces: ['application/json'],
    handler: async ({ req, reply, params }) => {
      const style = styleJson(basemapOf(params.id), originOf(req));
      return reply.header('cache-control', STYLE_CACHE).header('content-type', 'application/json; charset=utf-8').send(style);
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/tiles/{z}/{x}/{y}.pbf`,
    embeddable: true,
    summary: 'A Mapbox Vector Tile of the built-in geography (layers land, countries, states, counties from z5); 204 where empty',
    tag: 'basemaps',
    auth: 'public',
    params: z.object({ z: coordinate, x: coordinate, y: coordinate }),
    produces: ['application/vnd.mapbox-vector-tile'],
    handler: async ({ reply, params }) => {
      const bytes = await tiles.tile(params.z, params.x, params.y);
      reply.header('cache-control', TILE_CACHE).header('access-control-allow-origin', '*');
      if (!bytes) return reply.code(204).send();
      return reply.header('content-type', 'application/vnd.mapbox-vector-tile').send(bytes);
    },
  }),
  defineRoute({
    method: 'GET',
    url: `${BASE}/glyphs/{fontstack}/{range}.pbf`,
    embeddable: true,
    summary: 'Signed distance field glyphs of 256 code points (MapLibre glyph protobuf) for the basemaps’ labels; any font stack gets the studio’s font',
    tag: 'basemaps',
    auth: 'public',
    params: z.object({ fontstack: z.string().min(1).max(200), range: z.string().max(16) }),
    produces: ['application/x-protobuf'],
    handler: async ({ reply, params }) => {
      const bytes = await glyphs.range(params.range);
      return reply.header('cache-control', TILE_CACHE).header('access-control-allow-origin', '*').header('content-type', 'application/x-protobuf').send(Buffer.from(bytes));
    },
  }),
];
