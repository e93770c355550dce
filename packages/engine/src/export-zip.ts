import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Transform, pipeline, type TransformOptions } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import zlib from 'node:zlib';

/**
 * A zip written as it is read (PKWARE APPNOTE 6.3: each entry's local header, its deflated bytes, then a data
 * descriptor with the CRC and sizes, since they are known only after the data; the central directory at the end).
 * Node's own zlib deflates (native, several times faster than a JavaScript deflate on these machines: fflate's took
 * most of a Shapefile download's time). No ZIP64: an entry or the archive past 4 GB is refused before it is written.
 */
export interface ZipEntry {
  name: string;
  /** A file read a megabyte at a time, or bytes in memory. */
  file?: string;
  data?: Uint8Array;
  /** Bytes deflated already as they were written (DeflatedBody), after `head`: the member is `head` then the body. */
  deflated?: { head: Uint8Array; body: DeflatedBody };
}

const LIMIT = 0xffff_ffff;
const tooLarge = () => new Error('The zip would pass 4 GB, which this writer (no ZIP64) cannot hold');

/** MS-DOS time and date of now (the zip's one timestamp field). */
function dosTime(d = new Date()): [number, number] {
  return [(d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1), ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate()];
}

/**
 * A zip member's body deflated while it is being written, into a temp file of deflated bytes: zlib deflates on its
 * thread pool, on the other core, while JavaScript makes the next bytes (a Shapefile download of 1M points spent 0.8 s
 * deflating its files after writing them). The member's head (a header whose counts are known only at the end) is
 * deflated apart and put in front when zipped: a raw deflate stream flushed to a byte boundary, followed by another,
 * is one valid deflate stream (RFC 1951 blocks, as pigz joins its pieces); the CRC of head and body is combined.
 */
export class DeflatedBody {
  crc = 0;
  size = 0;
  private readonly deflate: zlib.DeflateRaw;
  private readonly written: Promise<void>;
  constructor(
    readonly file: string,
    readonly level = 1,
  ) {
    // A few megabytes may wait for zlib, so JavaScript seldom waits for it; the output leaves in large pieces. (Node
    // hands a zlib stream's options to its Transform, whose buffer the high-water mark sizes.) memLevel 9: the same
    // bytes out, deflated 5-15% faster than at the default 8 (a 1M-point .shp 324 -> 257 ms, its .dbf 359 -> 334 ms).
    const options: zlib.ZlibOptions & TransformOptions = { level, memLevel: 9, chunkSize: 1 << 18, writableHighWaterMark: 4 << 20 };
    this.deflate = zlib.createDeflateRaw(options);
    this.written = pipelineAsync(this.deflate, createWriteStream(file));
    this.written.catch(() => {}); // awaited by end(); an error also rejects the write waiting for 'drain'
  }
  /** Takes `bytes`: they must not change until `read` is called, once zlib has read them. */
  async write(bytes: Uint8Array, read?: () => void): Promise<void> {
    if (!bytes.length) return;
    this.crc = zlib.crc32(bytes, this.crc);
    this.size += bytes.length;
    if (!this.deflate.write(bytes, (error) => error || read?.())) await once(this.deflate, 'drain');
  }
  async end(): Promise<void> {
    this.deflate.end();
    await this.written;
  }
  /** Stops at once (on an error elsewhere), closing the temp file. */
  async destroy(): Promise<void> {
    this.deflate.destroy();
    await this.written.catch(() => {});
  }
}

/** zlib's crc32_combine (1.2.12's x2nmodp form): the CRC of A then B from A's, B's and B's length. */
const CRC_POLY = 0xedb88320;
function multModP(a: number, b: number): number {
  let m = 0x8000_0000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ CRC_POLY : b >>> 1;
  }
  return p >>> 0;
}
/** x^(2^k) modulo the CRC polynomial, k = 0..31. */
const X2N: number[] = [0x4000_0000];
for (let k = 1; k < 32; k++) X2N.push(multModP(X2N[k - 1]!, X2N[k - 1]!));
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let p = 0x8000_0000; // x^0
  // x^(8 * lengthB): lengthB's bits taken from 2^3 on (a byte is 8 bits).
  for (let n = lengthB, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multModP(X2N[k & 31]!, p);
  return (multModP(p, crcA >>> 0) ^ crcB) >>> 0;
}

export async function* zipStream(entries: Iterable<ZipEntry>, level = 1): AsyncGenerator<Uint8Array> {
  const [time, date] = dosTime();
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6); // data descriptor follows; names in UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt16LE(name.length, 26);
    const start = offset;
    yield Buffer.concat([local, name]);
    offset += 30 + name.length;
    let crc = 0;
    let size = 0;
    let compressed = 0;
    if (entry.deflated) {
      const { head, body } = entry.deflated;
      // Z_SYNC_FLUSH ends the head's deflate on a byte boundary without a final block: the body's blocks follow.
      const out = zlib.deflateRawSync(head, { level: body.level, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      yield out;
      compressed = out.length;
      for await (const piece of createReadStream(body.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        compressed += piece.length;
        yield piece;
      }
      crc = crc32Combine(zlib.crc32(head), body.crc, body.size);
      size = head.length + body.size;
    } else if (entry.file) {
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          crc = zlib.crc32(chunk, crc);
          size += chunk.length;
          done(null, chunk);
        },
      });
      const deflated = pipeline(createReadStream(entry.file, { highWaterMark: 1 << 20 }), tap, zlib.createDeflateRaw({ level }), () => {});
      for await (const out of deflated as AsyncIterable<Buffer>) {
        compressed += out.length;
        yield out;
      }
    } else {
      const data = entry.data ?? new Uint8Array(0);
      crc = zlib.crc32(data);
      size = data.length;
      const out = zlib.deflateRawSync(data, { level });
      compressed = out.length;
      yield out;
    }
    if (size > LIMIT || offset + compressed > LIMIT) throw tooLarge();
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    yield descriptor;
    offset += compressed + 16;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0808, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt16LE(time, 12);
    c.writeUInt16LE(date, 14);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(compressed, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(start, 42);
    central.push(c, name);
    count++;
  }
  const directory = Buffer.concat(central);
  if (offset + directory.length > LIMIT || count > 0xffff) throw tooLarge();
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield Buffer.concat([directory, end]);
}
