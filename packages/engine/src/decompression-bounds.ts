import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { StudioError, badInput, isStudioError } from '@studio/schema';

/**
 * The most bytes one dataset upload may hold, counted after decompression too (a gzip body): large files are
 * the point, so it is far above the JSON body limit.
 */
export const UPLOAD_MAX_BYTES = 20 * 1024 ** 3;

/**
 * Past this many times its compressed size, a body or archive is taken for a decompression bomb: deflate tops
 * out near 1,032:1, real data (CSV, GeoJSON, Shapefiles) compresses 3-20:1, so 200:1 is far from both.
 */
export const DECOMPRESSION_MAX_RATIO = 200;

/**
 * Output below this is never refused for its ratio: a few-KB file of repeated commas may exceed 200:1 and harms
 * no one; a bomb needs bytes to hurt.
 */
export const RATIO_FREE_BYTES = 16 * 1024 * 1024;

/** The most bytes `compressedBytes` may expand to: the ratio rule, then the upload limit. */
export const expansionCap = (compressedBytes: number, maxBytes = UPLOAD_MAX_BYTES): number =>
  Math.min(maxBytes, Math.max(RATIO_FREE_BYTES, compressedBytes * DECOMPRESSION_MAX_RATIO));

/** The refusal of output past `cap` (from {@link expansionCap}): 413 when the upload limit set it, else 422 for the ratio. */
export function expansionRefused(what: string, cap: number, maxBytes = UPLOAD_MAX_BYTES): StudioError {
  if (cap >= maxBytes) return new StudioError(413, `${what} is larger than ${maxBytes} bytes once decompressed`);
  return badInput(`${what} expands to more than ${DECOMPRESSION_MAX_RATIO} times its size: refused as a decompression bomb`);
}

/**
 * Gunzips `src` into `dest`, counting the output as it streams: past the cap the pipeline stops at once (the
 * caller removes the partial `dest`), so a 1 MB body meant to become 1 GB writes at most 200 MB.
 */
export async function gunzipBounded(src: string, dest: string, maxBytes = UPLOAD_MAX_BYTES): Promise<void> {
  const compressed = (await stat(src)).size;
  const cap = expansionCap(compressed, maxBytes);
  let written = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      if (written > cap) done(expansionRefused('The gzip body', cap, maxBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(src, { highWaterMark: 1 << 20 }), createGunzip({ chunkSize: 1 << 20 }), count, createWriteStream(dest));
  } catch (e) {
    if (isStudioError(e)) throw e;
    const why = (e as NodeJS.ErrnoException).code === 'Z_BUF_ERROR' ? 'the file is truncated' : (e as Error).message;
    throw badInput(`Could not decompress the gzip body: ${why}`);
  }
}
