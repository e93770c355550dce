import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIVER_SETTINGS, contentTypeOfKey, storageDriverFor, type DriverTarget } from '@studio/warehouses';
import { S3_KEYS, startS3Server, type S3Server } from './servers/s3';
import { loopbackOnly } from './helpers';

const driver = storageDriverFor('s3');
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\nCoit Tower,37.8024,-122.4058\n';
let server: S3Server;
let dir: string;

const target = (over: Record<string, unknown> = {}, credentials: DriverTarget['credentials'] = S3_KEYS): DriverTarget => ({
  type: 's3',
  config: { bucket: 'acme-lake', region: 'us-east-1', endpoint: server.endpoint, ...over },
  credentials,
  reach: loopbackOnly,
  settings: { ...DEFAULT_DRIVER_SETTINGS, connectTimeoutMs: 2000 },
});

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 's3-driver-'));
  server = await startS3Server('acme-lake', {
    'places/sf.csv': CSV,
    'places/2024/ny.csv': 'name,lat,lng\nFlatiron,40.7411,-73.9897\n',
    'raw/readme.txt': 'not data',
  });
});
afterAll(async () => {
  await server?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('S3 storage driver (AWS SDK against a local S3-compatible server)', () => {
  it('tests a bucket it can list', async () => {
    await expect(driver.test(target())).resolves.toEqual({ ok: true, serverVersion: 'S3 bucket acme-lake' });
  });

  it.each([
    ['a bucket that does not exist', { bucket: 'no-such-bucket' }, /NoSuchBucket/],
    ['an endpoint nobody answers', { endpoint: 'http://127.0.0.1:9' }, /^Could not/],
  ])('answers %s with a 422', async (_name, over, message) => {
    await expect(driver.test(target(over))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(message) });
  });

  it('never reaches an endpoint the network rule refuses', async () => {
    await expect(driver.test(target({ endpoint: 'http://169.254.169.254' }))).rejects.toThrow(/not allowed: 169.254.169.254/);
  });

  it('lists one level: folders, then objects with sizes', async () => {
    const top = await driver.list(target(), '');
    expect(top.items.map((i) => [i.type, i.key])).toEqual([['folder', 'places/'], ['folder', 'raw/']]);
    const places = await driver.list(target(), 'places/');
    expect(places.items).toEqual([
      { name: '2024/', key: 'places/2024/', type: 'folder' },
      { name: 'sf.csv', key: 'places/sf.csv', type: 'object', size: CSV.length, lastModified: expect.any(String) },
    ]);
  });

  it("keeps to the connection's prefix", async () => {
    const t = target({ prefix: 'places/' });
    expect((await driver.list(t, '')).items.map((i) => i.key)).toEqual(['places/2024/', 'places/sf.csv']);
    await expect(driver.list(t, 'raw/')).rejects.toMatchObject({ status: 422, message: "raw/ is outside this connection's prefix places/" });
    await expect(driver.download(t, 'raw/readme.txt', path.join(dir, 'x'))).rejects.toMatchObject({ status: 422 });
  });

  it('downloads an object with the content type its name says', async () => {
    const file = path.join(dir, 'sf.csv');
    await expect(driver.download(target(), 'places/sf.csv', file)).resolves.toEqual({ contentType: 'text/csv', size: CSV.length });
    expect(await fs.readFile(file, 'utf8')).toBe(CSV);
  });

  it('answers a missing object with a 422', async () => {
    await expect(driver.download(target(), 'places/none.csv', path.join(dir, 'none'))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/NoSuchKey/) });
  });

  it.each([
    ['a.csv', undefined, 'text/csv'], ['a.parquet', undefined, 'application/vnd.apache.parquet'], ['a.geojson', 'application/json', 'application/geo+json'],
    ['a.jsonl', undefined, 'application/x-ndjson'], ['blob', 'text/csv; charset=utf-8', 'text/csv'], ['blob', undefined, 'application/octet-stream'],
  ])('%s (stated %s) is read as %s', (key, stated, type) => {
    expect(contentTypeOfKey(key, stated)).toBe(type);
  });
});
