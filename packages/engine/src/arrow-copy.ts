/**
 * The Arrow IPC stream of a stored dataset, kept as a file next to its Parquet (`<key>.arrows`), so reads
 * of the same data (every time a map opens it) stream the file instead of decoding Parquet and rebuilding
 * Arrow. It is written right after ingestion (writeArrowCopy, unless the caller skipped it) or by the first
 * complete read (arrowWithCopy). Storage keys never change content (each ingestion writes a new key), so a
 * copy is never stale; it is removed with its dataset. Reads that stop early, fail, or pass MAX_COPY_BYTES
 * leave no copy. Both writers go through a temp file renamed into place, so a crash leaves at worst a temp
 * file that is never served (and is removed at the next start).
 */
import { randomUUID } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { BufferPool } from './buffers';
import { removeQuietly, type ObjectStore } from './store';
import { abortError } from './stream';
import { bestEffort } from '@studio/schema';

/** Datasets whose Arrow stream is larger are not copied (about 8M rows of 8 columns). */
const MAX_COPY_BYTES = 512 * 1024 * 1024;
/** Bytes read from a copy at a time. */
const READ_BYTES = 4 * 1024 * 1024;

export const arrowCopyKey = (key: string) => `${key}.arrows`;

/**
 * The fewest bytes a row takes in the Arrow stream, per DuckDB column type: fixed-width values their width, a
 * variable-width one its 4-byte offset (its bytes come on top), a boolean nothing whole. Types not named count 0.
 */
const LEAST_ROW_BYTES: Record<string, number> = {
  TINYINT: 1, UTINYINT: 1, SMALLINT: 2, USMALLINT: 2, INTEGER: 4, UINTEGER: 4, FLOAT: 4, DATE: 4,
  BIGINT: 8, DOUBLE: 8, TIMESTAMP: 8, 'TIMESTAMP WITH TIME ZONE': 8, TIMESTAMP_S: 8, TIMESTAMP_MS: 8, TIMESTAMP_NS: 8,
  VARCHAR: 4, BLOB: 4,
};

/**
 * Whether a copy of `rows` rows of these column types could stay under the cap: false only when even the least
 * the stream can take (no strings' bytes, no validity, no framing) is past it. Such a dataset would build up to
 * 512 MB of Arrow after each ingestion and on each first read, only to drop it.
 */
export function arrowCopyCouldFit(rows: number, columnTypes: readonly string[]): boolean {
  const perRow = columnTypes.reduce((n, t) => n + (LEAST_ROW_BYTES[t] ?? 0), 0);
  return rows * perRow <= MAX_COPY_BYTES;
}

/** The copy's bytes, READ_BYTES at a time, in buffers from `pool` when given (the consumer gives them back). */
export async function* readCopy(file: string, signal?: AbortSignal, pool?: BufferPool): AsyncGenerator<Uint8Array> {
  const fh = await open(file, 'r');
  try {
    for (;;) {
      if (signal?.aborted) throw abortError();
      const buf = pool ? pool.take(READ_BYTES) : Buffer.allocUnsafeSlow(READ_BYTES);
      const { bytesRead } = await fh.read(buf, 0, READ_BYTES, null);
      if (bytesRead === 0) {
        pool?.give(buf);
        return;
      }
      yield bytesRead < READ_BYTES ? buf.subarray(0, bytesRead) : buf;
    }
  } finally {
    await fh.close();
  }
}

/** A copy being written: a temp file that becomes its copy key on commit, dropped once past MAX_COPY_BYTES. */
class CopyFile {
  private written = 0;
  private constructor(
    private readonly tmp: string,
    private fh: FileHandle | null,
  ) {}

  static async open(tmpDir: string): Promise<CopyFile> {
    const tmp = path.join(tmpDir, `arrow-${randomUUID()}.arrows`);
    return new CopyFile(tmp, await open(tmp, 'w'));
  }

  /** False once the copy has been dropped for its size (later pieces are ignored). */
  get open(): boolean {
    return this.fh !== null;
  }

  async write(piece: Uint8Array): Promise<void> {
    if (!this.fh) return;
    this.written += piece.byteLength;
    if (this.written > MAX_COPY_BYTES) return this.discard();
    let done = 0;
    while (done < piece.byteLength) done += (await this.fh.write(piece, done, piece.byteLength - done)).bytesWritten;
  }

  /** Moves a complete copy into place under `copyKey`; false when it was dropped. */
  async commit(store: ObjectStore, copyKey: string): Promise<boolean> {
    if (!this.fh) return false;
    await this.fh.close();
    this.fh = null;
    try {
      await store.put(copyKey, this.tmp);
      return true;
    } finally {
      await removeQuietly(this.tmp);
    }
  }

  async discard(): Promise<void> {
    await this.fh?.close();
    this.fh = null;
    await removeQuietly(this.tmp);
  }
}

/**
 * Streams the copy when there is one; otherwise streams `build()` and, when `keep` (no other writer is
 * building this copy), writes the same bytes to a temp file that becomes the copy once the stream has
 * completed. Each piece is written to the file after it is handed on and before the next is built, so a
 * pooled buffer is never reused while the file write still reads it.
 */
export async function* arrowWithCopy(
  store: ObjectStore,
  tmpDir: string,
  key: string,
  build: () => AsyncGenerator<Uint8Array>,
  /** `keep`: whether to keep what is built as the copy (kept when absent); asked only when there is no copy yet. */
  opts: { signal?: AbortSignal; pool?: BufferPool; keep?: () => Promise<boolean> } = {},
): AsyncGenerator<Uint8Array> {
  const copyKey = arrowCopyKey(key);
  if (await store.exists(copyKey)) {
    yield* readCopy(await store.localPath(copyKey), opts.signal, opts.pool);
    return;
  }
  if (opts.keep && !(await opts.keep())) {
    yield* build();
    return;
  }
  const file = await CopyFile.open(tmpDir);
  let complete = false;
  try {
    for await (const piece of build()) {
      yield piece;
      await file.write(piece);
    }
    complete = true;
  } finally {
    if (complete) await bestEffort(file.commit(store, copyKey), `Storing the Arrow copy ${key}`);
    else await file.discard();
  }
}

/**
 * Writes the copy of `key` from `build()` without serving it (after ingestion). Stops building once past
 * MAX_COPY_BYTES. Answers whether a copy exists afterwards; an existing copy is kept as it is.
 */
export function writeArrowCopy(store: ObjectStore, tmpDir: string, key: string, build: () => AsyncGenerator<Uint8Array>): Promise<boolean> {
  return writeCopy(store, tmpDir, arrowCopyKey(key), build);
}

/** writeArrowCopy under any copy key (the GeoArrow copy's too, geoarrow-copy.ts): through a temp file, within MAX_COPY_BYTES. */
export async function writeCopy(store: ObjectStore, tmpDir: string, copyKey: string, build: () => AsyncGenerator<Uint8Array>): Promise<boolean> {
  if (await store.exists(copyKey)) return true;
  const file = await CopyFile.open(tmpDir);
  try {
    for await (const piece of build()) {
      await file.write(piece);
      if (!file.open) return false; // leaving the loop ends the build (its connection goes back)
    }
    return await file.commit(store, copyKey);
  } finally {
    await file.discard();
  }
}
