import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { StudioConfig } from './config';
import { openCatalog, type CatalogStore } from './store/db';
import { buildServices, type Services } from './services';
import { installErrorHandling } from './http/errors';
import { installJsonBodyParser } from './http/json-body';
import { registerRoutes, type RouteDef } from './http/route';
import { DOCS_PAGE, DOCS_SCRIPT, openApiDocument } from './http/openapi';
import { embeddablePage, embeddableResource, installSecurityHeaders } from './http/security-headers';
import { EMBED_SCRIPT } from './http/embed-script';
import { allRoutes } from './routes';
import { closeWarehouseSessions } from '@studio/warehouses';
import { bestEffort, reportFailure, reportFailuresTo } from '@studio/schema';
import { every } from './services/every';
import { hexTileJob } from './services/hextiles';
import { datasetTiles, vectorTiles } from './services/vector-tiles';
import { executionJob } from './services/execution-jobs';
import { uploadJob } from './services/upload-jobs';
import { historyThinning } from './services/history-retention';
import { geometryRepairJob, startGeometryRepair } from './services/geometry-repair-job';

export interface Studio {
  app: FastifyInstance;
  services: Services;
  store: CatalogStore;
  routes: RouteDef[];
  /** `jobsBy` (epoch ms): jobs still running then are handed back to the queue (stop.ts's deadline); else after 5 s. */
  close(opts?: { jobsBy?: number }): Promise<void>;
}

/**
 * A request's id: the one a proxy in front passed in X-Request-Id when it is a plain token (so one id
 * follows the request through both logs), else a new random one.
 */
function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{8,100}$/.test(given) ? given : randomUUID();
}

/** Builds the whole server (not listening): catalog, services, routes, docs and the web app. */
export async function buildStudio(config: StudioConfig, opts: { inMemoryCatalog?: boolean; logger?: boolean } = {}): Promise<Studio> {
  const store = await openCatalog({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, inMemory: opts.inMemoryCatalog });
  const services = await buildServices(config, store.db);
  services.jobs.register(hexTileJob(services));
  services.jobs.register(services.refresh.job());
  services.jobs.register(vectorTiles(services).job());
  services.jobs.register(datasetTiles(services).job());
  services.jobs.register(executionJob(services));
  services.jobs.register(uploadJob(services));
  services.jobs.register(geometryRepairJob(services));
  const thinning = historyThinning(services);
  services.jobs.register(thinning.job());
  await services.jobs.start(store.jobDatabase, {
    worker: config.role !== 'api',
    heartbeatSeconds: config.jobHeartbeatSeconds,
    pollingIntervalSeconds: config.jobPollSeconds,
    onError: (err) => reportFailure('The job queue', err),
  });
  await services.datasets.failOwnInterrupted();
  await services.datasets.failStalePending();
  // Datasets made before ingest cut geometry at the antimeridian get the same repair, once, in the background.
  await bestEffort(startGeometryRepair(services), "Starting the repair of datasets' geometry");
  await services.executions.failInterrupted({ ownOnly: true });
  await services.executions.failInterrupted();
  // Every node sweeps, now and each minute, what a stopped node left behind: datasets pending, executions running.
  const stopSweeping = [services.datasets.startSweeping(), every(60_000, () => services.executions.failInterrupted(), 'Sweeping interrupted query executions')];
  // Nodes that run jobs also start the live datasets' scheduled refreshes (any of them; a row lock picks one).
  if (config.role !== 'api') stopSweeping.push(services.refresh.startScheduling());
  // And the daily thinning of versions by the administrators' retention (#51; once a day, whichever node claims it).
  if (config.role !== 'api') stopSweeping.push(thinning.startScheduling());
  const app = Fastify({
    logger: opts.logger ? { level: config.logLevel } : false,
    bodyLimit: 64 * 1024 * 1024,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: requestIdOf,
  });
  // Best-effort work (clean-ups, cancels, heartbeats, sweeps) that fails is logged, never silently dropped.
  if (opts.logger) reportFailuresTo((what, err) => app.log.warn({ err }, `${what} failed`));
  // Every answer names its request (X-Request-Id, and `requestId` in error bodies): a user's report
  // of a failure finds its log lines.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // Request counts and latencies for /metrics, by route pattern.
  app.addHook('onResponse', async (req, reply) => {
    services.metrics.observe(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  // A worker-only node (STUDIO_ROLE=worker) runs background jobs; of the API it answers only health and metrics.
  if (config.role === 'worker') {
    const served = new Set(['/v1/health', '/v1/ready', '/metrics']);
    app.addHook('onRequest', async (req, reply) => {
      if (!served.has(req.url.split('?')[0]!)) return reply.code(503).send({ appStatusCode: 503, message: 'This node only runs background jobs (STUDIO_ROLE=worker)', requestId: req.id });
    });
  }
  await installSecurityHeaders(app);
  installErrorHandling(app);
  installJsonBodyParser(app);
  // Bodies that are not JSON (files, images) reach handlers as the raw stream: uploads never buffer.
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  // Per-route limits (RouteDef.rateLimit) use the plugin's counters: in Redis when REDIS_URL is set, so
  // every node shares them. No global limit; routes opt in, and http/route.ts keys them per caller.
  const { limits } = services;
  await app.register(rateLimit, { global: false, ...(limits.redis ? { redis: limits.redis, nameSpace: `${limits.prefix}route:` } : {}) });
  const routes = allRoutes;
  registerRoutes(app, routes, services);
  // Built on first request, not at start: 351 declared answers make it ~1.35 MB and ~0.3 s of CPU.
  let doc: Record<string, unknown> | undefined;
  app.get('/v1/openapi.json', async () => (doc ??= openApiDocument(routes)));
  app.get('/docs', async (_req, reply) => reply.type('text/html').send(DOCS_PAGE));
  app.get('/docs/app.js', async (_req, reply) => reply.type('text/javascript').send(DOCS_SCRIPT));
  // The embed script, loaded by pages anywhere (a cross-origin <script>): readable by any origin.
  app.get('/embed.js', async (_req, reply) => {
    embeddableResource(reply);
    return reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300').type('text/javascript').send(EMBED_SCRIPT);
  });

  if (config.webDir && fs.existsSync(path.join(config.webDir, 'index.html'))) {
    const { default: fastifyStatic } = await import('@fastify/static');
    // The build's source maps stay on the server (an error report is read against them there), never served.
    const servable = (file: string) => !file.endsWith('.map');
    await app.register(fastifyStatic, { root: config.webDir, prefix: '/', wildcard: false, index: false, allowedPath: servable });
    const index = fs.readFileSync(path.join(config.webDir, 'index.html'));
    // Client-side routes (/workspace/..., /{mapId}) all answer the app's index page.
    app.get('/*', async (req, reply) => {
      // API paths never fall back to the app: an unknown call is a JSON 404.
      if (req.url.startsWith('/v1/') || req.url === '/v1') {
        return reply.code(404).send({ appStatusCode: 404, message: `No route for GET ${req.url.split('?')[0]}`, requestId: req.id });
      }
      const file = path.join(config.webDir!, decodeURIComponent(req.url.split('?')[0]!));
      if (file.startsWith(config.webDir!) && servable(file) && fs.existsSync(file) && fs.statSync(file).isFile()) return reply.sendFile(path.relative(config.webDir!, file));
      // A published map's page is meant for other sites' frames (the publish dialog's embed code).
      if (req.url.startsWith('/public/')) embeddablePage(reply);
      return reply.type('text/html').send(index);
    });
  }

  let closing: Promise<void> | undefined;
  return {
    app,
    services,
    store,
    routes,
    // Once: a second call (a doubled signal, a test's clean-up after a stop) waits for the first.
    close: (opts = {}) => (closing ??= (async () => {
      for (const stop of stopSweeping) stop();
      await app.close();
      // Running jobs go back to the queue (another node retries them) before the catalog closes.
      await services.jobs.stop(opts.jobsBy === undefined ? undefined : opts.jobsBy - Date.now());
      await services.limits.close();
      await services.tempViews.close();
      await services.sandbox.close();
      await services.conversions.close();
      services.engine.close();
      await closeWarehouseSessions();
      await store.close();
    })()),
  };
}
