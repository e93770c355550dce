import { deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Files made to hurt a reader (#45), built small in memory: decompression bombs, archives whose directory lies.
 */

/**
 * A gzip body that expands to `expandsTo` bytes of spaces: members of 16 MB each (gunzip reads concatenated
 * members as one stream), ~16 KB apiece, so 1 GB comes from ~1 MB without building the gigabyte.
 */
export function gzipBomb(expandsTo: number): Buffer {
  const memberBytes = 16 * 1024 * 1024;
  const member = gzipSync(Buffer.alloc(memberBytes, 0x20), { level: 9 });
  return Buffer.concat(Array.from({ length: Math.ceil(expandsTo / memberBytes) }, () => member));
}

/** A zip entry as a bomb writes it: deflated bytes, and the uncompressed size its directory states (true or not). */
export interface RawZipEntry {
  name: string;
  deflated: Uint8Array;
  statedSize: number;
}

/**
 * A zip written byte by byte with the sizes as stated (CRCs left 0: the studio refuses these before any check
 * of them). `sameData` points every directory entry at the first one's local header and data: the overlapping
 * entries of the 261 KB bomb, each adding the stream's whole output.
 */
export function rawZip(entries: RawZipEntry[], opts: { sameData?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  entries.forEach((e, i) => {
    const name = Buffer.from(e.name);
    // The fields a local header and a directory entry share, the directory's two bytes further on.
    const describe = (b: Buffer, shift: number) => {
      b.writeUInt16LE(20, 4 + shift); // version needed
      b.writeUInt16LE(8, 8 + shift); // deflate
      b.writeUInt32LE(e.deflated.length, 18 + shift);
      b.writeUInt32LE(e.statedSize, 22 + shift);
      b.writeUInt16LE(name.length, 26 + shift);
    };
    const at = opts.sameData ? 0 : offset;
    if (!opts.sameData || i === 0) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      describe(local, 0);
      locals.push(local, name, Buffer.from(e.deflated));
      offset += 30 + name.length + e.deflated.length;
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    describe(central, 2);
    central.writeUInt32LE(at, 42);
    centrals.push(central, name);
  });
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** `bytes` of zeros as raw deflate (a 46-byte-per-256 MB stream is what bombs reuse). */
export const deflatedZeros = (bytes: number): Uint8Array => deflateRawSync(Buffer.alloc(bytes), { level: 9 });
