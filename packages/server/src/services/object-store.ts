import path from 'node:path';
import { ReadThroughCache, S3ObjectStore, type ObjectStore } from '@studio/engine';
import type { StudioConfig } from '../config';

/**
 * The object store STUDIO_OBJECT_STORE names: an S3 bucket shared by every node, read through this node's
 * bounded cache under <dataDir>/object-cache; undefined keeps the engine's local folder.
 */
export async function objectStoreOf(config: StudioConfig): Promise<ObjectStore | undefined> {
  if (!config.objectStore) return undefined;
  const { bucket, prefix, endpoint, region, forcePathStyle, credentials } = config.objectStore;
  const cache = await ReadThroughCache.open({ dir: path.join(config.dataDir, 'object-cache'), maxBytes: config.objectCacheMb * 1024 * 1024 });
  return new S3ObjectStore({
    bucket,
    prefix,
    cache,
    client: { region, forcePathStyle, ...(endpoint ? { endpoint } : {}), ...(credentials ? { credentials: { ...credentials } } : {}) },
  });
}
