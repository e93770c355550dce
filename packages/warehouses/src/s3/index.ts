import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { CONNECTION_CONFIGS, badInput, onFirstUse } from '@studio/schema';
import { cancelled, type DriverTarget } from '../driver';
import { awsClientOptions, awsError } from '../aws';
import { contentTypeOfKey, underPrefix, type StorageDriver, type StorageItem } from '../storage';

/**
 * Amazon S3 and any S3-compatible endpoint (MinIO, Ceph, R2, a local test server) through the AWS SDK's
 * S3 client (endpoint, keys and network rule as every AWS client of a connection: ../aws.ts).
 */

interface S3Target {
  bucket: string;
  prefix: string | undefined;
  client: S3Client;
  sdk: S3Sdk;
}

/** The AWS SDK's S3 client, loaded on the first call of an S3 connection. */
const s3Sdk = onFirstUse(() => import('@aws-sdk/client-s3'));
type S3Sdk = Awaited<ReturnType<typeof s3Sdk>>;

async function s3Target(t: DriverTarget): Promise<S3Target> {
  const parsed = CONNECTION_CONFIGS.s3.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const options = await awsClientOptions(t, 's3', c.region, c.endpoint, { allowAnonymous: true });
  // Custom endpoints rarely have a DNS name per bucket; the path style works on all of them.
  const sdk = await s3Sdk();
  const client = new sdk.S3Client({ ...options, forcePathStyle: Boolean(options.endpoint) });
  return { bucket: c.bucket, prefix: c.prefix || undefined, client, sdk };
}

async function withClient<T>(t: DriverTarget, fn: (s: S3Target) => Promise<T>): Promise<T> {
  const s = await s3Target(t);
  try {
    return await fn(s);
  } catch (e) {
    throw awsError(e);
  } finally {
    s.client.destroy();
  }
}

export const s3Driver: StorageDriver = {
  test: (t) =>
    withClient(t, async (s) => {
      await s.client.send(new s.sdk.ListObjectsV2Command({ Bucket: s.bucket, Prefix: s.prefix, Delimiter: '/', MaxKeys: 1 })).catch((e: unknown) => {
        throw awsError(e, 'Could not list the bucket: ');
      });
      return { ok: true as const, serverVersion: `S3 bucket ${s.bucket}${s.prefix ? `/${s.prefix}` : ''}` };
    }),

  list: (t, prefix) =>
    withClient(t, async (s) => {
      const under = prefix || s.prefix || '';
      if (!underPrefix(under, s.prefix)) throw badInput(`${under} is outside this connection's prefix ${s.prefix}`);
      const r = await s.client.send(new s.sdk.ListObjectsV2Command({ Bucket: s.bucket, Prefix: under, Delimiter: '/', MaxKeys: 1000 }));
      const folders: StorageItem[] = (r.CommonPrefixes ?? []).map((p) => ({ name: p.Prefix!.slice(under.length), key: p.Prefix!, type: 'folder' }));
      const objects: StorageItem[] = (r.Contents ?? [])
        .filter((o) => o.Key && o.Key !== under)
        .map((o) => ({ name: o.Key!.slice(under.length), key: o.Key!, type: 'object', size: o.Size ?? 0, lastModified: o.LastModified?.toISOString() }));
      return { items: [...folders, ...objects], truncated: Boolean(r.IsTruncated) };
    }),

  download: (t, key, file, signal) =>
    withClient(t, async (s) => {
      if (!underPrefix(key, s.prefix)) throw badInput(`${key} is outside this connection's prefix ${s.prefix}`);
      const r = await s.client.send(new s.sdk.GetObjectCommand({ Bucket: s.bucket, Key: key }), { abortSignal: signal }).catch((e: unknown) => {
        throw signal?.aborted ? cancelled() : e;
      });
      if (!r.Body) throw badInput(`The object ${key} has no body`);
      await pipeline(r.Body as Readable, createWriteStream(file), { signal }).catch((e: unknown) => {
        throw signal?.aborted ? cancelled() : e;
      });
      return { contentType: contentTypeOfKey(key, r.ContentType), size: Number(r.ContentLength ?? 0) };
    }),
};
