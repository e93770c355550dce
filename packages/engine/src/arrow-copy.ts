/**
 * The Arrow IPC stream of a stored dataset, kept as a file next to its Parquet after the first complete
 * read (`<key>.arrows`), so later reads of the same data (every time a map opens it) stream the file
 * instead of decoding Parquet and rebuilding Arrow. Storage keys never change content (each ingestion
 * writes a new key), so a copy is never stale; it is removed with its dataset. Reads that stop early,
 * fail, or pass MAX_COPY_BYTES leave no copy.
 */
import { randomUUID } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { BufferPool } from './buffers';
import { removeQuietly, type ObjectStore } from './store';
import { abortError } from './stream';

/** Datasets whose Arrow stream is larger are not copied (about 8M rows of 8 columns). */
const MAX_COPY_BYTES = 512 * 1024 * 1024;
/** Bytes read from a copy at a time. */
const READ_BYTES = 4 * 1024 * 1024;

export const arrowCopyKey = (key: string) => `${key}.arrows`;

/** The copy's bytes, READ_BYTES at a time, in buffers from `pool` when given (the consumer gives them back). */
async function* readCopy(file: string, signal?: AbortSignal, pool?: BufferPool): AsyncGenerator<Uint8Array> {
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

async function writeAll(fh: FileHandle, piece: Uint8Array): Promise<void> {
  let done = 0;
  while (done < piece.byteLength) done += (await fh.write(piece, done, piece.byteLength - done)).bytesWritten;
}

/**
 * Streams the copy when there is one; otherwise streams `build()` and writes the same bytes to a temp
 * file that becomes the copy once the stream has completed. Each piece is written to the file after it
 * is handed on and before the next is built, so a pooled buffer is never reused while the file write
 * still reads it.
 */
export async function* arrowWithCopy(
  store: ObjectStore,
  tmpDir: string,
  key: string,
  build: () => AsyncGenerator<Uint8Array>,
  opts: { signal?: AbortSignal; pool?: BufferPool } = {},
): AsyncGenerator<Uint8Array> {
  const copyKey = arrowCopyKey(key);
  if (await store.exists(copyKey)) {
    yield* readCopy(await store.localPath(copyKey), opts.signal, opts.pool);
    return;
  }
  const tmp = path.join(tmpDir, `arrow-${randomUUID()}.arrows`);
  let fh: FileHandle | null = await open(tmp, 'w');
  let written = 0;
  let complete = false;
  try {
    for await (const piece of build()) {
      yield piece;
      if (!fh) continue;
      written += piece.byteLength;
      if (written > MAX_COPY_BYTES) {
        await fh.close();
        fh = null;
        await removeQuietly(tmp);
        continue;
      }
      await writeAll(fh, piece);
    }
    complete = true;
  } finally {
    await fh?.close();
    if (complete && fh) await store.put(copyKey, tmp).catch(() => undefined);
    await removeQuietly(tmp);
  }
}
