import path from 'node:path';
import { LocalObjectStore, ReadThroughCache, S3ObjectStore, withinPrefix, type ObjectStore } from '@studio/engine';
import type { StudioConfig } from '../config';

/** Where the studio keeps its objects: datasets' files (the engine's store) and the catalog's blobs (thumbnails, asset files). */
export interface StudioStores {
  objects: ObjectStore;
  blobs: ObjectStore;
}

/**
 * The stores STUDIO_OBJECT_STORE names: an S3 bucket shared by every node, read through this node's bounded
 * cache under <dataDir>/object-cache, blobs under its `blobs/`; unset, the folders <dataDir>/objects and
 * <dataDir>/blobs.
 */
export async function studioStores(config: StudioConfig): Promise<StudioStores> {
  if (!config.objectStore) {
    return { objects: new LocalObjectStore(path.join(config.dataDir, 'objects')), blobs: new LocalObjectStore(path.join(config.dataDir, 'blobs')) };
  }
  const { bucket, prefix, endpoint, region, forcePathStyle, credentials } = config.objectStore;
  const cache = await ReadThroughCache.open({ dir: path.join(config.dataDir, 'object-cache'), maxBytes: config.objectCacheMb * 1024 * 1024 });
  const objects = new S3ObjectStore({
    bucket,
    prefix,
    cache,
    client: { region, forcePathStyle, ...(endpoint ? { endpoint } : {}), ...(credentials ? { credentials: { ...credentials } } : {}) },
  });
  return { objects, blobs: withinPrefix(objects, BLOB_PREFIX) };
}

/** The blobs' part of a shared bucket. */
export const BLOB_PREFIX = 'blobs';
