import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import * as flatbuffers from 'flatbuffers';
import { Header } from 'flatgeobuf/lib/mjs/flat-geobuf/header.js';
import { calcTreeSize } from 'flatgeobuf/lib/mjs/packedrtree.js';
import { badInput } from '@studio/schema';

/**
 * The FlatGeobuf reader trusts every length in the file: a 12-byte file (magic, header length 0) sends its
 * index sizing round a loop without end on the event loop (calcTreeSize of 0 features), and a feature claiming 2 GB is allocated before it
 * is read. So the file's frame is walked here first, without the library: magic, a header that fits and parses
 * within its bytes, an index that fits, then every feature's length prefix (each inside the file, none empty).
 */

const MAGIC = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62];
/** Headers hold the columns and the CRS's WKT: kilobytes. */
const HEADER_MAX_BYTES = 16 * 1024 * 1024;
/** The least a feature's flatbuffer can be (a root offset and a vtable). */
const FEATURE_MIN_BYTES = 8;

const refused = (why: string) => badInput(`Could not read FlatGeobuf: ${why}`);

export async function assertFlatGeobufFrame(file: string): Promise<void> {
  const handle = await open(file, 'r');
  let featuresStart: number;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    if (bytesRead < 12) throw refused('the file is truncated (it ends before its header)');
    if (!MAGIC.every((b, i) => head[i] === b)) throw refused('not a FlatGeobuf file (version 3) by its first bytes');
    const headerLength = head.readUInt32LE(8);
    if (headerLength < FEATURE_MIN_BYTES || headerLength > HEADER_MAX_BYTES) throw refused(`the header length (${headerLength} bytes) is not one a file has`);
    if (12 + headerLength > size) throw refused('the file is truncated (it ends inside its header)');
    const headerBytes = Buffer.alloc(headerLength);
    await handle.read(headerBytes, 0, headerLength, 12);
    const header = Header.getRootAsHeader(new flatbuffers.ByteBuffer(headerBytes));
    // Accessors of a damaged flatbuffer read zeros or garbage, never loop: bounds on what they answer suffice.
    if (headerBytes.readUInt32LE(0) >= headerLength || header.columnsLength() > headerLength / 4 || header.envelopeLength() > headerLength / 8) {
      throw refused('the header is damaged');
    }
    const featuresCount = header.featuresCount();
    const indexNodeSize = header.indexNodeSize();
    if (featuresCount > BigInt(size)) throw refused('the header counts more features than the file could hold');
    // The reader sizes the index by halving the count until it reaches 1: from 0 it never does (the 12-byte file's
    // header reads as 0 features with the default index node size, 16).
    if (indexNodeSize > 0 && featuresCount === 0n) throw refused('the header counts no features but announces an index of them');
    const indexBytes = indexNodeSize > 0 && featuresCount > 0n ? calcTreeSize(Number(featuresCount), indexNodeSize) : 0;
    featuresStart = 12 + headerLength + indexBytes;
    if (featuresStart > size) throw refused('the file is truncated (it ends inside its index)');
  } finally {
    await handle.close();
  }
  await walkFeatureLengths(file, featuresStart, size);
}

/** Each feature is a uint32 length and that many bytes: the lengths are followed to the end of the file. */
async function walkFeatureLengths(file: string, start: number, size: number): Promise<void> {
  let at = start; // where the next feature's length prefix starts
  let prefix = 0;
  let prefixBytes = 0;
  let position = start;
  for await (const chunk of createReadStream(file, { start, highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let i = Math.max(0, at - position);
    while (i < chunk.length) {
      prefix |= chunk[i]! << (8 * prefixBytes);
      i++;
      if (++prefixBytes < 4) continue;
      const length = prefix >>> 0;
      if (length < FEATURE_MIN_BYTES) throw refused(`feature at byte ${at} has a length of ${length}`);
      at += 4 + length;
      if (at > size) throw refused('the file is truncated (it ends inside a feature)');
      prefix = prefixBytes = 0;
      i = at - position;
    }
    position += chunk.length;
  }
  if (prefixBytes) throw refused('the file is truncated (it ends inside a feature length)');
}
