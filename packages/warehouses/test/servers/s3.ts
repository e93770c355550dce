import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** Keys the tests use (s3rver accepts any well-formed signature with them). */
export const S3_KEYS = Object.freeze({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });

export interface S3Server {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A local S3-compatible server (s3rver) on a loopback port with one bucket holding `objects`
 * (key → body), uploaded through the S3 API itself.
 */
export async function startS3Server(bucket: string, objects: Record<string, string | Buffer>): Promise<S3Server> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  // A copy: the SDK marks the credentials object it is given ($source).
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { ...S3_KEYS } });
  for (const [Key, Body] of Object.entries(objects)) await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body }));
  client.destroy();
  return {
    endpoint,
    port,
    close: async () => {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
