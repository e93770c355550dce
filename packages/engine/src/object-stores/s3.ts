import { createReadStream, createWriteStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { notFound, onFirstUse } from '@studio/schema';
import { checkKey, type ObjectStore } from '../store';
import type { ReadThroughCache } from './read-through-cache';

/** Where the objects live: `s3://bucket/prefix` and how to reach the endpoint. */
export interface S3StoreOptions {
  bucket: string;
  /** Prepended to every key (no leading or trailing slash); '' for the bucket's root. */
  prefix: string;
  /** The S3 client's settings: endpoint, region, forcePathStyle, credentials (the SDK's default chain when absent). */
  client: S3ClientConfig;
  /** This node's local copies, which DuckDB reads. */
  cache: ReadThroughCache;
}

/** Parses `s3://bucket/prefix/` into its bucket and prefix; null for anything else. */
export function parseS3Location(location: string): { bucket: string; prefix: string } | null {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(location);
  if (!m) return null;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && prefix.split('/').some((p) => !p || p === '.' || p === '..')) return null;
  return { bucket: m[1]!, prefix };
}

const isMissing = (e: unknown) => {
  const name = (e as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
};

/**
 * Datasets on any S3-compatible store, streamed both ways: uploads go in parts from the file (no whole
 * object in memory), reads stream the object's body. Every node reads through its own bounded cache, so
 * DuckDB gets a local path; a node that stores an object keeps it in its cache, since it reads it next.
 */
export class S3ObjectStore implements ObjectStore {
  /** The client, made on the first call: the AWS SDK is loaded then, not with the engine (most studios store files locally). */
  private client: S3Client | null = null;
  private readonly aws = onFirstUse(async () => {
    const [s3, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
    this.client = new s3.S3Client(this.opts.client);
    return { s3, Upload, client: this.client };
  });

  constructor(private readonly opts: S3StoreOptions) {}

  private objectKey(key: string): string {
    checkKey(key);
    return this.opts.prefix ? `${this.opts.prefix}/${key}` : key;
  }

  async put(key: string, fromFile: string): Promise<void> {
    // An S3 object appears whole when its upload completes: readers never see part of it.
    const { Upload, client } = await this.aws();
    await new Upload({ client, params: { Bucket: this.opts.bucket, Key: this.objectKey(key), Body: createReadStream(fromFile) } }).done();
    await this.opts.cache.add(key, fromFile);
  }

  localPath(key: string): Promise<string> {
    const objectKey = this.objectKey(key);
    return this.opts.cache.path(key, async (toFile) => {
      await pipeline(await this.body(key, objectKey), createWriteStream(toFile));
    });
  }

  createReadStream(key: string): NodeJS.ReadableStream {
    const objectKey = this.objectKey(key);
    const cached = this.opts.cache.cached(key);
    if (cached) return createReadStream(cached);
    const out = new PassThrough();
    this.body(key, objectKey).then(
      (body) => pipeline(body, out).catch((e: Error) => out.destroy(e)),
      (e: Error) => out.destroy(e),
    );
    return out;
  }

  async delete(prefix: string): Promise<void> {
    const objectKey = this.objectKey(prefix);
    const { s3, client } = await this.aws();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: objectKey }));
    let token: string | undefined;
    do {
      const page = await client.send(new s3.ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: `${objectKey}/`, ContinuationToken: token }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length) await client.send(new s3.DeleteObjectsCommand({ Bucket: this.opts.bucket, Delete: { Objects: keys, Quiet: true } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    await this.opts.cache.forget(prefix);
  }

  async exists(key: string): Promise<boolean> {
    const objectKey = this.objectKey(key);
    // Keys are immutable: one cached here exists unless deleted, and deletes go through a node's store.
    if (this.opts.cache.has(key)) return true;
    const { s3, client } = await this.aws();
    try {
      await client.send(new s3.HeadObjectCommand({ Bucket: this.opts.bucket, Key: objectKey }));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  async *keys(): AsyncIterable<string> {
    const root = this.opts.prefix ? `${this.opts.prefix}/` : '';
    const { s3, client } = await this.aws();
    let token: string | undefined;
    do {
      const page = await client.send(new s3.ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: root, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield o.Key.slice(root.length);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Stops the client's sockets. */
  close(): void {
    this.client?.destroy();
  }

  private async body(key: string, objectKey: string): Promise<Readable> {
    const { s3, client } = await this.aws();
    try {
      const res = await client.send(new s3.GetObjectCommand({ Bucket: this.opts.bucket, Key: objectKey }));
      return res.Body as Readable;
    } catch (e) {
      if (isMissing(e)) throw notFound(`Object not found: ${key}`);
      throw e;
    }
  }
}
