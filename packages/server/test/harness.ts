import { afterAll, beforeAll, inject } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateSamplePanel, type SamplePanel } from '@studio/analytics';
import { buildStudio, type Studio } from '../src/app';
import { configFromEnv, type StudioConfig } from '../src/config';
import { openCatalog } from '../src/store/db';
import { parseHostPatterns } from '../src/services/network-reach';
import { createOrganization, createUser } from '../src/services/users';
import { hashPassword } from '../src/auth/passwords';

export const PG_ADMIN_URL = process.env.STUDIO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Stores the API suite runs against: both by default; STUDIO_TEST_STORES=pglite narrows it. */
export const STORES = (process.env.STUDIO_TEST_STORES ?? 'pglite,postgres').split(',').filter(Boolean) as ('pglite' | 'postgres')[];

export interface TestStudio extends Studio {
  dataDir: string;
  /** Signs a user in and answers their bearer header value. */
  tokenOf(email: string, password?: string): Promise<string>;
  dispose(): Promise<void>;
}

export const PASSWORD = 'correct horse battery staple';

const databaseUrlOf = (name: string) => PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);

async function adminQuery(text: string, values: unknown[] = []) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    return await admin.query(text, values);
  } finally {
    await admin.end();
  }
}

let template: Promise<string> | null = null;

/**
 * The migrated, empty catalog every PostgreSQL studio of the tests is copied from (CREATE DATABASE … TEMPLATE),
 * instead of migrating each new database: named by a hash of the migration files, so a changed migration builds
 * a new one; built under a temporary name and renamed when whole, so a run cut short never leaves half of one.
 */
function catalogTemplate(): Promise<string> {
  template ??= (async () => {
    const folder = fileURLToPath(new URL('../src/store/migrations/', import.meta.url));
    const hash = createHash('sha256');
    for (const file of (await fs.readdir(folder)).sort()) hash.update(file).update(await fs.readFile(path.join(folder, file)));
    const name = `studio_template_${hash.digest('hex').slice(0, 16)}`;
    if ((await adminQuery('select 1 from pg_database where datname = $1', [name])).rowCount) return name;
    const building = `${name}_${randomBytes(4).toString('hex')}`;
    await adminQuery(`create database ${building}`);
    const store = await openCatalog({ databaseUrl: databaseUrlOf(building), dataDir: os.tmpdir() });
    await store.close();
    try {
      await adminQuery(`alter database ${building} rename to ${name}`);
    } catch (err) {
      // Another test process finished the same template first.
      await adminQuery(`drop database if exists ${building}`);
      if (!(await adminQuery('select 1 from pg_database where datname = $1', [name])).rowCount) throw err;
    }
    return name;
  })();
  template.catch(() => (template = null));
  return template;
}

/** A whole studio on a fresh catalog: in-memory PGlite, or a new database on the local PostgreSQL. */
export async function startStudio(kind: 'pglite' | 'postgres', overrides: Partial<StudioConfig> = {}): Promise<TestStudio> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-test-'));
  let databaseUrl: string | null = null;
  let dbName: string | null = null;
  if (kind === 'postgres') {
    dbName = `studio_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`create database ${dbName} template ${await catalogTemplate()}`);
    databaseUrl = databaseUrlOf(dbName);
  }
  // Data connections may reach the test warehouse server and nothing else on this machine (#11).
  const { host, port } = inject('warehouseServer');
  const connectionHosts = parseHostPatterns(`${host}:${port}`);
  // checkAnswers: each answer of a route that declares its response is checked against it (http/route.ts).
  const config = { ...configFromEnv({}), dataDir, databaseUrl, secret: 'test-secret', connectionHosts, checkAnswers: true, ...overrides };
  const studio = await buildStudio(config, { inMemoryCatalog: true });
  const tokenOf = async (email: string, password = PASSWORD) => {
    const res = await studio.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email, password } });
    if (res.statusCode !== 200) throw new Error(`sign-in ${email}: ${res.statusCode} ${res.body}`);
    return `Bearer ${res.json().item.accessToken}`;
  };
  return {
    ...studio,
    dataDir,
    tokenOf,
    dispose: async () => {
      await studio.close();
      await fs.rm(dataDir, { recursive: true, force: true });
      if (dbName) await adminQuery(`drop database if exists ${dbName} with (force)`);
    },
  };
}

let castHash: Promise<string> | null = null;

/** The cast of the permission tests: an admin, an owner, a viewer, an editor, an outsider. */
export async function seedCast(s: TestStudio) {
  const db = s.services.db;
  const org = await createOrganization(db, 'Acme');
  const otherOrg = await createOrganization(db, 'Globex');
  // The cast shares one hash of PASSWORD (scrypt, as the studio makes it): six hashes a studio cost ~0.6 s of CPU.
  const mk = async (email: string, opts: { isAdmin?: boolean; org?: string; role?: 'viewer' | 'maker' } = {}) => {
    const user = await createUser(db, { email, isAdmin: opts.isAdmin, organizationId: opts.org ?? org.id, role: opts.role ?? 'maker' });
    await db.updateTable('users').set({ password_hash: await (castHash ??= hashPassword(PASSWORD)) }).where('id', '=', user.id).execute();
    return user;
  };
  const users = {
    admin: await mk('admin@acme.test', { isAdmin: true }),
    owner: await mk('owner@acme.test'),
    viewer: await mk('viewer@globex.test', { org: otherOrg.id }),
    editor: await mk('editor@globex.test', { org: otherOrg.id }),
    outsider: await mk('outsider@globex.test', { org: otherOrg.id }),
    colleague: await mk('colleague@acme.test', { role: 'viewer' }),
  };
  const tokens = Object.fromEntries(await Promise.all(Object.entries(users).map(async ([k, u]) => [k, await s.tokenOf(u.email)]))) as Record<keyof typeof users, string>;
  return { org, otherOrg, users, tokens };
}

export type Cast = Awaited<ReturnType<typeof seedCast>>;
export type Who = keyof Cast['tokens'];

/**
 * A studio and its cast for one describe block: started before its tests, disposed after. `as` calls
 * the API as a cast member; `ctx` holds the studio and cast once started.
 */
export function useStudio(kind: 'pglite' | 'postgres', overrides: Partial<StudioConfig> = {}) {
  const ctx = {} as { s: TestStudio; cast: Cast };
  beforeAll(async () => {
    ctx.s = await startStudio(kind, overrides);
    ctx.cast = await seedCast(ctx.s);
  });
  afterAll(async () => ctx.s?.dispose());
  const as = (who: Who, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    ctx.s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: ctx.cast.tokens[who], ...headers } });
  /** Creates through POST `url` as the owner and answers the created item (201 required). */
  const create = async (url: string, body: unknown) => {
    const res = await as('owner', 'POST', url, body);
    if (res.statusCode !== 201) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
    return res.json().item;
  };
  const rowOf = (id: string) => ctx.s.services.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return { ctx, as, create, rowOf };
}

/**
 * A scratch database on the local PostgreSQL for the file's tests, made before them with `setup` SQL and
 * dropped after: the user's own warehouse that queries are pushed down to. Answers its name.
 */
/**
 * A scratch database on the test warehouse server (test/warehouse-server.ts), owned by its non-superuser
 * role: the user's own database that queries are pushed down to. Answers the database name.
 */
export function useWarehouse(prefix: string, setup: string): string {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const server = () => inject('warehouseServer');
  const run = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  beforeAll(async () => {
    const { adminUrl, user } = server();
    await run(adminUrl, `create database ${name} owner ${user}`);
    await run(adminUrl.replace(/\/\/[^@]*@/, `//${user}@`).replace(/\/[^/]*$/, `/${name}`), setup);
  });
  afterAll(() => run(server().adminUrl, `drop database if exists ${name} with (force)`));
  return name;
}

/** A data connection body reaching `database` on the test warehouse server as its non-superuser role. */
export function warehouseConnection(database: string) {
  const { host, port, user } = inject('warehouseServer');
  return { type: 'postgres' as const, host, port, database, user, sslmode: 'disable' as const };
}

/**
 * A small deterministic visit panel (the analytic sets' sample) made once for a test file and removed
 * after it: about 2 s for 4,000 visits. Answers a getter, filled before the file's tests run.
 */
export function useSamplePanel(visits = 4000): () => SamplePanel {
  let panel: SamplePanel | undefined;
  let root: string | undefined;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-panel-'));
    panel = await generateSamplePanel({ dir: path.join(root, 'sample'), visits });
  });
  afterAll(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
  });
  return () => panel!;
}

/**
 * Waits for a background job (GET /v1/jobs/{id}) to end, in hooks as in tests (`expect.poll` works only in
 * tests), and answers the job. A job still running after `timeoutMs` fails the caller with its last state.
 */
export async function jobEnded(ask: (url: string) => Promise<{ json(): unknown }>, jobId: string, timeoutMs = 60_000): Promise<{ status: string; message: string | null; percent: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { item } = (await ask(`/v1/jobs/${jobId}`)).json() as { item: { status: string; message: string | null; percent: number } };
    if (['succeeded', 'failed', 'cancelled'].includes(item.status)) return item;
    if (Date.now() > deadline) throw new Error(`Job ${jobId} still ${item.status} after ${timeoutMs} ms (${item.percent}%)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
