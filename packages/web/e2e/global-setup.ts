import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { builds, SERVER_DIST, WEB_TEST_DIST } from '../../../scripts/builds.mjs';
import { CHROMIUM } from './browser';
import startWarehouse, { type WarehouseServer } from '../../server/test/warehouse-server';
import { startS3Server } from '../../warehouses/test/servers/s3';

/** The bucket of the storage-connection browser test: a folder with a CSV of places. */
export const E2E_BUCKET = { name: 'e2e-lake', key: 'exports/stores.csv', csv: 'name,lat,lng,category\nFerry Building,37.7955,-122.3937,landmark\nCoit Tower,37.8024,-122.4058,landmark\nTartine,37.7614,-122.4241,cafe\n' };

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(webDir, '../..');

export const ADMIN = { email: 'admin@e2e.studio.test', password: 'e2e-admin-password-1' };

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    adminEmail: string;
    adminPassword: string;
    /** The local S3-compatible server holding E2E_BUCKET (keys: S3_KEYS). */
    s3Endpoint: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// 240 s: at load 22 on the 2-core machine (other suites and the flake check's busy loops beside it) the studio did
// not answer within 90 s, twice in a row, and every browser suite of the run failed in its setup.
async function waitForHealth(url: string, server: ChildProcess, output: () => string, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`The studio server exited with code ${server.exitCode}:\n${output()}`);
    try {
      const r = await fetch(`${url}/v1/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The studio server did not answer ${url}/v1/health within ${timeoutMs / 1000}s:\n${output()}`);
}

/**
 * STUDIO_E2E_STORE=postgres: the server runs the way production does — the catalog on a new database of
 * the local PostgreSQL, rate limits and result caches in Redis under a prefix of its own — and both are
 * removed at the end. Otherwise the embedded default (PGlite, in-process caches).
 */
async function productionStores(): Promise<{ env: Record<string, string>; drop: () => Promise<void> } | null> {
  if (process.env.STUDIO_E2E_STORE !== 'postgres') return null;
  const { default: pg } = await import('pg');
  const adminUrl = process.env.STUDIO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `studio_e2e_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), STUDIO_SECRET: 'e2e-master-key-on-postgres', REDIS_URL: 'redis://127.0.0.1:6379', STUDIO_REDIS_PREFIX: `${name}:` },
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Builds the app when needed, starts the real server on a free port, and stops it at the end. */
export default async function setup(project: TestProject) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install chromium). It is missing.`);
  }
  // The builds production runs, made again when a source is newer: testing an old build would test old code. The web
  // app's test build: production's bundle plus the map hooks the tests (and the map bench) read.
  await builds({ ifStale: true, testBuild: true });

  // A PostgreSQL server of its own for the connector tests (the catalog's server is never reachable through a
  // connection), and the studio told it may reach it, as an administrator would (STUDIO_CONNECTION_HOSTS).
  let warehouse: WarehouseServer | undefined;
  const stopWarehouse = await startWarehouse({
    provide: (key: string, value: WarehouseServer) => {
      warehouse = value;
      project.provide(key as 'warehouseServer', value);
    },
  } as unknown as TestProject);
  const s3 = await startS3Server(E2E_BUCKET.name, { [E2E_BUCKET.key]: E2E_BUCKET.csv, 'notes/readme.txt': 'not data' });
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-e2e-'));
  const stores = await productionStores();
  let log = '';
  // The compiled server, as the README's deployment runs it, by the node running Vitest (the pinned 22).
  // Its own process group, so the stop below reaches anything it starts.
  const server = spawn(process.execPath, [path.join(SERVER_DIST, 'main.js')], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      STUDIO_DATA_DIR: dataDir,
      STUDIO_ADMIN_EMAIL: ADMIN.email,
      STUDIO_ADMIN_PASSWORD: ADMIN.password,
      STUDIO_WEB_DIR: WEB_TEST_DIST,
      LOG_LEVEL: 'warn',
      // Each answer of a route that declares its response is checked against it (as in the API tests).
      STUDIO_CHECK_ANSWERS: 'on',
      STUDIO_CONNECTION_HOSTS: `${warehouse!.host}:${warehouse!.port},127.0.0.1:${s3.port}`,
      ...stores?.env,
    },
  });
  server.stdout!.on('data', (d) => (log += d));
  server.stderr!.on('data', (d) => (log += d));
  const baseUrl = `http://127.0.0.1:${port}`;

  const stop = async () => {
    // STUDIO_E2E_LOG=<file>: the server's own log (warnings and errors) kept for a failing run's reader.
    if (process.env.STUDIO_E2E_LOG) fs.writeFileSync(process.env.STUDIO_E2E_LOG, log);
    if (server.exitCode === null && server.pid) {
      const exited = new Promise((r) => server.once('exit', r));
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-server.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    await stores?.drop();
    stopWarehouse();
    await s3.close();
  };

  try {
    await waitForHealth(baseUrl, server, () => log);
  } catch (e) {
    await stop();
    throw e;
  }
  project.provide('baseUrl', baseUrl);
  project.provide('adminEmail', ADMIN.email);
  project.provide('adminPassword', ADMIN.password);
  project.provide('s3Endpoint', s3.endpoint);
  return stop;
}
