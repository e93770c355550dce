import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ObjectStore } from '@studio/engine';
import { z } from 'zod';
import type { StudioConfig } from '../config';
import { keyOpensSecrets, keyFilePath, suppliedKey } from '../auth/master-key';
import { Secrets } from '../auth/secrets';
import { openCatalog } from '../store/db';
import { BLOB_PREFIX, studioStores, type StudioStores } from './object-store';

const run = promisify(execFile);

/** What a backup folder holds, written last: a folder without it is not a complete backup. */
const BackupManifest = z.object({
  format: z.literal(1),
  createdAt: z.string(),
  catalog: z.enum(['pglite', 'postgres']),
  objects: z.number().int(),
  blobs: z.number().int(),
  bytes: z.number().int(),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

const MANIFEST = 'manifest.json';
const PGLITE_DUMP = 'catalog.tar.gz';
const POSTGRES_DUMP = 'catalog.pgdump';
/** Backup folders of the two kinds of objects, by storage key. */
const KINDS = ['objects', 'blobs'] as const satisfies readonly (keyof StudioStores)[];

/** Something about the backup or its target the operator must fix; nothing was changed. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/**
 * `npm run backup -- <folder>`: the catalog (PGlite's data folder as its own dump, PostgreSQL through
 * pg_dump) and every object, into a new or empty folder. Run it with the API nodes stopped, as the key
 * rotation: the embedded catalog is one process's, and a stopped studio's catalog and objects agree. The
 * master key is left out: it is supplied separately at restore.
 */
export async function backupStudio(config: StudioConfig, folder: string, log: (line: string) => void): Promise<BackupManifest> {
  await emptyFolder(folder);
  let catalog: BackupManifest['catalog'];
  if (config.databaseUrl) {
    catalog = 'postgres';
    await run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${path.join(folder, POSTGRES_DUMP)}`, `--dbname=${config.databaseUrl}`]);
  } else {
    catalog = 'pglite';
    const dir = path.join(config.dataDir, 'catalog');
    if (!(await present(path.join(dir, 'PG_VERSION')))) throw new BackupError(`There is no catalog in ${config.dataDir} to back up`);
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create(dir);
    try {
      const dump = await pglite.dumpDataDir('gzip');
      await fs.writeFile(path.join(folder, PGLITE_DUMP), Buffer.from(await dump.arrayBuffer()));
    } finally {
      await pglite.close();
    }
  }
  log(`Catalog (${catalog}) copied`);
  const stores = await studioStores(config);
  const counts = { objects: 0, blobs: 0, bytes: 0 };
  try {
    for (const kind of KINDS) {
      for await (const key of stores[kind].keys()) {
        // In a shared bucket the blobs sit under the objects' `blobs/`: they are copied once, as blobs.
        if (kind === 'objects' && config.objectStore && key.startsWith(`${BLOB_PREFIX}/`)) continue;
        const to = path.join(folder, kind, key);
        await fs.mkdir(path.dirname(to), { recursive: true });
        await fs.copyFile(await stores[kind].localPath(key), to);
        counts[kind]++;
        counts.bytes += (await fs.stat(to)).size;
      }
      log(`${counts[kind]} ${kind} copied`);
    }
  } finally {
    stores.objects.close?.();
  }
  const manifest: BackupManifest = { format: 1, createdAt: new Date().toISOString(), catalog, ...counts };
  await fs.writeFile(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * `npm run restore -- <folder>`: a backup into the fresh studio `config` describes (a data folder without a
 * catalog, or an empty PostgreSQL database), with the master key of the studio the backup came from
 * (STUDIO_SECRET or the key file, never in the backup). The key is checked against the backup's stored
 * secrets before anything is written where the studio will look.
 */
export async function restoreStudio(config: StudioConfig, folder: string, log: (line: string) => void): Promise<BackupManifest> {
  const manifest = await readManifest(folder);
  const target = config.databaseUrl ? 'postgres' : 'pglite';
  if (manifest.catalog !== target) {
    throw new BackupError(manifest.catalog === 'postgres' ? 'This backup holds a PostgreSQL catalog: restore it with DATABASE_URL set to an empty database' : 'This backup holds an embedded catalog: restore it without DATABASE_URL, into a fresh STUDIO_DATA_DIR');
  }
  const key = suppliedKey(config);
  if (!key) throw new BackupError(`Supply the master key of the studio this backup was made from (backups leave it out): set STUDIO_SECRET, or put its key file at ${keyFilePath(config)}`);
  if (config.databaseUrl) await restorePostgres(config, folder, key);
  else await restorePglite(config, folder, key);
  log(`Catalog (${manifest.catalog}) restored`);
  const stores = await studioStores(config);
  try {
    const tmp = path.join(config.dataDir, 'tmp', `restore-${randomUUID()}`);
    await fs.mkdir(tmp, { recursive: true });
    try {
      for (const kind of KINDS) await restoreObjects(path.join(folder, kind), stores[kind], tmp);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  } finally {
    stores.objects.close?.();
  }
  log(`${manifest.objects} objects and ${manifest.blobs} blobs restored`);
  return manifest;
}

async function restorePglite(config: StudioConfig, folder: string, key: string): Promise<void> {
  const dir = path.join(config.dataDir, 'catalog');
  if (await present(path.join(dir, 'PG_VERSION'))) throw new BackupError(`${config.dataDir} already holds a catalog: restore into a fresh STUDIO_DATA_DIR`);
  // Loaded beside its place and checked there; only a catalog the key opens is moved where the studio looks.
  const staging = path.join(config.dataDir, `catalog-restoring-${randomUUID()}`);
  await fs.mkdir(staging, { recursive: true });
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const dump = await fs.readFile(path.join(folder, PGLITE_DUMP));
    await (await PGlite.create(staging, { loadDataDir: new Blob([dump]) })).close();
    const store = await openCatalog({ databaseUrl: null, dataDir: config.dataDir, inMemory: false, folder: staging });
    try {
      await refuseWrongKey(store.db, key);
    } finally {
      await store.close();
    }
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(staging, dir);
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function restorePostgres(config: StudioConfig, folder: string, key: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: config.databaseUrl! });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("select count(*) as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')");
    if (Number(rows[0]!.n) > 0) throw new BackupError('The database DATABASE_URL names is not empty: restore into a new database');
  } finally {
    await client.end();
  }
  await run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${config.databaseUrl!}`, path.join(folder, POSTGRES_DUMP)]);
  const store = await openCatalog({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await refuseWrongKey(store.db, key, async () => {
      // Nothing of the backup stays in a database the studio would then start on with the wrong key.
      const { sql } = await import('kysely');
      for (const schema of ['public', 'job_queue']) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
      await sql`create schema public`.execute(store.db);
    });
  } finally {
    await store.close();
  }
}

async function refuseWrongKey(db: Parameters<typeof keyOpensSecrets>[0], key: string, undo: () => Promise<void> = async () => undefined): Promise<void> {
  if (await keyOpensSecrets(db, new Secrets(key))) return;
  await undo();
  throw new BackupError("The master key supplied does not open this backup's stored secrets: supply the key of the studio the backup was made from");
}

async function restoreObjects(from: string, store: ObjectStore, tmp: string): Promise<void> {
  if (!(await present(from))) return;
  for (const name of (await fs.readdir(from, { recursive: true })).sort()) {
    const file = path.join(from, name);
    if (!(await fs.stat(file)).isFile()) continue;
    // put() takes the file it is given: it gets a copy, the backup stays whole.
    const copy = path.join(tmp, randomUUID());
    await fs.copyFile(file, copy);
    await store.put(name.split(path.sep).join('/'), copy);
  }
}

async function readManifest(folder: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await fs.readFile(path.join(folder, MANIFEST), 'utf8');
  } catch {
    throw new BackupError(`${folder} is not a complete backup: it has no ${MANIFEST}`);
  }
  const parsed = BackupManifest.safeParse(JSON.parse(text));
  if (!parsed.success) throw new BackupError(`${path.join(folder, MANIFEST)} is not a backup manifest this studio reads`);
  return parsed.data;
}

async function emptyFolder(folder: string): Promise<void> {
  await fs.mkdir(folder, { recursive: true });
  if ((await fs.readdir(folder)).length > 0) throw new BackupError(`The backup folder ${folder} is not empty`);
}

const present = (file: string) => fs.access(file).then(() => true, () => false);
