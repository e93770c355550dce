import { Readable } from 'node:stream';
import { z } from 'zod';
import {
  StoredMapAsset,
  StudioError,
  badInput,
  parseStyleFile,
  type MapAssetType,
} from '@studio/schema';
import type { ResourceRow } from '../services/records';
import type { UploadHandler } from './upload-handler';
import { storeThumbnail } from './record-answers';

/**
 * A map asset's files: its stored form, the kind check, and the upload purposes of its style file and thumbnail
 * (registered by routes/uploads.ts).
 */
const BASE = '/v1/map-assets';
export const MAP_ASSET_FILE_MAX_BYTES = 20 * 1024 * 1024;
const NOT_A: Record<MapAssetType, string> = { 'map-style': 'Asset is not a Map Style', 'color-palette': 'Asset is not a Color Palette' };

/** The stored form of a map asset, or null when its attrs do not parse. */
export const storedAsset = (row: ResourceRow): z.infer<typeof StoredMapAsset> | null => {
  const parsed = StoredMapAsset.safeParse(row.attrs);
  return parsed.success ? parsed.data : null;
};

/** Refuses an asset of the other kind where `expected` is needed (catalog §5), 422. */
export function assertAssetType(row: ResourceRow, expected: MapAssetType): void {
  if (storedAsset(row)?.assetType !== expected) throw badInput(NOT_A[expected]);
}

const assetKeyOf = (id: string) => `map-assets/${id}/asset`;

/** The whole body, or 413 past `maxBytes` (as BlobStore.write answers). */
async function readAtMost(body: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new StudioError(413, `Upload is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Upload purposes of map assets, registered in routes/uploads.ts. */
export const mapAssetUploadHandlers: [string, UploadHandler][] = [
  [
    'map-asset-file',
    async (services, claims, contentType, body, audit) => {
      const row = await services.records.get(claims.resourceId);
      if (!row || row.type !== 'map-asset') throw new StudioError(409, 'Record is not upload-ready');
      assertAssetType(row, 'map-style');
      if (!body || typeof body.pipe !== 'function') throw badInput('Upload body is missing');
      // The file is read whole (20 MB at most) and checked before it replaces the stored one: a file that
      // is not a style answers 422 and the asset keeps the style it had.
      const bytes = await readAtMost(body, claims.maxBytes);
      const parsed = parseStyleFile(bytes.toString('utf8'));
      if ('error' in parsed) throw badInput(parsed.error);
      const key = assetKeyOf(row.id);
      await services.blobs.write(key, Readable.from([bytes]), claims.maxBytes);
      await services.units.run(async () => {
        await services.records.setAttrs(row.id, { ...row.attrs, assetKey: key, assetContentType: contentType });
        await audit();
      });
      return { id: row.id, contentType, readPath: `${BASE}/${row.id}/files/asset` };
    },
  ],
  [
    'map-asset-thumbnail',
    async (services, claims, contentType, body, audit) => {
      const row = await services.records.get(claims.resourceId);
      if (!row || row.type !== 'map-asset') throw new StudioError(409, 'Record is not upload-ready');
      await storeThumbnail(services, row, contentType, body, audit);
      return { id: row.id, contentType, thumbnailPath: `${BASE}/${row.id}/files/thumbnail` };
    },
  ],
];
