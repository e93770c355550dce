import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, storageDriverFor, type DriverTarget } from '@studio/warehouses';
import { loopbackOnly } from './helpers';
import { serviceAccountKey } from './servers/google-auth';
import { startGcsServer, type GcsServer } from './servers/gcs';

const driver = storageDriverFor('gcs');
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\n';
let server: GcsServer;
let dir: string;

const target = (over: Record<string, unknown> = {}, key: string | null = server.keyJson): DriverTarget => ({
  type: 'gcs',
  config: { bucket: 'city-lake', endpoint: server.endpoint, ...over },
  credentials: key ? { privateKey: key } : null,
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gcs-test-'));
  server = await startGcsServer('city-lake', { 'exports/sf.csv': CSV, 'exports/2024/ny.csv': 'name\nx\n', 'raw/readme.txt': 'hi' });
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('Cloud Storage driver (@google-cloud/storage, signed with a service account key)', () => {
  it('tests a bucket it can list', async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'Cloud Storage bucket city-lake' });
  });

  it.each([
    ['a key of another account', () => target({}, serviceAccountKey('other').json), /Google refused the service account \(401\)/],
    ['no key', () => target({}, null), /needs a service account key/],
    ['a key that is not JSON', () => target({}, 'not json'), /not JSON/],
    ['a bucket that does not exist', () => target({ bucket: 'nobody' }), /The specified bucket does not exist/],
    ['an endpoint the network rule refuses', () => target({ endpoint: 'http://169.254.169.254' }), /not allowed: 169.254.169.254/],
  ])('answers %s with an error', async (_name, t, message) => {
    await expect(driver.test(t())).rejects.toThrow(message);
  });

  it('lists one level: folders, then objects with sizes; keeps to its prefix', async () => {
    expect((await driver.list(target(), '')).items.map((i) => [i.type, i.key])).toEqual([['folder', 'exports/'], ['folder', 'raw/']]);
    expect((await driver.list(target(), 'exports/')).items).toEqual([
      { name: '2024/', key: 'exports/2024/', type: 'folder' },
      { name: 'sf.csv', key: 'exports/sf.csv', type: 'object', size: CSV.length, lastModified: '2024-06-01T12:00:00.000Z' },
    ]);
    await expect(driver.list(target({ prefix: 'exports/' }), 'raw/')).rejects.toMatchObject({ status: 422 });
  });

  it('downloads an object with its content type', async () => {
    const file = path.join(dir, 'sf.csv');
    await expect(driver.download(target(), 'exports/sf.csv', file)).resolves.toEqual({ contentType: 'text/csv', size: CSV.length });
    expect(await fs.readFile(file, 'utf8')).toBe(CSV);
    await expect(driver.download(target(), 'exports/none.csv', path.join(dir, 'none'))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/No such object/) });
  });
});
