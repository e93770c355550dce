import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildStudio, type Studio } from '../src/app';
import { configFromEnv, type StudioConfig } from '../src/config';
import { backupStudio, restoreStudio } from '../src/services/backup';
import { parseHostPatterns } from '../src/services/network-reach';
import { createOrganization, createUser } from '../src/services/users';
import { PASSWORD, PG_ADMIN_URL, warehouseConnection } from './harness';

/**
 * #20: one command copies the catalog and the objects of a stopped studio, another restores them into a
 * fresh data directory (or an empty PostgreSQL database) with the master key supplied separately; the
 * restored studio answers what the first one did, stored credentials included.
 */
const repoRoot = path.resolve(__dirname, '../../..');
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});
const tempDir = (label: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `studio-${label}-`));
  cleanups.push(async () => fs.rmSync(d, { recursive: true, force: true }));
  return d;
};
async function newDatabase(): Promise<string> {
  const name = `studio_backup_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  return PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000002000000010806000000f478d4fa0000001049444154785e63f8cfc0f01f8461000ffd03fd6bb5f2490000000049454e44ae426082', 'hex');
const CSV = 'store,city,revenue\nMission,SF,120\nTemescal,Oakland,80\n';

/** What a user made in the first studio: a dataset, a map with its thumbnail, a connection with a password. */
async function fill(s: Studio) {
  const org = await createOrganization(s.services.db, 'Acme');
  await createUser(s.services.db, { email: 'ana@acme.test', password: PASSWORD, organizationId: org.id, role: 'maker' });
  const token = `Bearer ${(await s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'ana@acme.test', password: PASSWORD } })).json().item.accessToken}`;
  const as = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => s.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: token, ...headers } });
  const dataset = (await as('POST', '/v1/datasets/data?name=stores', CSV, { 'content-type': 'text/csv' })).json().item.id as string;
  const map = (await as('POST', '/v1/maps', { name: 'Stores' })).json().item.id as string;
  expect((await as('PUT', `/v1/maps/${map}/thumbnail`, PNG, { 'content-type': 'image/png' })).statusCode).toBe(200);
  const connection = await as('POST', '/v1/data-connections', { ...warehouseConnection('postgres'), name: 'Shop', credentials: { password: 'hunter2-restored' } });
  expect(connection.statusCode, connection.body).toBe(201);
  return { dataset, map, connection: connection.json().item.id as string };
}

/** The restored studio answers the same: sign-in, the dataset's rows, the thumbnail's bytes, the connection's password. */
async function expectSame(s: Studio, made: Awaited<ReturnType<typeof fill>>) {
  const signIn = await s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'ana@acme.test', password: PASSWORD } });
  expect(signIn.statusCode).toBe(200);
  const as = (url: string) => s.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${signIn.json().item.accessToken}` } });
  expect((await as(`/v1/datasets/${made.dataset}/data`)).body).toBe(CSV);
  const thumb = await as(`/v1/maps/${made.map}/thumbnail`);
  expect([thumb.statusCode, Buffer.compare(thumb.rawPayload, PNG)]).toEqual([200, 0]);
  const row = await s.services.db.selectFrom('resources').select('attrs').where('id', '=', made.connection).executeTakeFirstOrThrow();
  expect(JSON.parse(s.services.secrets.decrypt(row.attrs.credentials as string))).toMatchObject({ password: 'hunter2-restored' });
}

const configOf = (env: Record<string, string>): StudioConfig => {
  const { host, port } = inject('warehouseServer');
  return { ...configFromEnv({ STUDIO_SAMPLES: 'off', ...env }), connectionHosts: parseHostPatterns(`${host}:${port}`) };
};

describe('backup and restore', () => {
  it('embedded catalog: npm run backup copies it and every object but not the key; npm run restore refuses a missing or wrong key, then restores with the right one', async () => {
    const dir = tempDir('source');
    const first = await buildStudio(configOf({ STUDIO_DATA_DIR: dir }));
    const made = await fill(first);
    await first.close();
    const key = fs.readFileSync(path.join(dir, 'master.key'), 'utf8');

    // The commands as an operator types them, with the stopped studio's environment.
    const folder = path.join(tempDir('backup'), 'nightly');
    const npm = (script: string, env: Record<string, string>) => {
      try {
        return { code: 0, out: execFileSync('npm', ['run', '--silent', script, '--', folder], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: '', STUDIO_SECRET: '', STUDIO_KEY_FILE: '', ...env }, encoding: 'utf8', stdio: 'pipe' }) };
      } catch (e) {
        const err = e as { status: number; stderr: string };
        return { code: err.status, out: err.stderr };
      }
    };
    const backup = npm('backup', { STUDIO_DATA_DIR: dir });
    expect(backup, backup.out).toMatchObject({ code: 0, out: expect.stringMatching(/Backup done: \d+ objects, 1 blobs/) });
    const files = fs.readdirSync(folder, { recursive: true }).map(String);
    expect(files).toEqual(expect.arrayContaining(['manifest.json', 'catalog.tar.gz']));
    expect(files.some((f) => f.includes('master.key'))).toBe(false);
    const quiet = () => undefined;
    await expect(backupStudio(configOf({ STUDIO_DATA_DIR: dir }), folder, quiet)).rejects.toThrow(`The backup folder ${folder} is not empty`);

    const target = tempDir('restored');
    await expect(restoreStudio(configOf({ STUDIO_DATA_DIR: target }), folder, quiet)).rejects.toThrow(
      `Supply the master key of the studio this backup was made from (backups leave it out): set STUDIO_SECRET, or put its key file at ${path.join(target, 'master.key')}`,
    );
    expect(npm('restore', { STUDIO_DATA_DIR: target, STUDIO_SECRET: 'not-the-key' })).toMatchObject({ code: 1, out: "The master key supplied does not open this backup's stored secrets: supply the key of the studio the backup was made from\n" });
    // Refused twice, the target holds no catalog: the studio would start on it fresh.
    expect(fs.existsSync(path.join(target, 'catalog'))).toBe(false);

    fs.writeFileSync(path.join(target, 'master.key'), key, { mode: 0o600 });
    const restore = npm('restore', { STUDIO_DATA_DIR: target });
    expect(restore, restore.out).toMatchObject({ code: 0, out: expect.stringContaining('Restore done') });
    await expect(restoreStudio(configOf({ STUDIO_DATA_DIR: target }), folder, quiet)).rejects.toThrow(`${target} already holds a catalog: restore into a fresh STUDIO_DATA_DIR`);

    const restored = await buildStudio(configOf({ STUDIO_DATA_DIR: target }));
    try {
      await expectSame(restored, made);
    } finally {
      await restored.close();
    }
  }, 180_000); // three commands, each starting Node (and PGlite for the catalog)

  it('PostgreSQL catalog: pg_dump and pg_restore into an empty database; a wrong key leaves that database empty', async () => {
    const source = await newDatabase();
    const env = { STUDIO_SECRET: 'backup-test-secret' };
    const sourceDir = tempDir('pg-source');
    const first = await buildStudio(configOf({ ...env, DATABASE_URL: source, STUDIO_DATA_DIR: sourceDir }));
    const made = await fill(first);
    await first.close();
    const folder = tempDir('pg-backup');
    const manifest = await backupStudio(configOf({ ...env, DATABASE_URL: source, STUDIO_DATA_DIR: sourceDir }), folder, () => undefined);
    expect(manifest).toMatchObject({ format: 1, catalog: 'postgres', blobs: 1 });
    expect(manifest.objects).toBeGreaterThan(0);

    const target = await newDatabase();
    const targetDir = tempDir('pg-restored');
    await expect(restoreStudio(configOf({ STUDIO_SECRET: 'wrong', DATABASE_URL: target, STUDIO_DATA_DIR: targetDir }), folder, () => undefined)).rejects.toThrow("does not open this backup's stored secrets");
    const c = new pg.Client({ connectionString: target });
    await c.connect();
    const { rows } = await c.query("select count(*)::int as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')");
    await c.end();
    expect(rows[0].n).toBe(0);
    await expect(restoreStudio(configOf({ ...env, DATABASE_URL: source, STUDIO_DATA_DIR: targetDir }), folder, () => undefined)).rejects.toThrow('The database DATABASE_URL names is not empty: restore into a new database');

    await restoreStudio(configOf({ ...env, DATABASE_URL: target, STUDIO_DATA_DIR: targetDir }), folder, () => undefined);
    const restored = await buildStudio(configOf({ ...env, DATABASE_URL: target, STUDIO_DATA_DIR: targetDir }));
    try {
      await expectSame(restored, made);
    } finally {
      await restored.close();
    }
  });
});
