import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_KEYS, startS3Server, type S3Server } from '../../warehouses/test/servers/s3';
import { configFromEnv, printableConfig, type StudioConfig } from '../src/config';
import { jobEnded, seedCast, startStudio, STORES, type Cast, type TestStudio } from './harness';

/**
 * STUDIO_OBJECT_STORE=s3://…: datasets live in a bucket every node shares (a local s3rver here), each node
 * reading through its own cache. What a user does — upload, query, download, tile, delete — works the same,
 * and a second node serves what the first stored.
 */
const BUCKET = 'studio-objects';
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server(BUCKET, {});
});
afterAll(() => s3?.close());

const objectStore = (prefix: string): StudioConfig['objectStore'] => ({ bucket: BUCKET, prefix, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3_KEYS } });

async function keysUnder(prefix: string): Promise<string[]> {
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { ...S3_KEYS } });
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  client.destroy();
  return keys.sort();
}

describe('the object store configuration', () => {
  it.each([
    [{ STUDIO_OBJECT_STORE: 's3://studio-data/prod', STUDIO_S3_ENDPOINT: 'http://127.0.0.1:9000', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' }, { bucket: 'studio-data', prefix: 'prod', endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' } }],
    [{ STUDIO_OBJECT_STORE: 's3://studio-data', STUDIO_S3_REGION: 'eu-west-3' }, { bucket: 'studio-data', prefix: '', endpoint: null, region: 'eu-west-3', forcePathStyle: false, credentials: null }],
    [{}, null],
  ])('reads %o', (env, expected) => {
    expect(configFromEnv(env).objectStore).toEqual(expected);
  });

  it.each([
    [{ STUDIO_OBJECT_STORE: '/var/lib/objects' }, 'STUDIO_OBJECT_STORE must be s3://bucket or s3://bucket/prefix, got "/var/lib/objects"'],
    [{ STUDIO_OBJECT_STORE: 's3://bucket1/x', STUDIO_S3_ENDPOINT: 'ftp://h' }, 'STUDIO_S3_ENDPOINT must be a URL starting with http:// or https://, got "ftp://h"'],
    [{ STUDIO_OBJECT_CACHE_MB: '1' }, 'STUDIO_OBJECT_CACHE_MB must be a whole number from 16, got "1"'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(message);
  });

  it('prints the configuration without the secret key', () => {
    const printed = JSON.stringify(printableConfig(configFromEnv({ STUDIO_OBJECT_STORE: 's3://bucket1/x', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI' })));
    expect(printed).toContain('AKIDEXAMPLE');
    expect(printed).not.toContain('wJalrXUtnFEMI');
  });
});

describe.each(STORES)('datasets on an S3-compatible object store (%s catalog)', (kind) => {
  const prefix = `studio-${kind}`;
  let node: TestStudio;
  let cast: Cast;
  beforeAll(async () => {
    node = await startStudio(kind, { objectStore: objectStore(prefix) });
    cast = await seedCast(node);
  });
  afterAll(() => node?.dispose());
  const as = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    node.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { authorization: cast.tokens.owner, ...headers } });

  it('uploads into the bucket, queries, downloads and tiles from it, and deleting the dataset removes its objects', async () => {
    const csv = ['name,lat,lng,visits', ...Array.from({ length: 200 }, (_, i) => `Place ${i},${37.7 + i / 1000},${-122.4 + i / 1000},${i}`)].join('\n');
    const up = await as('POST', '/v1/datasets/data?name=places', csv, { 'content-type': 'text/csv' });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().item.id as string;
    const stored = await keysUnder(prefix);
    expect(stored.filter((k) => k.startsWith(`${prefix}/datasets/${id}/`)).length).toBeGreaterThan(0);

    const q = await as('POST', '/v1/datasets/query', { name: 'Busy', query: `select name, visits from "${id}" where visits >= 198 order by visits` });
    expect(q.statusCode, q.body).toBe(201);
    expect((await as('GET', `/v1/datasets/${q.json().item.id}/data`)).body.trim().split('\n')).toEqual(['name,visits', 'Place 198,198', 'Place 199,199']);

    const tiles = await as('POST', '/v1/datasets/hextile', { name: 'Cells', source: id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', timeIntervals: [], finestResolution: 8, coarsestResolution: 5, resolutionOffset: 4, outputColumns: [{ sourceColumn: 'visits', targetColumn: 'visits', aggMethod: 'sum' }] });
    expect(tiles.statusCode, tiles.body).toBe(201);
    expect((await jobEnded((url) => as('GET', url), tiles.json().job.id)).status).toBe('succeeded');

    expect((await as('DELETE', `/v1/datasets/${id}`)).statusCode).toBe(204);
    expect((await keysUnder(prefix)).filter((k) => k.startsWith(`${prefix}/datasets/${id}/`))).toEqual([]);
  });

  it.runIf(kind === 'postgres')('serves from a second node what the first stored: each node reads the bucket through its own cache', async () => {
    const up = await as('POST', '/v1/datasets/data?name=shared', 'city,stores\nOakland,3\nFresno,5\n', { 'content-type': 'text/csv' });
    const id = up.json().item.id as string;
    const second = await startStudio('postgres', { objectStore: objectStore(prefix), databaseUrl: node.services.config.databaseUrl });
    try {
      const token = await second.tokenOf('owner@acme.test');
      const csv = await second.app.inject({ method: 'GET', url: `/v1/datasets/${id}/data`, headers: { authorization: token } });
      expect(csv.body.trim().split('\n')).toEqual(['city,stores', 'Oakland,3', 'Fresno,5']);
      const sum = await second.app.inject({ method: 'POST', url: '/v1/datasets/query', payload: { name: 'Total', query: `select count(*) as places, max(stores) as most from "${id}"` }, headers: { authorization: token } });
      expect(sum.statusCode, sum.body).toBe(201);
      expect((await node.app.inject({ method: 'GET', url: `/v1/datasets/${sum.json().item.id}/data`, headers: { authorization: cast.tokens.owner } })).body.trim()).toBe('places,most\n2,5');
      // A map's thumbnail stored through the second node shows on the first (blobs share the bucket too).
      const map = await as('POST', '/v1/maps', { name: 'Shared map' });
      const put = await second.app.inject({ method: 'PUT', url: `/v1/maps/${map.json().item.id}/thumbnail`, payload: PNG, headers: { authorization: token, 'content-type': 'image/png' } });
      expect(put.statusCode, put.body).toBe(200);
      expect((await keysUnder(prefix)).some((k) => k.startsWith(`${prefix}/blobs/`))).toBe(true);
      const thumb = await as('GET', `/v1/maps/${map.json().item.id}/thumbnail`);
      expect([thumb.statusCode, Buffer.compare(thumb.rawPayload, PNG)]).toEqual([200, 0]);
    } finally {
      await second.dispose();
    }
  });
});
