import { open, type FileHandle } from 'node:fs/promises';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { badInput, bestEffort } from '@studio/schema';

/**
 * Just enough ZIP (PKWARE APPNOTE 6.3) for tileset archives: a writer that appends entries to a file
 * and a reader that finds one entry through the central directory and reads only its bytes. That
 * random access is what makes the tile calls a "zip proxy": a tile costs one entry, not the archive.
 * No ZIP64: archives stay under 4 GiB and 65,535 entries (the writer refuses more).
 */

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const STORE = 0;
const DEFLATE = 8;
const MAX_U32 = 0xffffffff;

interface Written { name: Buffer; crc: number; method: number; compressed: number; size: number; offset: number }

export class ZipWriter {
  private readonly entries: Written[] = [];
  private offset = 0;
  private constructor(private readonly fh: FileHandle) {}

  static async create(file: string): Promise<ZipWriter> {
    return new ZipWriter(await open(file, 'w'));
  }

  /** Parquet is compressed already, so it is stored; JSON is deflated. */
  async add(name: string, data: Uint8Array, compress = false): Promise<void> {
    if (this.entries.length >= 0xffff) throw badInput('The tileset is too large: more than 65,535 archive entries', 'Use fewer resolutions or time intervals');
    const body = compress ? deflateRawSync(data) : data;
    const method = compress ? DEFLATE : STORE;
    const nameBuf = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    if (this.offset + 30 + nameBuf.length + body.length > MAX_U32) throw badInput('The tileset is too large: the archive would pass 4 GiB');
    const h = Buffer.alloc(30);
    h.writeUInt32LE(LOCAL, 0);
    h.writeUInt16LE(20, 4); // version needed
    h.writeUInt16LE(0x0800, 6); // UTF-8 names
    h.writeUInt16LE(method, 8);
    h.writeUInt32LE(0, 10); // time, date
    h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(body.length, 18);
    h.writeUInt32LE(data.length, 22);
    h.writeUInt16LE(nameBuf.length, 26);
    h.writeUInt16LE(0, 28);
    await this.fh.write(h);
    await this.fh.write(nameBuf);
    await this.fh.write(body);
    this.entries.push({ name: nameBuf, crc, method, compressed: body.length, size: data.length, offset: this.offset });
    this.offset += h.length + nameBuf.length + body.length;
  }

  /** Writes the central directory and closes the file. */
  async close(): Promise<void> {
    try {
      const start = this.offset;
      for (const e of this.entries) {
        const c = Buffer.alloc(46);
        c.writeUInt32LE(CENTRAL, 0);
        c.writeUInt16LE(20, 4); // made by
        c.writeUInt16LE(20, 6); // needed
        c.writeUInt16LE(0x0800, 8);
        c.writeUInt16LE(e.method, 10);
        c.writeUInt32LE(0, 12);
        c.writeUInt32LE(e.crc, 16);
        c.writeUInt32LE(e.compressed, 20);
        c.writeUInt32LE(e.size, 24);
        c.writeUInt16LE(e.name.length, 28);
        // extra, comment, disk, internal attrs: 0
        c.writeUInt32LE(0, 38); // external attrs
        c.writeUInt32LE(e.offset, 42);
        await this.fh.write(c);
        await this.fh.write(e.name);
        this.offset += c.length + e.name.length;
      }
      const end = Buffer.alloc(22);
      end.writeUInt32LE(END, 0);
      end.writeUInt16LE(this.entries.length, 8);
      end.writeUInt16LE(this.entries.length, 10);
      end.writeUInt32LE(this.offset - start, 12);
      end.writeUInt32LE(start, 16);
      await this.fh.write(end);
    } finally {
      await this.fh.close();
    }
  }

  async abort(): Promise<void> {
    await bestEffort(this.fh.close(), 'Closing an abandoned archive');
  }
}

/** gzip's member header: magic, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

export interface ZipEntry { name: string; method: number; compressed: number; size: number; crc: number; offset: number }

/** Reads the central directory once; entries are then read one at a time by offset. */
export class ZipReader {
  private constructor(readonly file: string, readonly entries: Map<string, ZipEntry>) {}

  static async open(file: string): Promise<ZipReader> {
    const fh = await open(file, 'r');
    try {
      const { size } = await fh.stat();
      const tail = Math.min(size, 22 + 0xffff);
      const buf = Buffer.alloc(tail);
      await fh.read(buf, 0, tail, size - tail);
      let at = -1;
      for (let i = tail - 22; i >= 0; i--) if (buf.readUInt32LE(i) === END) { at = i; break; }
      if (at < 0) throw new Error('no end of central directory');
      const count = buf.readUInt16LE(at + 10);
      const dirSize = buf.readUInt32LE(at + 12);
      const dirStart = buf.readUInt32LE(at + 16);
      if (dirStart + dirSize > size) throw new Error('central directory past the end of the file');
      const dir = Buffer.alloc(dirSize);
      await fh.read(dir, 0, dirSize, dirStart);
      const entries = new Map<string, ZipEntry>();
      let p = 0;
      for (let i = 0; i < count; i++) {
        if (dir.readUInt32LE(p) !== CENTRAL) throw new Error('bad central directory entry');
        const nameLen = dir.readUInt16LE(p + 28);
        const extraLen = dir.readUInt16LE(p + 30);
        const commentLen = dir.readUInt16LE(p + 32);
        const name = dir.toString('utf8', p + 46, p + 46 + nameLen);
        entries.set(name, {
          name,
          method: dir.readUInt16LE(p + 10),
          crc: dir.readUInt32LE(p + 16),
          compressed: dir.readUInt32LE(p + 20),
          size: dir.readUInt32LE(p + 24),
          offset: dir.readUInt32LE(p + 42),
        });
        p += 46 + nameLen + extraLen + commentLen;
      }
      return new ZipReader(file, entries);
    } catch (e) {
      throw badInput('The tileset archive is not a readable ZIP file', (e as Error).message);
    } finally {
      await fh.close();
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes, checked against its CRC; null when the archive has no such entry. */
  async read(name: string): Promise<Buffer | null> {
    const stored = await this.stored(name);
    return stored && stored.data;
  }

  /**
   * A deflated entry as a gzip member, without compressing anything: gzip wraps the same raw deflate stream
   * in a 10-byte header and a trailer of the CRC-32 and size the zip already holds. The entry is inflated
   * once to check that CRC (a damaged archive is refused, never sent). Null when the entry is missing or
   * was stored uncompressed.
   */
  async readGzip(name: string): Promise<Buffer | null> {
    const stored = await this.stored(name);
    if (!stored || stored.entry.method !== DEFLATE) return null;
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(stored.entry.crc, 0);
    trailer.writeUInt32LE(stored.entry.size >>> 0, 4);
    return Buffer.concat([GZIP_HEADER, stored.raw, trailer]);
  }

  private async stored(name: string): Promise<{ entry: ZipEntry; raw: Buffer; data: Buffer } | null> {
    const e = this.entries.get(name);
    if (!e) return null;
    const fh = await open(this.file, 'r');
    try {
      const h = Buffer.alloc(30);
      await fh.read(h, 0, 30, e.offset);
      if (h.readUInt32LE(0) !== LOCAL) throw badInput('The tileset archive is damaged', `bad local header for ${name}`);
      const dataAt = e.offset + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
      const raw = Buffer.alloc(e.compressed);
      await fh.read(raw, 0, e.compressed, dataAt);
      let data: Buffer;
      if (e.method === STORE) data = raw;
      else if (e.method === DEFLATE) data = inflateRawSync(raw);
      else throw badInput('The tileset archive is damaged', `unsupported compression method ${e.method} for ${name}`);
      if (data.length !== e.size || crc32(data) !== e.crc) throw badInput('The tileset archive is damaged', `checksum mismatch for ${name}`);
      return { entry: e, raw, data };
    } finally {
      await fh.close();
    }
  }
}
