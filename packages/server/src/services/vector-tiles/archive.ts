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

/** Reads tiles of the PMTiles archives in the object store (the reader is the pmtiles package's own). */
export class TileArchives {
  private readonly open = new Map<string, PMTiles>();
  private readonly cache = new SharedPromiseCache(CACHED_DIRECTORIES, false, decompress);

  constructor(private readonly store: ObjectStore) {}

  private async archive(key: string): Promise<PMTiles> {
    let a = this.open.get(key);
    if (a) {
      this.open.delete(key);
    } else {
      if (!(await this.store.exists(key))) throw new StudioError(409, 'The tiles of this dataset are not available; create the vector tiles from its source again');
      a = new PMTiles(new FileRangeSource(key, await this.store.localPath(key)), this.cache, decompress);
    }
    this.open.set(key, a);
    if (this.open.size > OPEN_ARCHIVES) this.open.delete(this.open.keys().next().value!);
    return a;
  }

  /** The tile's MVT bytes, or null where the archive has none. */
  async tile(key: string, z: number, x: number, y: number): Promise<Uint8Array | null> {
    const r = await (await this.archive(key)).getZxy(z, x, y);
    return r ? new Uint8Array(r.data) : null;
  }

  async metadata(key: string): Promise<Record<string, unknown>> {
    return (await (await this.archive(key)).getMetadata()) as Record<string, unknown>;
  }
}
