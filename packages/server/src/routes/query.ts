import { z } from 'zod';
import { cellToBoundary, cellToLatLng, isValidCell } from 'h3-js';
import { CellName, DatasetDownloadFormat, QueryBool, SPREADSHEET_SUMMARY, SpreadsheetQuery, TempViewWire, badInput, itemOf } from '@studio/schema';
import { duckdbQueryError } from '@studio/pipeline';
import { defineRoute, requireCaller, type RouteContext } from '../http/route';
import type { Caller } from '../http/caller';
import { storedConnection } from '../services/connections';
import type { PushDown } from '../services/pipelines';
import { ARROW_STREAM, EXPORT_TYPES, QUERY_ANSWER_TYPES } from '../http/media-types';
import { clientGone, engineError, primed, sendStream, streamBody } from '../http/streams';
import { BufferPool, EXPORTS } from '@studio/engine';
import { compileForCaller } from '../services/pipelines';
import { createHash } from 'node:crypto';
import { joinRun } from '../services/shared-runs';
import fs from 'node:fs/promises';
import { readSharedArrow } from '../services/shared-arrow';
import { workbookTableFile } from '../services/dataset-tables';
import { warehouseCellSql } from '../services/cell-sql';
import { TEMP_VIEW_NAME, TEMP_VIEW_PREVIEW_MAX } from '../services/temp-views';
import type { ParamValues } from '../services/executions';

/**
 * Compilations in flight, by who asks and what: identical requests at once (ten tabs, twin widgets) share
 * one. Each reads the catalog several times (datasets, access, the connection), and on the embedded catalog
 * those reads queue behind each other. The entry goes as soon as it settles: nothing is kept.
 */
const compiling = new Map<string, ReturnType<typeof compileForCaller>>();

function compileShared(services: RouteContext<unknown, unknown, unknown>['services'], caller: Caller, body: unknown, opts: { pushDown: boolean }) {
  const key = createHash('sha256').update(JSON.stringify([caller.user.id, caller.credentialId, caller.isAdmin, caller.orgIds, opts.pushDown, body])).digest('base64url');
  let compiled = compiling.get(key);
  if (!compiled) {
    const c = compileForCaller(services, caller, body, opts);
    compiling.set(key, c);
    const forget = () => compiling.get(key) === c && compiling.delete(key);
    c.then(forget, forget);
    compiled = c;
  }
  return compiled;
}

const Format = z.enum(['arrow', 'csv', 'json']);
/** How many of a new temporary view's first rows its answer holds (with their column types). */
const Preview = z.coerce.number().int().min(0).max(TEMP_VIEW_PREVIEW_MAX).default(0);
/** A view of the caller's that the new one supersedes (a workbook cell run again): dropped once the new one is written. */
const Replaces = z.string().regex(TEMP_VIEW_NAME, 'replaces names a temporary view (temp_ and 6 letters or digits)').optional();
type Format = z.infer<typeof Format>;

function formatOf(ctx: { query: { format?: Format }; req: { headers: Record<string, unknown> } }): Format {
  const accept = String(ctx.req.headers.accept ?? '');
  return ctx.query.format ?? (accept.includes(ARROW_STREAM) ? 'arrow' : accept.includes('application/json') ? 'json' : 'csv');
}

/**
 * Results of pushed-down pipelines in flight or being read, by what they depend on (connection and its
 * settings, compiled text, values): identical pipelines at once run once on the warehouse and read the
 * same file, removed when its last reader is done (Superset names the lack of this as a bottleneck).
 */
const pushDownResults = new Map<string, SharedResult>();

interface SharedResult {
  file: string;
  ready: Promise<string>;
  readers: number;
  /** Answers rendered once per format for small results (see SMALL_RESULT_BYTES). */
  answers: Map<Format, Promise<Buffer>>;
}

/**
 * A result file up to this size is answered from one rendering per format shared by every identical
 * request at once: ten readers of a 50-row group ran ten DuckDB reads and renderings of the same rows.
 * Larger ones are streamed to each reader.
 */
const SMALL_RESULT_BYTES = 1 << 20;

function pushDownKey(pushDown: PushDown): string {
  const c = pushDown.connection;
  return createHash('sha256').update(JSON.stringify([c.id, String(c.updated_at), pushDown.sql, pushDown.values])).digest('hex');
}

/**
 * Takes a reader's place on the shared result of `key` (starting its run when it is the first); `ready`
 * answers the DuckDB SELECT that reads the result file.
 */
function readShared(key: string, start: (file: string, signal: AbortSignal) => Promise<string>, file: string, signal: AbortSignal) {
  // Every reader is a member of the run: it is cancelled only when all of them have gone (joinRun), not
  // when the first one does.
  const membership = joinRun(`rows:${key}`);
  const leave = () => membership.leave();
  signal.addEventListener('abort', leave);
  if (signal.aborted) leave();
  let entry = pushDownResults.get(key);
  if (!entry) {
    const e: SharedResult = { file, readers: 0, ready: Promise.resolve(''), answers: new Map() };
    e.ready = start(file, membership.signal);
    // A failed run is forgotten for the next caller.
    e.ready.catch(() => {
      if (pushDownResults.get(key) === e) pushDownResults.delete(key);
    });
    pushDownResults.set(key, e);
    entry = e;
  }
  entry.readers++;
  const e = entry;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    signal.removeEventListener('abort', leave);
    membership.done();
    if (--e.readers > 0) return;
    if (pushDownResults.get(key) === e) pushDownResults.delete(key);
    await fs.rm(e.file, { force: true });
  };
  /** The answer in `format` rendered once for all readers (a failed rendering is tried again by the next). */
  const answer = (format: Format, render: () => Promise<Buffer>) => {
    let rendered = e.answers.get(format);
    if (!rendered) {
      const r = render();
      e.answers.set(format, r);
      r.catch(() => e.answers.get(format) === r && e.answers.delete(format));
      rendered = r;
    }
    return rendered;
  };
  return { file: e.file, ready: e.ready, release, answer };
}

/** Every piece of a stream, joined. */
async function collect(stream: AsyncGenerator<Uint8Array | string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const piece of stream) parts.push(typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
  return Buffer.concat(parts);
}

/** Yields the stream, then lets go of the shared result it reads (whether the reader finished or went away). */
async function* thenRelease(stream: AsyncGenerator<Uint8Array | string>, release: () => Promise<void>): AsyncGenerator<Uint8Array | string> {
  try {
    yield* stream;
  } finally {
    await release();
  }
}

/**
 * A pushed-down pipeline asked as Arrow, streamed as the warehouse sends rows where its driver reads them
 * straight into Arrow (PostgreSQL's COPY): answered, or false when the driver declined this one.
 */
async function answerPushDownArrow(ctx: RouteContext<unknown, { format?: Format }, unknown>, pushDown: PushDown, signal: AbortSignal): Promise<boolean> {
  const services = ctx.services;
  const shared = await readSharedArrow(
    pushDownKey(pushDown),
    () => services.executions.pushDownFile(),
    (sink, runSignal) => services.executions.warehouseArrow(pushDown.connection, pushDown.sql, pushDown.values, sink, runSignal),
    signal,
  );
  let started: boolean;
  try {
    started = await shared.started;
  } catch (e) {
    await shared.release();
    throw e;
  }
  if (!started) {
    await shared.release();
    return false;
  }
  ctx.reply.header('x-studio-engine', storedConnection(pushDown.connection)?.type ?? 'warehouse');
  ctx.reply.header('content-type', ARROW_STREAM).send(streamBody(thenRelease(shared.read(), shared.release)));
  return true;
}

/** A pushed-down pipeline: run on the warehouse, answered in the asked format like any other. */
async function answerPushDown(ctx: RouteContext<unknown, { format?: Format }, unknown>, pushDown: PushDown) {
  const services = ctx.services;
  const signal = clientGone(ctx.reply);
  if (formatOf(ctx) === 'arrow' && (await answerPushDownArrow(ctx, pushDown, signal))) return ctx.reply;
  const file = await services.executions.pushDownFile();
  const shared = readShared(pushDownKey(pushDown), (into, runSignal) => services.executions.warehouseRows(pushDown.connection, pushDown.sql, pushDown.values, into, runSignal), file, signal);
  try {
    const source = { sql: await shared.ready, params: [] };
    ctx.reply.header('x-studio-engine', storedConnection(pushDown.connection)?.type ?? 'warehouse');
    const format = formatOf(ctx);
    const contentType = format === 'csv' ? 'text/csv; charset=utf-8' : format === 'arrow' ? ARROW_STREAM : 'application/json; charset=utf-8';
    // A result file not there (yet) is streamed rather than read whole: the stream reports its own errors.
    const size = (await fs.stat(shared.file).catch(() => null))?.size ?? Infinity;
    if (size <= SMALL_RESULT_BYTES) {
      // Rendered without the first reader's signal: it is small, and the others wait on it too.
      const render = () => services.queryResults.render(source, format);
      let body: Buffer;
      try {
        body = await shared.answer(format, () => collect(render()));
      } catch (e) {
        throw engineError(e);
      } finally {
        await shared.release();
      }
      return ctx.reply.header('content-type', contentType).send(body);
    }
    // Primed before the content type is set: a failing query still answers its error as JSON.
    const body = await primed(services.queryResults.bytes(source, format === 'csv' ? 'csv' : 'arrow', { signal }));
    return ctx.reply.header('content-type', contentType).send(streamBody(thenRelease(format === 'json' ? services.queryResults.json(body) : body, shared.release)));
  } catch (e) {
    await shared.release();
    throw e;
  }
}

/** A pushed-down pipeline kept as a temporary view: the warehouse's rows, written as the view's Parquet file. */
async function materializePushDown(ctx: RouteContext<unknown, { preview: number; replaces?: string }, unknown>, caller: Caller, pushDown: PushDown) {
  const services = ctx.services;
  const plan = await services.executions.connectionPlan(pushDown.connection, pushDown.sql, pushDown.values as ParamValues);
  const signal = clientGone(ctx.reply);
  const view = await services.tempViews.createWith(caller.user.id, (file) => plan.produce(file, signal), ctx.query.preview, ctx.query.replaces);
  const engine = storedConnection(pushDown.connection)?.type ?? 'warehouse';
  ctx.reply.header('x-studio-engine', engine);
  return ctx.reply.code(201).send({ item: { ...view, engine } });
}

export const queryRoutes = [
  defineRoute({
    spec: ['QRY-001'],
    method: 'POST',
    url: '/v1/query',
    summary: 'Run a query pipeline over datasets the caller can read; answers Arrow IPC, CSV (default) or JSON, streamed; materialize=true keeps the result 60 s as a temporary view named in later pipelines (with preview=N, the answer holds its first N rows and their column types)',
    tag: 'query',
    auth: 'user',
    transaction: false,
    query: z.object({ format: Format.optional(), materialize: QueryBool.optional(), preview: Preview, replaces: Replaces }),
    body: z.unknown(),
    produces: QUERY_ANSWER_TYPES,
    // With materialize=true (201): the temporary view.
    response: itemOf(TempViewWire.extend({ engine: z.string() })),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      // Over live datasets of one warehouse the pipeline runs there; its result is streamed from a temp file.
      const compiled = await compileShared(ctx.services, caller, ctx.body, { pushDown: true });
      if (compiled.pushDown && ctx.query.materialize) return materializePushDown(ctx, caller, compiled.pushDown);
      if (compiled.pushDown) return answerPushDown(ctx, compiled.pushDown);
      if (ctx.query.materialize) {
        // Kept as a temporary view (60 s); later pipelines name it as {type: 'dataset', uuid: name}.
        let view;
        try {
          view = await ctx.services.tempViews.create(caller.user.id, compiled, ctx.query.preview, ctx.query.replaces);
        } catch (e) {
          throw duckdbQueryError(e);
        }
        return ctx.reply.code(201).send({ item: { ...view, engine: 'duckdb' } });
      }
      const format = formatOf(ctx);
      // A client that goes away stops the query: the engine interrupts DuckDB on abort.
      const signal = clientGone(ctx.reply);
      const source = { sql: compiled.sql, params: compiled.params };
      if (format === 'csv') {
        const body = await primed(ctx.services.queryResults.bytes(source, 'csv', { signal }));
        return ctx.reply.header('content-type', 'text/csv; charset=utf-8').send(streamBody(body));
      }
      const arrow = await primed(ctx.services.queryResults.bytes(source, 'arrow', { signal }));
      if (format === 'arrow') return ctx.reply.header('content-type', ARROW_STREAM).send(streamBody(arrow));
      return ctx.reply.header('content-type', 'application/json; charset=utf-8').send(streamBody(ctx.services.queryResults.json(arrow)));
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/query/sql',
    summary:
      "Run one SELECT in the SQL sandbox over datasets the caller reads and the caller's temporary views (named as they are, or by the names given in `tables`: a workbook's cells), keeping the result as a temporary view (60 s) that later pipelines and SQL name; answers the view (name, expiresAt, rowCount; with preview=N its first N rows and their column types)",
    tag: 'query',
    auth: 'user',
    transaction: false,
    status: 201,
    response: z.object({ item: TempViewWire }),
    query: z.object({ preview: Preview, replaces: Replaces }),
    body: z.object({
      query: z.string().trim().min(1, 'Query must not be empty').max(1_000_000),
      tables: z
        .record(
          CellName,
          z.string().regex(TEMP_VIEW_NAME, 'Tables name temporary views (temp_ and 6 letters or digits)'),
        )
        .default({}),
      /**
       * The pipelines of the cells the query names: when they all run on one warehouse, the query runs
       * there in its dialect, over them (`engine` in the answer names it); otherwise on DuckDB over `tables`.
       */
      pipelines: z.record(CellName, z.unknown()).optional(),
    }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const services = ctx.services;
      const signal = clientGone(ctx.reply);
      const onWarehouse = ctx.body.pipelines ? await warehouseCellSql(services, caller, ctx.body.query, ctx.body.pipelines) : null;
      if (onWarehouse) return materializePushDown(ctx as RouteContext<unknown, { preview: number; replaces?: string }, unknown>, caller, onWarehouse);
      const cells = new Map(Object.entries(ctx.body.tables).map(([name, view]) => [name.toLowerCase(), view]));
      const as = { userId: caller.user.id, signal };
      const safe = await services.sandbox.compile(ctx.body.query, (name) => workbookTableFile(services, caller, name, cells), as);
      const view = await services.tempViews.createWith(caller.user.id, (file) => services.sandbox.copyToParquet(safe, {}, file, as), ctx.query.preview, ctx.query.replaces);
      return ctx.reply.code(201).send({ item: { ...view, engine: 'duckdb' } });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/query/views/{name}/data',
    summary: `One of the caller's temporary views (a workbook cell's result) as a download: CSV by default; GeoJSON, Parquet (GeoParquet), an Arrow IPC stream, FlatGeobuf, GeoPackage (gpkg) or KML by ?format=. ${SPREADSHEET_SUMMARY}`,
    tag: 'query',
    auth: 'user',
    params: z.object({ name: z.string().regex(TEMP_VIEW_NAME, 'Not a temporary view name') }),
    query: SpreadsheetQuery.extend({ format: DatasetDownloadFormat.default('csv') }),
    produces: EXPORT_TYPES,
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const { file, shape, location } = await ctx.services.tempViews.shapeOf(caller.user.id, ctx.params.name);
      const { mediaType, extension } = EXPORTS[ctx.query.format];
      const pool = ctx.query.format === 'arrow' ? new BufferPool() : undefined;
      const stream = await primed(ctx.services.queryResults.exportFile(file, ctx.query.format, { signal: clientGone(ctx.reply), pool, location, shape, spreadsheet: ctx.query.spreadsheet }));
      ctx.reply.header('content-type', mediaType).header('content-disposition', `attachment; filename="${ctx.params.name}.${extension}"`);
      return sendStream(ctx.reply, stream, pool);
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
    response: itemOf(
      z.object({
        type: z.literal('FeatureCollection'),
        features: z.array(
          z.object({
            type: z.literal('Feature'),
            properties: z.object({ hex: z.string() }),
            geometry: z.object({ type: z.enum(['Point', 'Polygon']), coordinates: z.array(z.unknown()) }),
          }),
        ),
      }),
    ),
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
