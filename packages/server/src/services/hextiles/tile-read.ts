import { gzipSync } from 'node:zlib';
import { notFound } from '@studio/schema';
import { quoteIdent } from '@studio/engine';
import { engineError } from '../../http/streams';
import type { CoreServices } from '..';
import type { TileArchive } from './archive';
import { pathLiteral } from './sql';

/** One tile entry as a client asks for it. */
export interface TileAsk {
  /** The entry's name in the archive (layout.entryName). */
  name: string;
  /** A time step's path (e.g. D2024-01-05) when the tileset has time. */
  step?: string;
  /** The fields of an Arrow answer, in order (ignored for the stored Parquet entry). */
  fields: string[];
  /** The stored Parquet entry as it is, instead of Arrow IPC. */
  parquet: boolean;
}

/** What varies an answer of one entry: the format, the fields and the encoding (the part of a tile's ETag and cache key after its version). */
export const variantOf = (ask: TileAsk, gzip = false) => `${ask.parquet ? `parquet:${ask.name}` : `arrow:${ask.name}:${ask.fields.join(',')}`}${gzip ? ':gzip' : ''}`;

/**
 * Answers worth sending gzip: Arrow IPC (its padding and repeated values halve or better). Parquet entries
 * are compressed inside already, and below half a kilobyte the saving is lost in the headers.
 */
export const pays = (ask: TileAsk, bytes: number) => !ask.parquet && bytes >= 512;

/**
 * A hex tile as gzip for clients that accept it, compressed once per node and kept in the tile cache beside
 * the plain bytes: the hot path sends stored bytes either way.
 */
export function readHexTileGzip(s: Pick<CoreServices, 'tileCache'>, archive: TileArchive, ask: TileAsk, plain: Buffer): Promise<Buffer> {
  return s.tileCache.getOrLoad(`${archive.key}|${variantOf(ask, true)}`, async () => gzipSync(plain));
}

/**
 * A hex tile's bytes: from the node's tile cache when hot, else read from the archive (the Parquet entry
 * as it is, or the chosen fields as one Arrow IPC stream, read whole: tiles are small) and kept there.
 * The cache key carries the archive's storage key, so a rebuilt tileset never answers from old entries.
 * Clients asking for a cold tile together share one read; one of them leaving does not stop it (the others
 * wait for it, and a tile's read is short).
 */
export function readHexTile(s: Pick<CoreServices, 'engine' | 'tileCache'>, archive: TileArchive, ask: TileAsk): Promise<Buffer> {
  return s.tileCache.getOrLoad(`${archive.key}|${variantOf(ask)}`, async () => {
    if (ask.parquet) {
      const entry = await archive.read(ask.name);
      if (!entry) throw notFound(`No tile ${ask.name} in this tileset`);
      return entry;
    }
    const file = await archive.file(ask.name);
    const cols = ['hex', ...(ask.step ? ['time'] : []), ...ask.fields].map(quoteIdent).join(', ');
    return collect(s.engine.arrowStream({ sql: `SELECT ${cols} FROM read_parquet(${pathLiteral(file)})` }));
  });
}

async function collect(stream: AsyncGenerator<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (e) {
    throw engineError(e);
  }
  return Buffer.concat(chunks);
}
