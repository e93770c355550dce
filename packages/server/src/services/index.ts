import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { StudioConfig } from '../config';
import type { Db } from '../store/db';
import { Secrets } from '../auth/secrets';
import { loadSecrets } from '../auth/master-key';
import { AuthService } from './auth';
import { SdkTokens } from '../auth/sdk-tokens';
import { AccessService } from './access';
import { AuditService } from './audit';
import { RecordService } from './records';
import { BlobStore, UploadPolicies } from './uploads';
import { Engine, type Converter } from '@studio/engine';
import { registerH3Functions, setH3Workers } from '@studio/pipeline';
import { registerSpatialFunctions } from '@studio/spatial';
import { DatasetService } from './datasets';
import { TempViews } from './temp-views';
import { AnalyticsService } from './analytics';
import { ExecutionService } from './executions';
import { ListCache } from './list-cache';
import { SqlSandbox } from './sql-sandbox';
import { UserWorkPool, type UserWorkPoolOptions } from './user-work/supervisor';
import { studioStores } from './object-store';
import { ClientErrorService } from './client-errors';
import { LegalService } from './legal';
import { PasswordResetService } from './password-resets';
import { NetworkReach } from './network-reach';
import { RateLimits } from './rate-limits';
import { StudioMetrics } from './metrics';
import { unitOfWork, type UnitOfWork } from '../store/unit-of-work';
import { DashboardWidgets } from './dashboards/widgets';
import { PublicationService } from './dashboards/publications';
import { PublishingService } from './publishing';
import { TagService } from './tags';
import { LockRequestService } from './lock-requests';
import { ApiKeyService } from './api-keys';
import { OrganizationService } from './organizations';
import { AdminService } from './admin';
import { JobService } from './jobs/service';
import { DatasetRefreshService } from './dataset-refresh';
import { TileCache } from '@studio/tiles';
import { ProjectStore } from './projects';
import { HistoryService } from './history';
import { DatasetSnapshots } from './dataset-snapshots';
import { catalogCalls, type CatalogCalls } from './catalog-calls';
import { QueryResults } from './query-results';

/** Everything a route handler may use; built once per server from the catalog and config. */
export interface Services extends CatalogCalls {
  config: StudioConfig;
  /** The catalog: inside a unit of work (every write request), the unit's transaction. */
  db: Db;
  /** Units of work: a request's writes and their audit record commit together (store/unit-of-work.ts). */
  units: UnitOfWork;
  secrets: Secrets;
  auth: AuthService;
  access: AccessService;
  audit: AuditService;
  records: RecordService;
  policies: UploadPolicies;
  blobs: BlobStore;
  engine: Engine;
  datasets: DatasetService;
  tempViews: TempViews;
  /** Compiled queries' rows as Arrow IPC, CSV or JSON, and temporary views as downloads. */
  queryResults: QueryResults;
  analytics: AnalyticsService;
  executions: ExecutionService;
  listCache: ListCache;
  /** Where user-written SQL runs: locked DuckDB instances that read only the caller's dataset files. */
  sandbox: SqlSandbox;
  /** The worker process uploads' files are converted in (Shapefile, KML, FlatGeobuf, Excel, Arrow). */
  conversions: UserWorkPool;
  /** What data connections may connect to (STUDIO_CONNECTION_HOSTS, never the catalog's server). */
  reach: NetworkReach;
  /** Sign-in and map-password back-off, map grants, and the store of per-route limits (Redis when REDIS_URL is set). */
  limits: RateLimits;
  /** Dashboard widget queries (cached with the analytic sets' results) and parameter choices. */
  widgets: DashboardWidgets;
  /** Published insights (dashboards) and reports. */
  publications: PublicationService;
  /** Published maps: snapshots, passwords and their grants, featured maps. */
  publishing: PublishingService;
  /** Request, work and engine metrics for Prometheus (GET /metrics). */
  metrics: StudioMetrics;
  /** Tags and their links to resources. */
  tags: TagService;
  lockRequests: LockRequestService;
  /** Users' API keys (generate, list, rename, revoke). */
  apiKeys: ApiKeyService;
  /** Organizations and invitations, as administrators manage them. */
  organizations: OrganizationService;
  /** Administrators' other calls: audit log, visibility, quotas, seats, administrators, flags, merges, provisioning. */
  admin: AdminService;
  /** Background jobs (hex tiles): queued in the catalog's database, run by any node's workers. */
  jobs: JobService;
  /** Hot tiles in memory on this node (STUDIO_TILE_CACHE_MB), keyed by tileset version. */
  tileCache: TileCache;
  /** Live datasets' refreshes: asked for, scheduled, or on open when older than their max age (as jobs). */
  refresh: DatasetRefreshService;
  /** The web app's error reports: on to the Sentry DSN, or kept for the administrators. */
  clientErrors: ClientErrorService;
  /** Legal agreements: the versions users are bound by and their consent. */
  legal: LegalService;
  /** Forgotten passwords: links by email (SMTP) or from an administrator. */
  passwordResets: PasswordResetService;
  /** Projects' folders and their items. */
  projects: ProjectStore;
  /** Saved versions of maps, dashboards and workbooks: list, open, diff, storage. */
  history: HistoryService;
  /** Datasets' kept snapshots (replaced data, pinned data): listed, and read with `?snapshot=`. */
  snapshots: DatasetSnapshots;
}

/** STUDIO_NODE_ID, or an id made once and kept in the data directory (so a restart knows its own work). */
function nodeIdOf(config: StudioConfig): string {
  if (config.nodeId) return config.nodeId;
  const file = path.join(config.dataDir, 'node-id');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `${randomUUID()}\n`);
    return fs.readFileSync(file, 'utf8').trim();
  }
}

/**
 * A worker process that ended or was killed (a crash, a hang past its time, memory past its cap), as one JSON line
 * on stderr beside the server's own log: the request it ran was answered with the reason.
 */
const workLog = (): UserWorkPoolOptions['log'] => (level, msg, details) => console[level](JSON.stringify({ level, msg, ...details }));

/** The services the dashboard widgets are built from (every service but the widgets themselves). */
export type CoreServices = Omit<Services, 'widgets' | 'refresh'>;

export async function buildServices(config: StudioConfig, catalog: Db): Promise<Services> {
  const units = unitOfWork(catalog);
  const db = units.db;
  const secrets = await loadSecrets(db, config, (line) => console.warn(line));
  const records = new RecordService(db);
  const nodeId = nodeIdOf(config);
  // One set of H3 functions for ingestion and queries: the pipeline's (fast, bit-exact with h3-js).
  const stores = await studioStores(config);
  const work = config.userWork;
  const logWork = workLog();
  // Uploads the format libraries convert (Shapefile, KML, FlatGeobuf, Excel, Arrow) are read in a worker process:
  // a file that makes a library loop or blow up ends that process, not the API.
  const conversions = new UserWorkPool({
    name: 'files',
    size: 1,
    dir: path.join(config.dataDir, 'tmp', 'conversions'),
    memoryLimit: '64MB',
    maxInstances: 1,
    spillLimit: '64MB',
    h3Workers: config.h3Workers,
    memoryCapBytes: work.workerMemoryBytes,
    log: logWork,
  });
  const convert: Converter = (format, input, outBase, options) =>
    conversions.run(
      { op: 'convert', format, input, outBase, ...(options && { options }) },
      { timeoutMs: work.convertTimeoutMs, timeoutMessage: `Reading the file took longer than ${Math.round(work.convertTimeoutMs / 1000)} s and was stopped (STUDIO_CONVERT_TIMEOUT_MS)` },
    );
  // Before the first H3 function runs: the pool starts its threads then.
  setH3Workers(config.h3Workers);
  const engine = await Engine.open({ dataDir: config.dataDir, store: stores.objects, functions: async (c) => { registerH3Functions(c); await registerSpatialFunctions(c); }, memoryLimit: config.duckdbMemory, convert });
  await engine.cleanTemp();
  const access = new AccessService(db, config.authCacheMs);
  const reach = NetworkReach.fromConfig(config);
  const limits = RateLimits.create({ settings: config.rateLimits, redisUrl: config.redisUrl, redisPrefix: config.redisPrefix, secrets });
  const sandbox = new SqlSandbox({
    dir: path.join(config.dataDir, 'tmp', 'sandbox'),
    dataDir: config.dataDir,
    memoryLimit: config.duckdbMemory,
    maxInstances: config.sandboxInstances,
    workers: work.sqlWorkers,
    timeoutMs: work.sqlTimeoutMs,
    workerMemoryBytes: work.workerMemoryBytes,
    spillLimit: work.sqlSpill,
    h3Workers: config.h3Workers,
    perUser: work.perUser,
    log: logWork,
  });
  const auth = new AuthService(db, limits.signIn, config.authCacheMs, new SdkTokens(secrets.sdkTokenKey));
  const base: CoreServices = {
    config,
    metrics: new StudioMetrics(db, engine),
    db,
    units,
    secrets,
    auth,
    access,
    audit: new AuditService(db),
    records,
    policies: new UploadPolicies(secrets),
    blobs: new BlobStore(stores.blobs, engine.tmpDir),
    engine,
    datasets: new DatasetService(db, engine, records, undefined, nodeId),
    tempViews: new TempViews(engine, work.tempViewsPerUser),
    queryResults: new QueryResults(engine),
    conversions,
    executions: new ExecutionService(db, engine, access, secrets, sandbox, reach, config.warehouse, undefined, nodeId),
    sandbox,
    reach,
    limits,
    listCache: new ListCache(db, { maxEntries: config.listCacheEntries, maxAgeMs: 60_000 }),
    analytics: new AnalyticsService(db, engine, access, { sampleDir: path.join(config.dataDir, 'analytics', 'sample'), cache: AnalyticsService.cacheFor(config) }),
    publications: new PublicationService(db, limits),
    publishing: new PublishingService(db, limits),
    tags: new TagService(db, access),
    lockRequests: new LockRequestService(db, records, async (userId, row) => {
      const who = await auth.callerOfExisting(userId);
      return Boolean(who) && ['editor', 'owner'].includes(await access.accessOf(who, row, false));
    }),
    apiKeys: new ApiKeyService(db),
    organizations: new OrganizationService(db, config),
    admin: new AdminService(db),
    jobs: new JobService(db, nodeId, async (caller, resourceId) => {
      const row = await records.get(resourceId);
      return Boolean(row) && ['editor', 'owner'].includes(await access.accessOf(caller, row!, false));
    }),
    clientErrors: new ClientErrorService(db, config.sentryDsn),
    legal: new LegalService(db),
    passwordResets: new PasswordResetService(db, config, auth),
    tileCache: new TileCache(config.tileCacheMb * 1024 * 1024),
    projects: new ProjectStore(db),
    history: new HistoryService(db),
    snapshots: new DatasetSnapshots(db, engine.store),
    ...catalogCalls(db),
  };
  // Widgets read through the other services (records, access, temp views) and share the analytic sets' cache.
  const widgets = new DashboardWidgets(base, () => base.analytics.cache, { timeoutMs: config.widgetTimeoutMs });
  return { ...base, widgets, refresh: new DatasetRefreshService(base) };
}
