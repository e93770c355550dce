import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { File, Storage, StorageOptions } from '@google-cloud/storage';
import { CONNECTION_CONFIGS, badInput, onFirstUse } from '@studio/schema';
import { cancelled, type DriverTarget } from '../driver';
import { googleEndpoint, googleError, selfSignedJwt, serviceAccountOf } from '../google';
import { contentTypeOfKey, underPrefix, type StorageDriver, type StorageItem } from '../storage';

/**
 * Google Cloud Storage through Google's own client (@google-cloud/storage, its JSON API), signed with the
 * connection's service account key; a custom endpoint (an emulator, a private one) is checked and
 * authenticated like Google's, every request sent to the address the network rule checked (../google.ts).
 */

interface Target {
  storage: Storage;
  bucket: string;
  prefix?: string;
}

/** Google's client, loaded on the first call of a Cloud Storage connection (40 MB of a server's memory). */
const storageSdk = onFirstUse(() => import('@google-cloud/storage'));

async function gcsTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.gcs.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const c = parsed.data;
  const key = serviceAccountOf(t);
  const { apiEndpoint, interceptor } = await googleEndpoint(t, 'storage.googleapis.com', c.endpoint);
  const { Storage } = await storageSdk();
  const storage = new Storage({
    projectId: key.project_id ?? 'studio',
    // Requests carry a JWT the key signs itself (scoped): no exchange at Google's token endpoint, one
    // fewer host for the network rule.
    authClient: selfSignedJwt('@google-cloud/storage', key, ['https://www.googleapis.com/auth/devstorage.read_only']) as StorageOptions['authClient'],
    ...(apiEndpoint && { apiEndpoint, useAuthWithCustomEndpoint: true }),
    retryOptions: { autoRetry: false, totalTimeout: t.settings.connectTimeoutMs / 1000 },
    timeout: t.settings.statementTimeoutMs,
  });
  storage.interceptors.push(interceptor as unknown as (typeof storage.interceptors)[number]);
  return { storage, bucket: c.bucket, prefix: c.prefix || undefined };
}

export const gcsDriver: StorageDriver = {
  async test(target) {
    const g = await gcsTarget(target);
    try {
      await g.storage.bucket(g.bucket).getFiles({ prefix: g.prefix, delimiter: '/', maxResults: 1, autoPaginate: false });
    } catch (e) {
      throw googleError(e, 'Could not list the bucket: ');
    }
    return { ok: true as const, serverVersion: `Cloud Storage bucket ${g.bucket}${g.prefix ? `/${g.prefix}` : ''}` };
  },

  async list(target, prefix) {
    const g = await gcsTarget(target);
    const under = prefix || g.prefix || '';
    if (!underPrefix(under, g.prefix)) throw badInput(`${under} is outside this connection's prefix ${g.prefix}`);
    try {
      const [files, next, response] = (await g.storage.bucket(g.bucket).getFiles({ prefix: under, delimiter: '/', maxResults: 1000, autoPaginate: false })) as unknown as [File[], unknown, { prefixes?: string[] }];
      const folders: StorageItem[] = (response?.prefixes ?? []).map((p) => ({ name: p.slice(under.length), key: p, type: 'folder' }));
      const objects: StorageItem[] = files
        .filter((f) => f.name !== under)
        .map((f) => ({ name: f.name.slice(under.length), key: f.name, type: 'object', size: Number(f.metadata.size ?? 0), lastModified: f.metadata.updated ? new Date(f.metadata.updated).toISOString() : undefined }));
      return { items: [...folders, ...objects], truncated: Boolean(next) };
    } catch (e) {
      throw googleError(e);
    }
  },

  async download(target, key, file, signal) {
    const g = await gcsTarget(target);
    if (!underPrefix(key, g.prefix)) throw badInput(`${key} is outside this connection's prefix ${g.prefix}`);
    const object = g.storage.bucket(g.bucket).file(key);
    try {
      const [metadata] = await object.getMetadata();
      await pipeline(object.createReadStream({ validation: false }), createWriteStream(file), { signal });
      return { contentType: contentTypeOfKey(key, metadata.contentType), size: Number(metadata.size ?? 0) };
    } catch (e) {
      throw signal?.aborted ? cancelled() : googleError(e);
    }
  },
};
