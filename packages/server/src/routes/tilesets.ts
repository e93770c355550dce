import { z } from 'zod';
import {
  FieldQuantiles,
  HexTileCreate,
  Id,
  TILE_INTERVALS,
  TilesetAnswer,
  TilesetIndex,
  TilesetQuantiles,
  TilesetQuery,
  TilesetRange,
  badInput,
  notFound,
  Dataset,
  Job,
  itemOf,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../http/route';
import { clientGone, engineError, streamBody } from '../http/streams';
import { notModified, versionOf } from '../http/tile-headers';
import { ARROW_STREAM } from '../http/media-types';
import { TilesetQueries } from '../services/tileset-queries';
import { archiveOf, createHexTiles, metadataOf } from '../services/hextiles';
import { TIME_PATH, checkHexTile, entryName, parseViewport, pays, readHexTile, readHexTileGzip, tilesInViewport, variantOf, type TileArchive, type TileCounts } from '@studio/tiles';
import type { Services } from '../services';

/**
 * Hex tilesets: building one (POST /v1/datasets/hextile), the pipeline calls over tiles (POST
 * /v1/tileset[/metadata|/quantiles]) and the zip proxy (GET /v1/tileset/{dataset}/...) that reads entries
 * of a tileset archive. Layout and choices: docs/decisions.md "Hex tiles".
 */

const OCTET = 'application/octet-stream';
const DatasetParam = z.object({ dataset: Id });
// Path parts other than the guarded id are plain strings here and checked in the handler: a caller
// without access must get 404 before learning that a zoom or cell is malformed.
const TileParams = DatasetParam.extend({ z: z.string().max(200), hex: z.string().max(200) });
const guard = { type: 'dataset' as const, param: 'dataset', action: 'read' as const };
/** Tiles are the hot path: their access check is reused for a moment per credential (see ResourceGuard.reuse). */
const tileGuard = { ...guard, reuse: true };

type Ctx = RouteContext<{ dataset: string }, z.infer<typeof TilesetQuery>, unknown>;
const archiveFor = (ctx: Ctx) => archiveOf(ctx.services, ctx.resource!, ctx.query.zipUrl);

/** q on tiles, metadata and quantiles: comma-separated fields, each a field of the tileset. */
function fieldsOf(archive: TileArchive, q: string | undefined): string[] {
  const all = archive.meta.fields.map((f) => f.name);
  if (q === undefined) return all;
  const wanted = q.split(',').map((f) => f.trim()).filter(Boolean);
  if (!wanted.length) throw badInput('q must name at least one field');
  for (const f of wanted) if (!all.includes(f)) throw badInput(`q: ${f} is not a field of the tileset (fields: ${all.join(', ')})`);
  return wanted;
}

const wantsOctet = (ctx: { req: { headers: Record<string, unknown> } }) => {
  const accept = String(ctx.req.headers.accept ?? '');
  return accept.includes(OCTET) && !accept.includes(ARROW_STREAM);
};

/**
 * One tile entry: Arrow IPC by default (q selects fields); the stored Parquet entry for octet-stream. Cached
 * by browsers (ETag, and a year when the URL names the current version) and in this node's tile cache.
 */
async function tileAnswer(ctx: Ctx, zText: string, hex: string, step?: string) {
  const archive = await archiveFor(ctx);
  const { z: zoom, tile } = checkHexTile(zText, hex);
  if (step !== undefined) {
    if (!TIME_PATH.test(step)) throw badInput('The time path must be an interval code and a step start, e.g. D2024-01-05 (see GET .../range/{interval})');
    checkInterval(archive, step[0]!);
  }
  if (zoom < archive.meta.minZoom || zoom > archive.meta.maxZoom) throw badInput(`z must be from ${archive.meta.minZoom} to ${archive.meta.maxZoom} for this tileset`);
  const name = entryName({ z: zoom, tile, ...(step && { time: step }) });
  if (!archive.has(name)) throw notFound(`No tile ${zoom}/${tile}${step ? ` at ${step}` : ''} in this tileset`);
  const parquet = wantsOctet(ctx);
  if (parquet && ctx.query.q !== undefined) throw badInput('q selects fields of an Arrow answer; the octet-stream answer is the stored Parquet entry');
  const ask = { name, step, fields: parquet ? [] : fieldsOf(archive, ctx.query.q), parquet };
  // Arrow answers go gzip to clients that accept it (every browser): each encoding is its own answer and ETag.
  const gzip = !parquet && /\bgzip\b/.test(String(ctx.req.headers['accept-encoding'] ?? ''));
  ctx.reply.header('vary', 'Accept, Accept-Encoding');
  if (notModified(ctx.req, ctx.reply, versionOf(archive.key), variantOf(ask, gzip), ctx.query.v)) return ctx.reply;
  const bytes = await readHexTile(ctx.services, archive, ask).catch((e: unknown) => {
    throw engineError(e);
  });
  ctx.reply.header('content-type', parquet ? OCTET : ARROW_STREAM);
  if (gzip && pays(ask, bytes.length)) return ctx.reply.header('content-encoding', 'gzip').send(await readHexTileGzip(ctx.services, archive, ask, bytes));
  return ctx.reply.send(bytes);
}

function resolution(archive: TileArchive, text: string): number {
  const res = Number(text);
  if (!/^\d{1,2}$/.test(text) || res > 15) throw badInput('res must be an integer from 0 to 15');
  if (res < archive.meta.minRes || res > archive.meta.maxRes) throw badInput(`The tileset has no cells at resolution ${res} (it has ${archive.meta.minRes} to ${archive.meta.maxRes})`);
  return res;
}

const pick = (q: Record<string, number[] | null> | null, fields: string[]) => (q ? Object.fromEntries(fields.map((f) => [f, q[f] ?? null])) : null);

const q = TilesetQuery;

/** One per studio, as the other per-studio helpers of the routes. */
const queriesOf = new WeakMap<Services, TilesetQueries>();
function tilesetQueries(s: Services): TilesetQueries {
  let queries = queriesOf.get(s);
  if (!queries) queriesOf.set(s, (queries = new TilesetQueries(s)));
  return queries;
}

/** An interval code the tileset is sliced by. */
function checkInterval(archive: TileArchive, interval: string): void {
  if (!(TILE_INTERVALS as readonly string[]).includes(interval)) throw badInput(`interval must be one of ${TILE_INTERVALS.join(', ')}`);
  if (!archive.meta.timeIntervals.includes(interval as never)) throw badInput(`The tileset has no ${interval} time steps (it has ${archive.meta.timeIntervals.join(', ') || 'none'})`);
}

export const tilesetRoutes: RouteDef[] = [
  defineRoute({
    spec: ['CAT-112'],
    method: 'POST',
    url: '/v1/datasets/hextile',
    response: itemOf(Dataset).extend({ job: Job }),
    summary: 'Create a hex-tile dataset from a dataset the caller can read: H3 cells (from an H3 column or latitude/longitude) aggregated at a range of resolutions, grouped into tiles, optionally sliced by time; with target, build an existing hex-tile dataset the caller may edit again in place (its current tiles served until the new are ready). Answers at once with the dataset pending and the job',
    tag: 'datasets',
    auth: 'user',
    transaction: false,
    body: HexTileCreate,
    status: 201,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      // At once: the dataset pending and the job building it (GET /v1/jobs/{id} follows it).
      const { row, job } = await createHexTiles(ctx.services, caller, ctx.body);
      const access = await ctx.services.access.accessOf(caller, row, false);
      const [item] = await ctx.services.datasets.toWire([row], () => access);
      return { item: item!, job };
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    spec: ['QRY-002'],
    method: 'POST',
    url: '/v1/tileset',
    summary: 'Run a query pipeline over hex tiles (hexTile, tileExtract, tileJoin, tileQuantiles nodes); answers Arrow IPC',
    body: z.unknown(),
    produces: [ARROW_STREAM, OCTET],
    handler: async (ctx) => {
      const arrow = await tilesetQueries(ctx.services).arrow(requireCaller(ctx), ctx.body, clientGone(ctx.reply));
      return ctx.reply.header('content-type', wantsOctet(ctx) ? OCTET : ARROW_STREAM).send(streamBody(arrow));
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    transaction: false,
    spec: ['QRY-003'],
    method: 'POST',
    url: '/v1/tileset/metadata',
    summary: "A tile pipeline's result columns and the metadata of each hex-tile dataset it reads",
    body: z.unknown(),
    response: itemOf(z.object({ fields: z.array(z.object({ name: z.string(), type: z.string() })), sources: z.array(TilesetAnswer) })),
    handler: async (ctx) => {
      return { item: await tilesetQueries(ctx.services).metadata(requireCaller(ctx), ctx.body) };
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    transaction: false,
    spec: ['QRY-004'],
    method: 'POST',
    url: '/v1/tileset/quantiles',
    summary: "Quantile boundaries (minimum, deciles, maximum) of each numeric column of a tile pipeline's result",
    body: z.unknown(),
    response: itemOf(z.object({ levels: z.array(z.number()), quantiles: FieldQuantiles })),
    handler: async (ctx) => {
      return { item: await tilesetQueries(ctx.services).quantiles(requireCaller(ctx), ctx.body) };
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    transaction: false,
    spec: ['TIL-001'],
    method: 'GET',
    url: '/v1/tileset/{dataset}/{z}/{hex}',
    summary: 'One tile: the cells at z + resolutionOffset inside tile cell {hex}, as Arrow IPC (q: fields), or the stored Parquet entry for Accept application/octet-stream',
    params: TileParams,
    query: q,
    resource: tileGuard,
    produces: [ARROW_STREAM, OCTET],
    handler: async (ctx) => tileAnswer(ctx as Ctx, ctx.params.z, ctx.params.hex),
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    spec: ['TIL-002'],
    method: 'GET',
    url: '/v1/tileset/{dataset}/{z}/{hex}/time/{path}',
    summary: 'One tile for one time step (path from GET .../range/{interval}, e.g. D2024-01-05)',
    params: TileParams.extend({ path: z.string().max(200) }),
    query: q,
    resource: tileGuard,
    produces: [ARROW_STREAM, OCTET],
    handler: async (ctx) => tileAnswer(ctx as Ctx, ctx.params.z, ctx.params.hex, ctx.params.path),
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    spec: ['TIL-003'],
    method: 'GET',
    url: '/v1/tileset/{dataset}/range/{interval}',
    summary: 'The time steps of one interval (T, H, D, M, Y): their paths, starts and tile counts',
    params: DatasetParam.extend({ interval: z.string().max(200) }),
    query: q,
    resource: guard,
    response: itemOf(TilesetRange),
    handler: async (ctx) => {
      const archive = await archiveFor(ctx as Ctx);
      const interval = ctx.params.interval;
      checkInterval(archive, interval);
      if (ctx.query.q !== undefined) throw badInput('q is not used by the range call');
      const steps = Object.entries(archive.index.time[interval] ?? {}).map(([path, s]) => ({ path, start: s.start, tiles: Object.values(s.tiles).reduce((n, t) => n + Object.keys(t).length, 0) }));
      return { item: { interval, start: steps[0]?.start ?? null, end: steps.at(-1)?.start ?? null, steps } };
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    spec: ['TIL-004'],
    method: 'GET',
    url: '/v1/tileset/{dataset}/metadata',
    summary: "The tileset's metadata: fields, resolutions, zooms, time intervals and range, cell counts (q: fields)",
    params: DatasetParam,
    query: q,
    resource: guard,
    response: itemOf(TilesetAnswer),
    handler: async (ctx) => {
      const archive = await archiveFor(ctx as Ctx);
      const fields = fieldsOf(archive, ctx.query.q);
      const meta = metadataOf(archive, ctx.params.dataset);
      return { item: { ...meta, fields: meta.fields.filter((f) => fields.includes(f.name)) } };
    },
  }),
  defineRoute({
    tag: 'tilesets',
    auth: 'user',
    spec: ['TIL-005'],
    method: 'GET',
    url: '/v1/tileset/{dataset}/tileset-index',
    summary: 'The tileset index: its metadata and the tiles of each zoom and time step with their cell counts; q a viewport {"bbox":[w,s,e,n],"z":zoom} keeps the tiles inside',
    params: DatasetParam,
    query: q,
    resource: guard,
    response: itemOf(TilesetIndex),
    handler: async (ctx) => {
      const archive = await archiveFor(ctx as Ctx);
      const { index } = archive;
      if (ctx.query.q === undefined) return { item: index };
      const v = parseViewport(ctx.query.q);
      const filter = (counts: TileCounts): TileCounts =>
        Object.fromEntries(Object.entries(counts).filter(([z]) => v.z === undefined || Number(z) === v.z).map(([z, c]) => [z, tilesInViewport(c, Number(z), v)]));
      const time = Object.fromEntries(Object.entries(index.time).map(([i, steps]) => [i, Object.fromEntries(Object.entries(steps).map(([p, s]) => [p, { start: s.start, tiles: filter(s.tiles) }]))]));
      return { item: { ...index, tiles: filter(index.tiles), time, viewport: v } };
    },
  }),
  ...(['TIL-006', 'TIL-007'] as const).map((spec) =>
    defineRoute({
    tag: 'tilesets',
    auth: 'user',
      spec: [spec],
      method: 'GET',
      url: spec === 'TIL-006' ? '/v1/tileset/{dataset}/{res}/quantiles' : '/v1/tileset/{dataset}/{res}/quantiles/{interval}',
      summary: spec === 'TIL-006'
        ? 'Stored quantile boundaries of each field at one resolution (q: fields); null where the entry fails to load'
        : 'Stored quantile boundaries of each field at one resolution, per time step of an interval; a step whose entry fails to load is null',
      params: DatasetParam.extend({ res: z.string().max(200), interval: z.string().max(200).optional() }),
      query: q,
      resource: guard,
      response: itemOf(TilesetQuantiles),
      handler: async (ctx) => {
        const archive = await archiveFor(ctx as Ctx);
        const res = resolution(archive, ctx.params.res);
        const fields = fieldsOf(archive, ctx.query.q);
        const levels = archive.meta.quantileLevels;
        const interval = ctx.params.interval;
        if (interval === undefined) return { item: { res, levels, quantiles: pick(await archive.quantiles(res), fields) } };
        checkInterval(archive, interval);
        const steps: Record<string, Record<string, number[] | null> | null> = {};
        for (const step of Object.keys(archive.index.time[interval] ?? {})) steps[step] = pick(await archive.quantiles(res, step), fields);
        return { item: { res, interval, levels, steps } };
      },
    }),
  ),
];
