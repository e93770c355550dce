import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db';
import { Secrets } from './secrets';

/**
 * Where the master key lives: never in the catalog it protects (#11). It is STUDIO_SECRET, or a key file
 * (STUDIO_KEY_FILE, by default `<dataDir>/master.key`, mode 0600). With a shared catalog (DATABASE_URL)
 * every node needs the same key, so one of the two must be set explicitly there.
 */
export interface KeySettings {
  secret: string | null;
  /** STUDIO_KEY_FILE as given, or null for the default in the data directory. */
  keyFile: string | null;
  dataDir: string;
  databaseUrl: string | null;
}

/** Fields of catalog records that hold values sealed with the master key, by record type. */
const SEALED_FIELDS: Record<string, string> = { 'data-connection': 'credentials', 'map-asset': 'accessToken' };
const LEGACY_ROW = 'master-secret';

export const keyFilePath = (s: KeySettings) => s.keyFile ?? path.join(s.dataDir, 'master.key');

export function newMasterKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Reads a key file, refusing one that other users of the machine could read. */
function readKeyFile(file: string): string {
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) throw new Error(`The key file ${file} is readable by other users (mode ${mode.toString(8)}): run chmod 600 ${file}`);
  const key = fs.readFileSync(file, 'utf8').trim();
  if (!key) throw new Error(`The key file ${file} is empty`);
  return key;
}

/** Writes a new key file with mode 0600; an existing file is kept (concurrent first starts agree on it). */
export function writeKeyFile(file: string, key: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return readKeyFile(file);
  }
}

/** Re-seals every stored secret from one key to another in one transaction; answers how many. */
export async function resealSecrets(db: Db, from: Secrets, to: Secrets): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('resources').select(['id', 'type', 'attrs']).where('type', 'in', Object.keys(SEALED_FIELDS)).forUpdate().execute();
    let count = 0;
    for (const row of rows) {
      const field = SEALED_FIELDS[row.type]!;
      const sealed = row.attrs?.[field];
      if (typeof sealed !== 'string') continue;
      const attrs = { ...row.attrs, [field]: to.encrypt(from.decrypt(sealed)) };
      await trx.updateTable('resources').set({ attrs: JSON.stringify(attrs) }).where('id', '=', row.id).execute();
      count++;
    }
    return count;
  });
}

/**
 * Whether `secrets` opens the values sealed in the catalog (true when none are sealed): a restored backup
 * is checked with it before the studio starts on it.
 */
export async function keyOpensSecrets(db: Db, secrets: Secrets): Promise<boolean> {
  const rows = await db.selectFrom('resources').select(['type', 'attrs']).where('type', 'in', Object.keys(SEALED_FIELDS)).execute();
  const sealed = rows.map((r) => r.attrs?.[SEALED_FIELDS[r.type]!]).find((v): v is string => typeof v === 'string');
  if (sealed === undefined) return true;
  try {
    secrets.decrypt(sealed);
    return true;
  } catch {
    return false;
  }
}

/** The master key the settings supply, without making one: null when neither STUDIO_SECRET nor the key file is there. */
export function suppliedKey(settings: KeySettings): string | null {
  if (settings.secret) return settings.secret;
  const file = keyFilePath(settings);
  return fs.existsSync(file) ? readKeyFile(file) : null;
}

/**
 * The installation's key material. On the first start after the upgrade, a key kept in the catalog's
 * `settings` table moves out: to the key file, or, with STUDIO_SECRET set to another value, stored
 * secrets are re-sealed with STUDIO_SECRET. Either way the row is deleted.
 */
export async function loadSecrets(db: Db, settings: KeySettings, log: (line: string) => void = () => undefined): Promise<Secrets> {
  if (!settings.secret && settings.databaseUrl && !settings.keyFile) {
    throw new Error('With DATABASE_URL set, every API node needs the same master key: set STUDIO_SECRET or STUDIO_KEY_FILE');
  }
  const legacy = (await db.selectFrom('settings').select('value').where('key', '=', LEGACY_ROW).executeTakeFirst())?.value ?? null;
  let master: string;
  if (settings.secret) {
    master = settings.secret;
  } else {
    const file = keyFilePath(settings);
    master = fs.existsSync(file) ? readKeyFile(file) : writeKeyFile(file, legacy ?? newMasterKey());
    if (legacy === master) log(`The master key moved from the catalog to ${file}`);
  }
  if (legacy !== null) {
    if (legacy !== master) {
      const n = await resealSecrets(db, new Secrets(legacy), new Secrets(master));
      log(`Re-sealed ${n} stored secrets with the configured master key; the catalog no longer holds a key`);
    }
    await db.deleteFrom('settings').where('key', '=', LEGACY_ROW).execute();
  }
  return new Secrets(master);
}
