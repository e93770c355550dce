import path from 'node:path';
import { z } from 'zod';
import { parseS3Location } from '@studio/engine';
import { DEFAULT_DRIVER_SETTINGS, type DriverSettings } from '@studio/warehouses';
import { fileURLToPath } from 'node:url';
import { parseHostPatterns, type HostPattern } from './services/network-reach';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './services/rate-limits';
import { bytesOf } from './services/user-work/sizes';
import { DEFAULT_MAP_TILE_THRESHOLD, type MapTileThreshold } from '@studio/schema';

/** The web app's build output, served on the API's port when present. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

/** Bounds on what one user's request may take (README, configuration; docs/decisions.md "User work out of the API process"). */
export interface UserWorkSettings {
  /** STUDIO_SQL_WORKERS: processes that run user SQL. */
  sqlWorkers: number;
  /** STUDIO_SQL_TIMEOUT_MS: user SQL is cancelled in DuckDB after this long. */
  sqlTimeoutMs: number;
  /** STUDIO_SQL_SPILL: the most one query's instance may spill to disk (a DuckDB size). */
  sqlSpill: string;
  /** STUDIO_WORKER_MEMORY: resident memory a worker process may reach before it is killed (bytes). */
  workerMemoryBytes: number;
  /** STUDIO_SQL_USER_RUNNING and STUDIO_SQL_USER_QUEUED: one user's queries at once, and waiting; past both, 429. */
  perUser: { running: number; queued: number };
  /** STUDIO_TEMP_VIEWS_PER_USER: temporary views one user may keep alive at once. */
  tempViewsPerUser: number;
  /** STUDIO_CONVERT_TIMEOUT_MS: an upload's conversion (Shapefile, KML, FlatGeobuf, Excel, Arrow) is stopped after this long. */
  convertTimeoutMs: number;
}

/** Everything the server reads from its environment (documented in the README). */
export interface StudioConfig {
  port: number;
  host: string;
  /** Embedded data: the PGlite catalog, uploaded files, Parquet. */
  dataDir: string;
  /** STUDIO_H3_WORKERS: threads each process (the API's, each user-work process) gives the H3 functions; 0: the JS thread only; null: cores − 1, at most 8. */
  h3Workers: number | null;
  /** STUDIO_SAMPLES (on by default): the sample datasets, maps, dashboard, workbook and analytic panel made at start. */
  samples: boolean;
  /** A real PostgreSQL instead of the embedded PGlite. */
  databaseUrl: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  /** STUDIO_SECRET: signing and encryption key material; when absent, the key file holds it. */
  secret: string | null;
  /** STUDIO_KEY_FILE: the master key's file (0600); null means <dataDir>/master.key. Never in the catalog. */
  keyFile: string | null;
  /** STUDIO_NODE_ID: this API node's name in pending ingestions; null: an id kept in <dataDir>/node-id. */
  nodeId: string | null;
  /** Built web app to serve on the same port, when present. */
  webDir: string | null;
  /** Public origin used in printed links. */
  publicUrl: string;
  logLevel: string;
  /** How long a resolved bearer credential is reused (ms); 0 turns the cache off. */
  authCacheMs: number;
  /** DuckDB's memory limit; work beyond it spills to STUDIO_DATA_DIR/tmp. */
  duckdbMemory: string;
  /** List answers kept in memory per node, valid until the next catalog write; 0 turns the cache off. */
  listCacheEntries: number;
  /** Hot tiles kept in memory per node (MB), encoded as they are answered; 0 turns the cache off. */
  tileCacheMb: number;
  /** Locked DuckDB instances kept for user SQL (one per set of dataset files), sharing duckdbMemory. */
  sandboxInstances: number;
  /** Bounds on the work users start: user SQL and uploads' conversion run in worker processes (services/user-work). */
  userWork: UserWorkSettings;
  /** STUDIO_CONNECTION_HOSTS: private, loopback and link-local hosts data connections may reach. */
  connectionHosts: HostPattern[];
  /** Limits of every warehouse driver (STUDIO_WAREHOUSE_STATEMENT_TIMEOUT_MS, STUDIO_WAREHOUSE_MAX_ROWS, STUDIO_DUCKDB_FOLDERS). */
  warehouse: DriverSettings;
  /** REDIS_URL: rate-limit counters shared by every API node; null keeps them in this process. */
  redisUrl: string | null;
  /** STUDIO_REDIS_PREFIX: prefix of this installation's keys in Redis. */
  redisPrefix: string;
  /** Throttling of sign-ins, map passwords and costly calls (code defaults; tests may raise them). */
  rateLimits: RateLimitSettings;
  /** STUDIO_TRUST_PROXY: whose X-Forwarded-For names the client (unset or false: nobody's; true: anyone's; else these addresses). */
  trustProxy: boolean | string;
  /** STUDIO_WIDGET_TIMEOUT_MS: a dashboard widget's query is cancelled after this long (ms). */
  widgetTimeoutMs: number;
  /** SMTP_URL: where report invitations are sent (smtp://user:pass@host:port); null: the inviter is shown the links. */
  smtpUrl: string | null;
  /** The sender of report invitations (SMTP_FROM); the inviter is the Reply-To. Unset: the inviter's own address. */
  smtpFrom: string | null;
  /**
   * STUDIO_ROLE: `all` (default) serves the API and runs background jobs; `api` serves without running jobs
   * (it still queues and cancels them); `worker` runs jobs and serves only /v1/health and /v1/ready.
   */
  role: 'all' | 'api' | 'worker';
  /**
   * STUDIO_CHECK_ANSWERS=on (the test suites set it): each answer of a route that declares its response is checked
   * against the declaration, and one outside it fails the call with 500. Off in production: the check costs a parse.
   */
  checkAnswers: boolean;
  /** STUDIO_JOB_HEARTBEAT_SECONDS (at least 10): a job whose node stops beating this long is retried by another node. */
  jobHeartbeatSeconds: number;
  /** STUDIO_JOB_POLL_SECONDS (1 to 300): how often a worker asks the queue for jobs queued by other nodes (its own node's start at once). */
  jobPollSeconds: number;
  /**
   * STUDIO_OBJECT_STORE: where datasets' files live — null for the local folder <dataDir>/objects, or an S3
   * bucket (`s3://bucket/prefix`) shared by every node, reached at STUDIO_S3_ENDPOINT (default AWS) in
   * STUDIO_S3_REGION, with the AWS SDK's credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or a role).
   */
  objectStore: { bucket: string; prefix: string; endpoint: string | null; region: string; forcePathStyle: boolean; credentials: { accessKeyId: string; secretAccessKey: string } | null } | null;
  /** STUDIO_OBJECT_CACHE_MB: this node's read-through copies of a remote store's objects (DuckDB reads local files). */
  objectCacheMb: number;
  /** STUDIO_SENTRY_DSN: where the web app's error reports go (a Sentry-compatible server); null keeps them for the administrators. */
  sentryDsn: string | null;
  /**
   * STUDIO_MAP_TILE_ROWS and STUDIO_MAP_TILE_BYTES (#50): a table dataset past either (rows, or bytes of stored
   * Parquet) is drawn on a map from its own vector tiles instead of downloading all its rows; each layer may override it.
   */
  mapTileThreshold: MapTileThreshold;
}

/** An unset or empty variable: the default applies. */
const unset = (v: unknown) => (v === '' ? undefined : v);
const text = () => z.preprocess(unset, z.string().optional());
const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(unset, z.coerce.number({ error: `must be a whole number from ${min}` }).int(`must be a whole number from ${min}`).min(min, `must be a whole number from ${min}`).max(max, `must be at most ${max}`).optional());
const size = () => z.preprocess(unset, z.string().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'must be a size such as 512MB or 2GB').optional());
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const url = (schemes: string[]) =>
  z.preprocess(
    unset,
    z
      .string()
      .refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol), `must be a URL starting with ${schemes.map((p) => `${p}//`).join(' or ')}`)
      .optional(),
  );

/**
 * Every environment variable the server reads, with what it expects (documented in the README). A bad
 * value stops the start naming the variable and what it expects; unset or empty takes the default.
 */
export const ConfigEnv = z.object({
  PORT: wholeNumber(0, 65535),
  HOST: text(),
  STUDIO_DATA_DIR: text(),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  STUDIO_ADMIN_EMAIL: z.preprocess(unset, z.email('must be an email address').optional()),
  STUDIO_ADMIN_PASSWORD: text(),
  STUDIO_SECRET: text(),
  STUDIO_KEY_FILE: text(),
  STUDIO_NODE_ID: z.preprocess(unset, z.string().regex(/^[\w.-]{1,100}$/, 'must be letters, digits, ".", "_" or "-" (at most 100)').optional()),
  STUDIO_WEB_DIR: text(),
  STUDIO_PUBLIC_URL: url(['http:', 'https:']),
  LOG_LEVEL: z.preprocess(unset, z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional()),
  STUDIO_AUTH_CACHE_MS: wholeNumber(0),
  STUDIO_DUCKDB_MEMORY: size(),
  STUDIO_LIST_CACHE_ENTRIES: wholeNumber(0),
  STUDIO_TILE_CACHE_MB: wholeNumber(0),
  STUDIO_SANDBOX_INSTANCES: wholeNumber(1),
  STUDIO_SQL_WORKERS: wholeNumber(1, 64),
  STUDIO_H3_WORKERS: wholeNumber(0, 64),
  STUDIO_SQL_TIMEOUT_MS: wholeNumber(1),
  STUDIO_SQL_SPILL: size(),
  STUDIO_WORKER_MEMORY: size(),
  STUDIO_SQL_USER_RUNNING: wholeNumber(1, 1000),
  STUDIO_SQL_USER_QUEUED: wholeNumber(0, 10000),
  STUDIO_TEMP_VIEWS_PER_USER: wholeNumber(1, 100),
  STUDIO_CONVERT_TIMEOUT_MS: wholeNumber(1),
  STUDIO_CONNECTION_HOSTS: text(),
  STUDIO_WAREHOUSE_STATEMENT_TIMEOUT_MS: wholeNumber(1),
  STUDIO_WAREHOUSE_MAX_ROWS: wholeNumber(1),
  STUDIO_DUCKDB_FOLDERS: text(),
  REDIS_URL: url(['redis:', 'rediss:']),
  STUDIO_REDIS_PREFIX: text(),
  STUDIO_TRUST_PROXY: text(),
  STUDIO_WIDGET_TIMEOUT_MS: wholeNumber(1),
  SMTP_URL: url(['smtp:', 'smtps:']),
  SMTP_FROM: z.preprocess(unset, z.email('must be an email address').optional()),
  STUDIO_SAMPLES: z.preprocess(unset, z.enum(['on', 'off'], { error: 'must be on or off' }).optional()),
  STUDIO_CHECK_ANSWERS: z.preprocess(unset, z.enum(['on', 'off'], { error: 'must be on or off' }).optional()),
  STUDIO_ROLE: z.preprocess(unset, z.enum(['all', 'api', 'worker'], { error: 'must be all, api or worker' }).optional()),
  STUDIO_JOB_HEARTBEAT_SECONDS: wholeNumber(10, 3600),
  STUDIO_JOB_POLL_SECONDS: wholeNumber(1, 300),
  STUDIO_OBJECT_STORE: z.preprocess(unset, z.string().refine((v) => parseS3Location(v) !== null, 'must be s3://bucket or s3://bucket/prefix').optional()),
  STUDIO_S3_ENDPOINT: url(['http:', 'https:']),
  STUDIO_S3_REGION: z.preprocess(unset, z.string().regex(/^[a-z0-9-]{1,50}$/, 'must be a region name such as us-east-1').optional()),
  STUDIO_S3_FORCE_PATH_STYLE: z.preprocess(unset, z.enum(['on', 'off'], { error: 'must be on or off' }).optional()),
  STUDIO_OBJECT_CACHE_MB: wholeNumber(16),
  STUDIO_MAP_TILE_ROWS: wholeNumber(1),
  STUDIO_MAP_TILE_BYTES: size(),
  STUDIO_SENTRY_DSN: z.preprocess(
    unset,
    z.string().refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol) && !!new URL(v).username && /\/[^/]+$/.test(new URL(v).pathname), 'must be a DSN such as https://<key>@<host>/<project>').optional(),
  ),
  AWS_ACCESS_KEY_ID: text(),
  AWS_SECRET_ACCESS_KEY: text(),
});

/** A configuration the server cannot start with: each bad variable, what it expects and what it got. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`The studio cannot start with this configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * STUDIO_TRUST_PROXY: unset trusts nobody's X-Forwarded-For (the studio faces its clients); `true` anyone's
 * (only behind a proxy that overwrites it); else the proxies' addresses or CIDRs, comma-separated.
 */
function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === 'false') return false;
  return raw === 'true' ? true : raw;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): StudioConfig {
  const parsed = ConfigEnv.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0]);
        return `${name} ${i.message}, got ${JSON.stringify(env[name])}`;
      }),
    );
  }
  const e = parsed.data;
  const port = e.PORT ?? 8080;
  const host = e.HOST ?? '127.0.0.1';
  let connectionHosts: HostPattern[];
  try {
    connectionHosts = parseHostPatterns(e.STUDIO_CONNECTION_HOSTS);
  } catch (err) {
    throw new ConfigError([(err as Error).message]);
  }
  return {
    port,
    host,
    dataDir: path.resolve(e.STUDIO_DATA_DIR ?? './.studio'),
    samples: e.STUDIO_SAMPLES !== 'off',
    h3Workers: e.STUDIO_H3_WORKERS ?? null,
    databaseUrl: e.DATABASE_URL ?? null,
    adminEmail: e.STUDIO_ADMIN_EMAIL ?? null,
    adminPassword: e.STUDIO_ADMIN_PASSWORD ?? null,
    secret: e.STUDIO_SECRET ?? null,
    keyFile: e.STUDIO_KEY_FILE ? path.resolve(e.STUDIO_KEY_FILE) : null,
    nodeId: e.STUDIO_NODE_ID ?? null,
    webDir: e.STUDIO_WEB_DIR ? path.resolve(e.STUDIO_WEB_DIR) : DEFAULT_WEB_DIR,
    publicUrl: e.STUDIO_PUBLIC_URL ?? `http://${host}:${port}`,
    logLevel: e.LOG_LEVEL ?? 'info',
    authCacheMs: e.STUDIO_AUTH_CACHE_MS ?? 2000,
    duckdbMemory: e.STUDIO_DUCKDB_MEMORY ?? '512MB',
    listCacheEntries: e.STUDIO_LIST_CACHE_ENTRIES ?? 10_000,
    tileCacheMb: e.STUDIO_TILE_CACHE_MB ?? 64,
    sandboxInstances: e.STUDIO_SANDBOX_INSTANCES ?? 4,
    userWork: {
      sqlWorkers: e.STUDIO_SQL_WORKERS ?? 2,
      sqlTimeoutMs: e.STUDIO_SQL_TIMEOUT_MS ?? 60_000,
      sqlSpill: e.STUDIO_SQL_SPILL ?? '2GB',
      workerMemoryBytes: bytesOf(e.STUDIO_WORKER_MEMORY ?? '1GB'),
      perUser: { running: e.STUDIO_SQL_USER_RUNNING ?? 2, queued: e.STUDIO_SQL_USER_QUEUED ?? 10 },
      tempViewsPerUser: e.STUDIO_TEMP_VIEWS_PER_USER ?? 20,
      convertTimeoutMs: e.STUDIO_CONVERT_TIMEOUT_MS ?? 300_000,
    },
    connectionHosts,
    warehouse: {
      connectTimeoutMs: DEFAULT_DRIVER_SETTINGS.connectTimeoutMs,
      statementTimeoutMs: e.STUDIO_WAREHOUSE_STATEMENT_TIMEOUT_MS ?? DEFAULT_DRIVER_SETTINGS.statementTimeoutMs,
      maxRows: e.STUDIO_WAREHOUSE_MAX_ROWS ?? DEFAULT_DRIVER_SETTINGS.maxRows,
      duckdbFolders: (e.STUDIO_DUCKDB_FOLDERS ?? '').split(path.delimiter).filter(Boolean).map((f) => path.resolve(f)),
    },
    redisUrl: e.REDIS_URL ?? null,
    redisPrefix: e.STUDIO_REDIS_PREFIX ?? 'studio:',
    rateLimits: DEFAULT_RATE_LIMITS,
    trustProxy: trustProxy(e.STUDIO_TRUST_PROXY),
    widgetTimeoutMs: e.STUDIO_WIDGET_TIMEOUT_MS ?? 30_000,
    smtpUrl: e.SMTP_URL ?? null,
    smtpFrom: e.SMTP_FROM ?? null,
    role: e.STUDIO_ROLE ?? 'all',
    checkAnswers: e.STUDIO_CHECK_ANSWERS === 'on',
    jobHeartbeatSeconds: e.STUDIO_JOB_HEARTBEAT_SECONDS ?? 10,
    jobPollSeconds: e.STUDIO_JOB_POLL_SECONDS ?? 1,
    objectStore: e.STUDIO_OBJECT_STORE
      ? {
          ...parseS3Location(e.STUDIO_OBJECT_STORE)!,
          endpoint: e.STUDIO_S3_ENDPOINT ?? null,
          region: e.STUDIO_S3_REGION ?? 'us-east-1',
          // S3-compatible servers (MinIO, Ceph, s3rver) name the bucket in the path; AWS in the host.
          forcePathStyle: (e.STUDIO_S3_FORCE_PATH_STYLE ?? (e.STUDIO_S3_ENDPOINT ? 'on' : 'off')) === 'on',
          // Keys in the environment are used as given; without them the SDK's chain finds a profile or a role.
          credentials: e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY } : null,
        }
      : null,
    objectCacheMb: e.STUDIO_OBJECT_CACHE_MB ?? 2048,
    sentryDsn: e.STUDIO_SENTRY_DSN ?? null,
    mapTileThreshold: { rows: e.STUDIO_MAP_TILE_ROWS ?? DEFAULT_MAP_TILE_THRESHOLD.rows, bytes: e.STUDIO_MAP_TILE_BYTES ? bytesOf(e.STUDIO_MAP_TILE_BYTES) : DEFAULT_MAP_TILE_THRESHOLD.bytes },
  };
}

/** Secrets in a URL's user info are shown as ***. */
function withoutPassword(value: string | null): string | null {
  if (!value || !URL.canParse(value)) return value;
  const u = new URL(value);
  if (u.password) u.password = '***';
  return u.toString();
}

/** `--print-config`: the effective configuration, secrets left out (passwords, the secret, keys in URLs). */
export function printableConfig(config: StudioConfig): Record<string, unknown> {
  return {
    ...config,
    adminPassword: config.adminPassword ? '***' : null,
    secret: config.secret ? '***' : null,
    databaseUrl: withoutPassword(config.databaseUrl),
    redisUrl: withoutPassword(config.redisUrl),
    smtpUrl: withoutPassword(config.smtpUrl),
    connectionHosts: config.connectionHosts.map((h) => `${h.host}:${h.port ?? '*'}`),
    objectStore: config.objectStore && { ...config.objectStore, credentials: config.objectStore.credentials ? { accessKeyId: config.objectStore.credentials.accessKeyId, secretAccessKey: '***' } : null },
  };
}
