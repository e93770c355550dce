import { z } from 'zod';
import { Id, itemOf } from '../common';
import { ASSET_THUMBNAIL_TYPES, MAP_STYLE_CONTENT_TYPES, MapAssetFileRequest } from '../map-assets';
import { UploadPolicy } from '../records';
import { contract } from './contract';

const tag = 'map-assets';
const IdParams = z.object({ id: Id });

/** A map asset's files (catalog §7 Map assets): the style file and the thumbnail; the asset record's own calls are the record kind's. */
export const mapAssetCalls = {
  filePolicy: contract({
    spec: ['CAT-124'],
    method: 'POST',
    url: '/v1/map-assets/{id}/files',
    summary: 'A signed upload policy for the style file ({assetContentType}) or the thumbnail ({thumbnailContentType})',
    tag,
    auth: 'user',
    params: IdParams,
    body: MapAssetFileRequest,
    response: itemOf(UploadPolicy),
    resource: { type: 'map-asset', param: 'id', action: 'write' },
  }),
  styleFile: contract({
    method: 'GET',
    url: '/v1/map-assets/{id}/files/asset',
    summary: 'The uploaded style file (the read path)',
    tag,
    auth: 'user',
    params: IdParams,
    produces: MAP_STYLE_CONTENT_TYPES,
    resource: { type: 'map-asset', param: 'id', action: 'read' },
  }),
  thumbnailFile: contract({
    method: 'GET',
    url: '/v1/map-assets/{id}/files/thumbnail',
    summary: 'The uploaded thumbnail',
    tag,
    auth: 'user',
    params: IdParams,
    produces: ASSET_THUMBNAIL_TYPES,
    resource: { type: 'map-asset', param: 'id', action: 'read' },
  }),
};
