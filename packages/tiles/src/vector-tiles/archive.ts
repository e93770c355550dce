import { open } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { Compression, PMTiles, SharedPromiseCache, type RangeResponse, type Source } from 'pmtiles';
import { StudioError } from '@studio/schema';
import type { ObjectStore } from '@studio/engine';

/** Archives kept open; the least recently used go first. */
const OPEN_ARCHIVES = 64;
/** Headers and directories kept decoded, shared by all open archives (a leaf directory holds up to ~4k entries). */
const CACHED_DIRECTORIES = 256;

/** Byte ranges of a local archive file. Each read opens the file: a replaced archive is a new key anyway. */
class FileRangeSource implements Source {
  constructor(
    private readonly key: string,
    private readonly file: string,
  ) {}

  getKey(): string {
    return this.key;
  }

  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    const fh = await open(this.file, 'r');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      return { data: buf.buffer.slice(buf.byteOffset, buf.byteOffset + bytesRead) as ArrayBuffer };
    } finally {
      await fh.close();
    }
  }
}

async function decompress(buf: ArrayBuffer, compression: Compression): Promise<ArrayBuffer> {
  if (compression === Compression.None || compression === Compression.Unknown) return buf;
  if (compression !== Compression.Gzip) throw new StudioError(500, 'Unsupported tile compression in archive');
  const out = gunzipSync(new Uint8Array(buf));
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
}

const asStored = async (buf: ArrayBuffer): Promise<ArrayBuffer> => buf;

/** Reads tiles of the PMTiles archives in the object store (the reader is the pmtiles package's own). */
export class TileArchives {
  /** Per archive: a reader answering tiles as stored, and one answering its metadata decoded (pmtiles uses one decompress for both). */
  private readonly open = new Map<string, { tiles: PMTiles; decoded: PMTiles }>();
  private readonly cache = new SharedPromiseCache(CACHED_DIRECTORIES, false, decompress);

  constructor(private readonly store: ObjectStore) {}

  private async archive(key: string): Promise<{ tiles: PMTiles; decoded: PMTiles }> {
    let a = this.open.get(key);
    if (a) {
      this.open.delete(key);
    } else {
      if (!(await this.store.exists(key))) throw new StudioError(409, 'The tiles of this dataset are not available; create the vector tiles from its source again');
      const source = new FileRangeSource(key, await this.store.localPath(key));
      // Tiles come out as stored (gzip, as the tiler wrote them): sent so to clients that accept gzip.
      a = { tiles: new PMTiles(source, this.cache, asStored), decoded: new PMTiles(source, this.cache, decompress) };
    }
    this.open.set(key, a);
    if (this.open.size > OPEN_ARCHIVES) this.open.delete(this.open.keys().next().value!);
    return a;
  }

  /** The tile as the archive stores it, and whether that is gzip; null where the archive has none. */
  async storedTile(key: string, z: number, x: number, y: number): Promise<{ bytes: Buffer; gzip: boolean } | null> {
    const archive = (await this.archive(key)).tiles;
    const r = await archive.getZxy(z, x, y);
    if (!r) return null;
    const compression = (await archive.getHeader()).tileCompression;
    if (compression !== Compression.None && compression !== Compression.Unknown && compression !== Compression.Gzip) throw new StudioError(500, 'Unsupported tile compression in archive');
    return { bytes: Buffer.from(r.data), gzip: compression === Compression.Gzip };
  }

  /** The tile's MVT bytes, or null where the archive has none. */
  async tile(key: string, z: number, x: number, y: number): Promise<Uint8Array | null> {
    const stored = await this.storedTile(key, z, x, y);
    if (!stored) return null;
    return stored.gzip ? new Uint8Array(gunzipSync(stored.bytes)) : new Uint8Array(stored.bytes);
  }

  async metadata(key: string): Promise<Record<string, unknown>> {
    return (await (await this.archive(key)).decoded.getMetadata()) as Record<string, unknown>;
  }
}
