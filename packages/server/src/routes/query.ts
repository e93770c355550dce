import { z } from 'zod';
import { cellToBoundary, cellToLatLng, isValidCell } from 'h3-js';
import { RecordBatchReader } from 'apache-arrow';
import { QueryBool, StudioError, badInput } from '@studio/schema';
import { compilePipeline, duckdbQueryError, validatePipeline } from '@studio/pipeline';
import { defineRoute, requireCaller } from '../http/route';
import { datasetAttrs } from '../services/datasets';
import type { Services } from '../services';
import type { Caller } from '../http/caller';
import { ARROW_STREAM } from './datasets';
import { TEMP_VIEW_NAME } from '../services/temp-views';
import { clientGone, primed, streamBody } from '../http/streams';
import { tileResolverFor } from '../services/hextiles/service';

/** Every dataset a pipeline reads, by uuid, wherever in the tree it is named. */
export function datasetsOf(node: unknown, out = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return out;
  const n = node as Record<string, unknown>;
  if (n.type === 'dataset' && typeof n.uuid === 'string') out.add(n.uuid);
  if (n.type === 'enrich') {
    const source = n.sourceId ?? n.source;
    if (typeof source === 'string') out.add(source);
  }
  if (Array.isArray(n.input)) for (const child of n.input) datasetsOf(child, out);
  return out;
}

/** DuckDB string literal of a path the store produced (store keys are [A-Za-z0-9_.=-/] only). */
const sqlPath = (p: string) => `'${p.replaceAll("'", "''")}'`;

/**
 * Checks the caller may read every dataset before anything runs, then compiles the pipeline with
 * each dataset resolved to its Parquet file.
 */
export async function compileForCaller(services: Services, caller: Caller, body: unknown) {
  const node = validatePipeline(body);
  const paths = new Map<string, string>();
  const temps = new Map<string, string>();
  for (const uuid of datasetsOf(node)) {
    if (TEMP_VIEW_NAME.test(uuid)) {
      temps.set(uuid, services.tempViews.relationOf(caller.user.id, uuid));
      continue;
    }
    const { resource } = await services.access.guard(caller, 'dataset', uuid, 'read', false);
    const a = datasetAttrs(resource);
    if (a.status !== 'ready' || !a.storageKey) throw new StudioError(409, `Dataset ${uuid} is not ready (status: ${a.status})`);
    paths.set(uuid, await services.engine.store.localPath(a.storageKey));
  }
  // Hex-tile datasets (hexTile, tileExtract, tileQuantiles nodes): guarded the same way, read from their archives.
  const tiles = await tileResolverFor(services, caller, node);
  return compilePipeline(node, {
    dialect: 'duckdb',
    ...(tiles && { resolveTiles: tiles.resolve }),
    resolveDataset: (uuid) => {
      const temp = temps.get(uuid);
      if (temp) return { relationSql: temp };
      const p = paths.get(uuid);
      if (!p) throw badInput(`Unknown dataset ${uuid}`);
      return { relationSql: `read_parquet(${sqlPath(p)})` };
    },
  });
}

/** JSON `{items: [...]}` streamed from Arrow batches: rows are decoded one batch at a time. */
async function* jsonFromArrow(arrow: AsyncGenerator<Uint8Array>): AsyncGenerator<string> {
  const reader = await RecordBatchReader.from(arrow);
  yield '{"items":[';
  let first = true;
  for await (const batch of reader) {
    const parts: string[] = [];
    for (const row of batch) parts.push(JSON.stringify(row?.toJSON() ?? null, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    if (parts.length) {
      yield (first ? '' : ',') + parts.join(',');
      first = false;
    }
  }
  yield ']}';
}

const Format = z.enum(['arrow', 'csv', 'json']);

export const queryRoutes = [
  defineRoute({
    spec: ['QRY-001'],
    method: 'POST',
    url: '/v1/query',
    summary: 'Run a query pipeline over datasets the caller can read; answers Arrow IPC, CSV (default) or JSON, streamed; materialize=true keeps the result 60 s as a temporary view named in later pipelines',
    tag: 'query',
    auth: 'user',
    transaction: false,
    query: z.object({ format: Format.optional(), materialize: QueryBool.optional() }),
    body: z.unknown(),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const compiled = await compileForCaller(ctx.services, caller, ctx.body);
      if (ctx.query.materialize) {
        // Kept as a temporary view (60 s); later pipelines name it as {type: 'dataset', uuid: name}.
        let view;
        try {
          view = await ctx.services.tempViews.create(caller.user.id, compiled);
        } catch (e) {
          throw duckdbQueryError(e);
        }
        return ctx.reply.code(201).send({ item: view });
      }
      const accept = String(ctx.req.headers.accept ?? '');
      const format = ctx.query.format ?? (accept.includes(ARROW_STREAM) ? 'arrow' : accept.includes('application/json') ? 'json' : 'csv');
      // A client that goes away stops the query: the engine interrupts DuckDB on abort.
      const signal = clientGone(ctx.reply);
      const source = { sql: compiled.sql, params: compiled.params };
      if (format === 'csv') {
        const body = await primed(ctx.services.engine.csvStream(source, { signal }));
        return ctx.reply.header('content-type', 'text/csv; charset=utf-8').send(streamBody(body));
      }
      const arrow = await primed(ctx.services.engine.arrowStream(source, { signal }));
      if (format === 'arrow') return ctx.reply.header('content-type', ARROW_STREAM).send(streamBody(arrow));
      return ctx.reply.header('content-type', 'application/json; charset=utf-8').send(streamBody(jsonFromArrow(arrow)));
    },
  }),
  defineRoute({
    spec: ['QRY-005'],
    method: 'POST',
    url: '/v1/shapify',
    summary: 'Turn geographic ids into shapes: H3 cells into their boundary polygons or centre points (GeoJSON)',
    tag: 'query',
    auth: 'user',
    transaction: false,
    body: z.object({
      geos: z.array(z.string().max(32)).min(1).max(100_000),
      shape: z.enum(['polygon', 'point']).default('polygon'),
      geoType: z.enum(['h3']).default('h3'),
    }),
    handler: async ({ body }) => {
      const invalid = body.geos.filter((g) => !isValidCell(g));
      if (invalid.length) throw badInput('Invalid H3 cell', invalid.slice(0, 5).join(', '));
      const features = body.geos.map((cell) => {
        if (body.shape === 'point') {
          const [lat, lng] = cellToLatLng(cell);
          return { type: 'Feature', properties: { hex: cell }, geometry: { type: 'Point', coordinates: [lng, lat] } };
        }
        return { type: 'Feature', properties: { hex: cell }, geometry: { type: 'Polygon', coordinates: [cellToBoundary(cell, true)] } };
      });
      return { item: { type: 'FeatureCollection', features } };
    },
  }),
];
