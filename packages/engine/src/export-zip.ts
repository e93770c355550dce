import { createReadStream } from 'node:fs';
import { Transform, pipeline } from 'node:stream';
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
}

const LIMIT = 0xffff_ffff;
const tooLarge = () => new Error('The zip would pass 4 GB, which this writer (no ZIP64) cannot hold');

/** MS-DOS time and date of now (the zip's one timestamp field). */
function dosTime(d = new Date()): [number, number] {
  return [(d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1), ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate()];
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
    if (entry.file) {
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
