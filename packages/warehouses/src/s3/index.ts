import { createWriteStream } from 'node:fs';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { CONNECTION_CONFIGS, StudioError, badInput } from '@studio/schema';
import { cancelled, driverError, type DriverTarget } from '../driver';
import { contentTypeOfKey, underPrefix, type StorageDriver, type StorageItem } from '../storage';

/**
 * Amazon S3 and any S3-compatible endpoint (MinIO, Ceph, R2, a local test server) through the AWS SDK's
 * S3 client. A custom endpoint is checked by the network rule like any warehouse host; over plain HTTP the
 * client is pointed at the checked address, over HTTPS at the name (TLS verifies it).
 */

/** Requests of a connection without keys go unsigned (public buckets), never signed by the server's own role. */
const unsigned: Extract<NonNullable<S3ClientConfig['signer']>, { sign: unknown }> = { sign: async (request) => request };

interface S3Target {
  bucket: string;
  prefix: string | undefined;
  client: S3Client;
}

async function s3Target(t: DriverTarget): Promise<S3Target> {
  const parsed = CONNECTION_CONFIGS.s3.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  let endpoint: string | undefined;
  const url = new URL(c.endpoint ?? `https://s3.${c.region}.amazonaws.com`);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address = await t.reach.check(host, port);
  if (c.endpoint) {
    if (url.protocol === 'http:') url.hostname = isIP(address) === 6 ? `[${address}]` : address;
    endpoint = url.origin;
  }
  const creds = t.credentials;
  const client = new S3Client({
    region: c.region,
    endpoint,
    // Custom endpoints rarely have a DNS name per bucket; the path style works on all of them.
    forcePathStyle: Boolean(endpoint),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: t.settings.connectTimeoutMs, requestTimeout: t.settings.statementTimeoutMs },
    ...(creds?.accessKeyId && creds.secretAccessKey
      ? { credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey } }
      : // No keys: anonymous requests (public buckets), never the server's own environment or instance role.
        { credentials: { accessKeyId: '', secretAccessKey: '' }, signer: unsigned }),
  });
  return { bucket: c.bucket, prefix: c.prefix || undefined, client };
}

function s3Error(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  if (e instanceof S3ServiceException) return new StudioError(422, `${prefix}${e.name}: ${e.message || e.$metadata.httpStatusCode}`);
  const code = (e as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ETIMEDOUT' || (e as Error).name === 'TimeoutError') return new StudioError(422, `Could not connect: ${(e as Error).message || code}`);
  return driverError(e, prefix);
}

async function withClient<T>(t: DriverTarget, fn: (s: S3Target) => Promise<T>): Promise<T> {
  const s = await s3Target(t);
  try {
    return await fn(s);
  } catch (e) {
    throw s3Error(e);
  } finally {
    s.client.destroy();
  }
}

export const s3Driver: StorageDriver = {
  test: (t) =>
    withClient(t, async (s) => {
      await s.client.send(new ListObjectsV2Command({ Bucket: s.bucket, Prefix: s.prefix, Delimiter: '/', MaxKeys: 1 })).catch((e: unknown) => {
        throw s3Error(e, 'Could not list the bucket: ');
      });
      return { ok: true as const, serverVersion: `S3 bucket ${s.bucket}${s.prefix ? `/${s.prefix}` : ''}` };
    }),

  list: (t, prefix) =>
    withClient(t, async (s) => {
      const under = prefix || s.prefix || '';
      if (!underPrefix(under, s.prefix)) throw badInput(`${under} is outside this connection's prefix ${s.prefix}`);
      const r = await s.client.send(new ListObjectsV2Command({ Bucket: s.bucket, Prefix: under, Delimiter: '/', MaxKeys: 1000 }));
      const folders: StorageItem[] = (r.CommonPrefixes ?? []).map((p) => ({ name: p.Prefix!.slice(under.length), key: p.Prefix!, type: 'folder' }));
      const objects: StorageItem[] = (r.Contents ?? [])
        .filter((o) => o.Key && o.Key !== under)
        .map((o) => ({ name: o.Key!.slice(under.length), key: o.Key!, type: 'object', size: o.Size ?? 0, lastModified: o.LastModified?.toISOString() }));
      return { items: [...folders, ...objects], truncated: Boolean(r.IsTruncated) };
    }),

  download: (t, key, file, signal) =>
    withClient(t, async (s) => {
      if (!underPrefix(key, s.prefix)) throw badInput(`${key} is outside this connection's prefix ${s.prefix}`);
      const r = await s.client.send(new GetObjectCommand({ Bucket: s.bucket, Key: key }), { abortSignal: signal }).catch((e: unknown) => {
        throw signal?.aborted ? cancelled() : e;
      });
      if (!r.Body) throw badInput(`The object ${key} has no body`);
      await pipeline(r.Body as Readable, createWriteStream(file), { signal }).catch((e: unknown) => {
        throw signal?.aborted ? cancelled() : e;
      });
      return { contentType: contentTypeOfKey(key, r.ContentType), size: Number(r.ContentLength ?? 0) };
    }),
};
