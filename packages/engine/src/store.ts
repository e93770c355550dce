import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { badInput, notFound, bestEffort } from '@studio/schema';

/**
 * Where datasets (Parquet files) live: a local folder (LocalObjectStore) or an S3-compatible bucket read
 * through a local cache (S3ObjectStore, object-stores/s3.ts).
 */
export interface ObjectStore {
  /** Stores the file at `fromFile` under `key`. Readers never see a half-written object. */
  put(key: string, fromFile: string): Promise<void>;
  /** A readable local file path for `key` (downloading first if the store is remote). */
  localPath(key: string): Promise<string>;
  createReadStream(key: string): NodeJS.ReadableStream;
  /** Deletes `prefix` itself and everything under `prefix/`. */
  delete(prefix: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Every key stored (for backups), in no particular order. */
  keys(): AsyncIterable<string>;
  /** Lets go of connections (a remote store's sockets) when the engine closes. */
  close?(): void;
}

// Keys become file paths: refuse anything that could escape the root or surprise a shell/SQL literal.
const KEY_RE = /^[A-Za-z0-9_\-.=]+(\/[A-Za-z0-9_\-.=]+)*$/;

export function checkKey(key: string): string {
  if (!KEY_RE.test(key) || key.split('/').some((p) => p === '.' || p === '..')) {
    throw badInput('Invalid storage key', key);
  }
  return key;
}

export class LocalObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  private file(key: string): string {
    return path.join(this.root, checkKey(key));
  }

  async put(key: string, fromFile: string): Promise<void> {
    const dest = this.file(key);
    await mkdir(path.dirname(dest), { recursive: true });
    // Temp name in the destination folder, so the final rename is atomic (same filesystem).
    const tmp = path.join(path.dirname(dest), `.${path.basename(dest)}.${randomUUID()}.tmp`);
    try {
      try {
        await rename(fromFile, tmp);
      } catch {
        await copyFile(fromFile, tmp); // fromFile on another filesystem
      }
      await rename(tmp, dest);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async localPath(key: string): Promise<string> {
    const f = this.file(key);
    if (!(await this.exists(key))) throw notFound(`Object not found: ${key}`);
    return f;
  }

  createReadStream(key: string): NodeJS.ReadableStream {
    return createReadStream(this.file(key));
  }

  async delete(prefix: string): Promise<void> {
    const f = this.file(prefix);
    // An object landing in the prefix while it is removed (an Arrow copy finishing as its dataset is deleted)
    // fails the last rmdir with ENOTEMPTY: Node's rm then goes over the folder again.
    await rm(f, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }

  async *keys(): AsyncIterable<string> {
    let names: string[];
    try {
      names = await readdir(this.root, { recursive: true });
    } catch {
      return; // nothing stored yet
    }
    for (const name of names.sort()) {
      const key = name.split(path.sep).join('/');
      // Half-written objects (".name.uuid.tmp") are not objects.
      if (key.split('/').some((p) => p.startsWith('.'))) continue;
      if ((await stat(path.join(this.root, name))).isFile()) yield key;
    }
  }

  async exists(key: string): Promise<boolean> {
    const f = this.file(key); // an invalid key is an error, not "absent"
    try {
      return (await stat(f)).isFile();
    } catch {
      return false;
    }
  }
}

/** Removes a file that may already be gone; any other failure (permissions, a busy disk) is logged. */
export async function removeQuietly(file: string): Promise<void> {
  await unlink(file).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : bestEffort(Promise.reject(e), `Removing ${file}`)));
}
