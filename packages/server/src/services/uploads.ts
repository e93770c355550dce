import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { checkKey, type ObjectStore } from '@studio/engine';
import { StudioError, type UploadPolicy } from '@studio/schema';
import type { Secrets } from '../auth/secrets';

/** What a signed policy authorizes: one upload of one content type for one purpose and record. */
export interface PolicyClaims {
  purpose: string;
  resourceId: string;
  contentType: string;
  /** Epoch milliseconds after which the policy is refused. */
  exp: number;
  maxBytes: number;
}

export const POLICY_TTL_MS = 15 * 60 * 1000;

/**
 * Signed upload policies (analytics-and-admin §5, §9): HMAC-signed claims checked for signature and
 * expiry, so any API node can accept an upload without shared session state.
 */
export class UploadPolicies {
  constructor(private readonly secrets: Secrets) {}

  issue(claims: Omit<PolicyClaims, 'exp'> & { ttlMs?: number }): UploadPolicy {
    const exp = Date.now() + (claims.ttlMs ?? POLICY_TTL_MS);
    const payload = Buffer.from(
      JSON.stringify({ purpose: claims.purpose, resourceId: claims.resourceId, contentType: claims.contentType, exp, maxBytes: claims.maxBytes }),
    ).toString('base64url');
    return {
      url: '/v1/uploads',
      fields: { policy: payload, signature: this.secrets.sign(payload) },
      contentType: claims.contentType,
      expiresAt: new Date(exp).toISOString(),
    };
  }

  verify(policy: string, signature: string): PolicyClaims {
    if (!this.secrets.verify(policy, signature)) throw new StudioError(403, 'Invalid upload policy signature');
    let claims: PolicyClaims;
    try {
      claims = JSON.parse(Buffer.from(policy, 'base64url').toString('utf8')) as PolicyClaims;
    } catch {
      throw new StudioError(403, 'Invalid upload policy');
    }
    if (!(claims.exp > Date.now())) throw new StudioError(403, 'Upload policy has expired');
    return claims;
  }
}

/**
 * Small binary objects of the catalog (thumbnails, asset files) in an object store: `dataDir/blobs` on one
 * machine, the shared bucket's `blobs/` when the studio runs on S3, so every node serves what any node stored.
 * A write lands in a temporary file first, so a cut-off upload never leaves a readable half.
 */
export class BlobStore {
  constructor(private readonly store: ObjectStore, private readonly tmpDir: string) {}

  /** Stores `body` under `key`, refusing it past `maxBytes` (413) with nothing stored; answers its size. */
  async write(key: string, body: NodeJS.ReadableStream, maxBytes: number): Promise<number> {
    checkKey(key);
    await fs.mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, `blob-${randomUUID()}.part`);
    let size = 0;
    try {
      await pipeline(
        body as NodeJS.ReadableStream & AsyncIterable<Buffer>,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            size += chunk.length;
            if (size > maxBytes) throw new StudioError(413, `Upload is larger than ${maxBytes} bytes`);
            yield chunk;
          }
        },
        createWriteStream(tmp),
      );
      await this.store.put(key, tmp);
      return size;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /** The bytes under `key`, or null when there are none. */
  async read(key: string): Promise<Buffer | null> {
    if (!(await this.store.exists(key))) return null;
    return fs.readFile(await this.store.localPath(key));
  }

  async remove(key: string): Promise<void> {
    await this.store.delete(key);
  }
}
