import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
  /** Signing and encryption key material; generated and kept in the catalog when absent. */
  secret: string | null;
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
    webDir: env.STUDIO_WEB_DIR ? path.resolve(env.STUDIO_WEB_DIR) : DEFAULT_WEB_DIR,
    publicUrl: env.STUDIO_PUBLIC_URL ?? `http://${host}:${port}`,
    logLevel: env.LOG_LEVEL ?? 'warn',
    authCacheMs: Number(env.STUDIO_AUTH_CACHE_MS ?? 2000),
    duckdbMemory: env.STUDIO_DUCKDB_MEMORY ?? '512MB',
    listCacheEntries: Number(env.STUDIO_LIST_CACHE_ENTRIES ?? 10_000),
  };
}
