import path from 'node:path';
import { DEFAULT_DRIVER_SETTINGS, type DriverSettings } from '@studio/warehouses';
import { fileURLToPath } from 'node:url';
import { parseHostPatterns, type HostPattern } from './services/network-reach';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './services/rate-limits';

/** The web app's build output, served on the API's port when present. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');

/** Everything the server reads from its environment (documented in the README). */
export interface StudioConfig {
  port: number;
  host: string;
  /** Embedded data: the PGlite catalog, uploaded files, Parquet. */
  dataDir: string;
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
  /** Locked DuckDB instances kept for user SQL (one per set of dataset files), sharing duckdbMemory. */
  sandboxInstances: number;
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
  /** STUDIO_TRUST_PROXY: whose X-Forwarded-For names the client (true: anyone's; false: nobody's; else these addresses). */
  trustProxy: boolean | string;
  /** STUDIO_WIDGET_TIMEOUT_MS: a dashboard widget's query is cancelled after this long (ms). */
  widgetTimeoutMs: number;
  /** SMTP_URL: where report invitations are sent (smtp://user:pass@host:port); null: the inviter is shown the links. */
  smtpUrl: string | null;
  /** The sender of report invitations (SMTP_FROM); the inviter is the Reply-To. Unset: the inviter's own address. */
  smtpFrom: string | null;
}

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'true') return true;
  return raw === 'false' ? false : raw;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got ${raw}`);
  return n;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): StudioConfig {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const host = env.HOST ?? '127.0.0.1';
  return {
    port,
    host,
    dataDir: path.resolve(env.STUDIO_DATA_DIR ?? './.studio'),
    databaseUrl: env.DATABASE_URL || null,
    adminEmail: env.STUDIO_ADMIN_EMAIL || null,
    adminPassword: env.STUDIO_ADMIN_PASSWORD || null,
    secret: env.STUDIO_SECRET || null,
    keyFile: env.STUDIO_KEY_FILE ? path.resolve(env.STUDIO_KEY_FILE) : null,
    nodeId: env.STUDIO_NODE_ID || null,
    webDir: env.STUDIO_WEB_DIR ? path.resolve(env.STUDIO_WEB_DIR) : DEFAULT_WEB_DIR,
    publicUrl: env.STUDIO_PUBLIC_URL ?? `http://${host}:${port}`,
    logLevel: env.LOG_LEVEL ?? 'warn',
    authCacheMs: Number(env.STUDIO_AUTH_CACHE_MS ?? 2000),
    duckdbMemory: env.STUDIO_DUCKDB_MEMORY ?? '512MB',
    listCacheEntries: Number(env.STUDIO_LIST_CACHE_ENTRIES ?? 10_000),
    sandboxInstances: positiveInt(env, 'STUDIO_SANDBOX_INSTANCES', 4),
    connectionHosts: parseHostPatterns(env.STUDIO_CONNECTION_HOSTS),
    warehouse: {
      connectTimeoutMs: DEFAULT_DRIVER_SETTINGS.connectTimeoutMs,
      statementTimeoutMs: positiveInt(env, 'STUDIO_WAREHOUSE_STATEMENT_TIMEOUT_MS', DEFAULT_DRIVER_SETTINGS.statementTimeoutMs),
      maxRows: positiveInt(env, 'STUDIO_WAREHOUSE_MAX_ROWS', DEFAULT_DRIVER_SETTINGS.maxRows),
      duckdbFolders: (env.STUDIO_DUCKDB_FOLDERS ?? '').split(path.delimiter).filter(Boolean).map((f) => path.resolve(f)),
    },
    redisUrl: env.REDIS_URL || null,
    redisPrefix: env.STUDIO_REDIS_PREFIX || 'studio:',
    rateLimits: DEFAULT_RATE_LIMITS,
    trustProxy: trustProxy(env.STUDIO_TRUST_PROXY),
    widgetTimeoutMs: positiveInt(env, 'STUDIO_WIDGET_TIMEOUT_MS', 30_000),
    smtpUrl: env.SMTP_URL || null,
    smtpFrom: env.SMTP_FROM || null,
  };
}
