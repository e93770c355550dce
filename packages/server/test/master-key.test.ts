import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { buildStudio, type Studio } from '../src/app';
import { configFromEnv } from '../src/config';
import { loadSecrets, newMasterKey } from '../src/auth/master-key';
import { Secrets } from '../src/auth/secrets';

/** #11 item 6: the master key never sits in the catalog beside the secrets it seals. */

const repoRoot = path.resolve(__dirname, '../../..');
const dirs: string[] = [];
const studios: Studio[] = [];
afterEach(async () => {
  for (const s of studios.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function studioIn(dataDir: string, env: Record<string, string> = {}) {
  const studio = await buildStudio({ ...configFromEnv({ STUDIO_DATA_DIR: dataDir, ...env }) });
  studios.push(studio);
  return studio;
}
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-key-'));
  dirs.push(d);
  return d;
};
const settingsRows = (s: Studio) => s.services.db.selectFrom('settings').select('key').where('key', '=', 'master-secret').execute();
/** A connection row with a sealed password, written as an older release would have. */
async function sealedConnection(s: Studio, secrets: Secrets) {
  const owner = await s.services.db.insertInto('users').values({ id: crypto.randomUUID(), email: `o${Date.now()}@acme.test`, name: 'O', password_hash: 'x' } as never).returning('id').executeTakeFirstOrThrow();
  const id = crypto.randomUUID();
  await s.services.db.insertInto('resources').values({ id, type: 'data-connection', owner_id: owner.id, name: 'DW', attrs: JSON.stringify({ type: 'postgres', config: {}, credentials: secrets.encrypt('{"password":"hunter2"}') }) } as never).execute();
  return id;
}
const sealedOf = async (s: Studio, id: string) => (await s.services.db.selectFrom('resources').select('attrs').where('id', '=', id).executeTakeFirstOrThrow()).attrs.credentials as string;

/** A data directory as an older release left it: the key in the catalog's settings, a secret sealed with it. */
async function olderReleaseCatalog() {
  const dir = tempDir();
  const legacy = newMasterKey();
  const first = await studioIn(dir);
  const id = await sealedConnection(first, new Secrets(legacy));
  await first.services.db.insertInto('settings').values({ key: 'master-secret', value: legacy }).execute();
  await first.close();
  studios.pop();
  return { dir, legacy, id };
}

// Each test starts studios on fresh catalogs (PGlite, scrypt, the key file): 33-42 s each in a loaded CI run.
describe('the master key', { timeout: 120_000 }, () => {
  it('is created in a 0600 key file on a fresh start, and the catalog holds no key', async () => {
    const dir = tempDir();
    const s = await studioIn(dir);
    const file = path.join(dir, 'master.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await settingsRows(s)).toEqual([]);
    await s.close();
    studios.pop();
    // The same key on the next start: what it sealed still opens.
    const sealed = s.services.secrets.encrypt('kept');
    const again = await studioIn(dir);
    expect(again.services.secrets.decrypt(sealed)).toBe('kept');
  });

  it('moves a key kept in the catalog by an older release out to the key file, and old secrets still open', async () => {
    const { dir, legacy, id } = await olderReleaseCatalog();
    fs.rmSync(path.join(dir, 'master.key'));
    const s = await studioIn(dir);
    expect(await settingsRows(s)).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'master.key'), 'utf8').trim()).toBe(legacy);
    expect(s.services.secrets.decrypt(await sealedOf(s, id))).toBe('{"password":"hunter2"}');
  });

  it('re-seals old secrets when STUDIO_SECRET is set to another value than the catalog held', async () => {
    const { dir, legacy, id } = await olderReleaseCatalog();
    const s = await studioIn(dir, { STUDIO_SECRET: 'operator-chosen-secret' });
    expect(await settingsRows(s)).toEqual([]);
    expect(new Secrets('operator-chosen-secret').decrypt(await sealedOf(s, id))).toBe('{"password":"hunter2"}');
    const resealed = await sealedOf(s, id);
    expect(() => new Secrets(legacy).decrypt(resealed)).toThrow();
  });

  it('refuses a key file other users can read', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'master.key'), 'k\n', { mode: 0o644 });
    fs.chmodSync(path.join(dir, 'master.key'), 0o644);
    await expect(studioIn(dir)).rejects.toThrow(/readable by other users .*chmod 600/);
  });

  it('must be set explicitly with a shared catalog (DATABASE_URL)', async () => {
    // Checked before the catalog is read, so an embedded catalog stands in for the shared one here.
    const s = await studioIn(tempDir());
    const shared = { secret: null, keyFile: null, dataDir: tempDir(), databaseUrl: 'postgres://studio@db.internal:5432/catalog' };
    await expect(loadSecrets(s.services.db, shared)).rejects.toThrow('With DATABASE_URL set, every API node needs the same master key: set STUDIO_SECRET or STUDIO_KEY_FILE');
  });

  // The command may build the server first (a stale build) and starts the studio twice: past 60 s on a loaded 2-core machine.
  it('rotates: npm run rotate-key re-seals every secret with a new key file and the old key opens none', { timeout: 180_000 }, async () => {
    const dir = tempDir();
    const s = await studioIn(dir);
    const id = await sealedConnection(s, s.services.secrets);
    const before = await sealedOf(s, id);
    const oldKey = fs.readFileSync(path.join(dir, 'master.key'), 'utf8').trim();
    await s.close();
    studios.pop();
    // The command as an operator types it: it runs the compiled server's rotate-key (built first if stale).
    const out = execFileSync('npm', ['run', '--silent', 'rotate-key'], {
      cwd: repoRoot, env: { ...process.env, STUDIO_DATA_DIR: dir, DATABASE_URL: '', STUDIO_SECRET: '', STUDIO_KEY_FILE: '' }, encoding: 'utf8',
    });
    expect(out).toMatch(/Re-sealed 1 stored secrets/);
    const newKey = fs.readFileSync(path.join(dir, 'master.key'), 'utf8').trim();
    expect(newKey).not.toBe(oldKey);
    expect(fs.statSync(path.join(dir, 'master.key')).mode & 0o777).toBe(0o600);
    const after = await studioIn(dir);
    const sealed = await sealedOf(after, id);
    expect(sealed).not.toBe(before);
    expect(after.services.secrets.decrypt(sealed)).toBe('{"password":"hunter2"}');
    expect(() => new Secrets(oldKey).decrypt(sealed)).toThrow();
  });
});
