import {
  MapAssetCreate,
  MapAssetGetQuery,
  MapAssetListQuery,
  MapAssetUpdate,
  notFound,
  type MapAssetFields,
  type MapAssetType,
  THUMBNAIL_MAX_BYTES,
  mapAssetCalls,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import type { Services } from '../services';
import type { ResourceRow } from '../services/records';
import { kindRoutes, type Kind } from '../http/kind-routes';
import { MAP_ASSET_FILE_MAX_BYTES, assertAssetType, storedAsset } from '../http/map-asset-files';

const BASE = '/v1/map-assets';

function fields(row: ResourceRow): (MapAssetFields & { thumbnailUrl: string | null }) | null {
  const a = storedAsset(row);
  if (!a) return null;
  const style = a.assetType === 'map-style' ? a : null;
  return {
    assetType: a.assetType,
    externalUrl: style?.externalUrl ?? null,
    hasAccessToken: Boolean(style?.accessToken),
    style: style?.style ?? null,
    palette: a.assetType === 'color-palette' ? a.palette : null,
    assetContentType: style?.assetKey ? (style.assetContentType ?? null) : null,
    thumbnailContentType: row.thumbnail_key ? row.thumbnail_type : null,
    readPath: style?.assetKey ? `${BASE}/${row.id}/files/asset` : null,
    thumbnailPath: row.thumbnail_key ? `${BASE}/${row.id}/files/thumbnail` : null,
    // The record machinery would point at /v1/maps; an asset's thumbnail is served under its files.
    thumbnailUrl: row.thumbnail_key ? `${BASE}/${row.id}/files/thumbnail?v=${new Date(row.updated_at).getTime()}` : null,
  };
}

const kind: Kind<typeof MapAssetCreate, typeof MapAssetUpdate> = {
  type: 'map-asset',
  base: BASE,
  tag: 'map-assets',
  spec: { list: 'CAT-117', org: 'CAT-118', shared: 'CAT-119', get: 'CAT-120', update: 'CAT-121', del: 'CAT-122', create: 'CAT-123' },
  create: MapAssetCreate,
  update: MapAssetUpdate,
  unparseable: 'Could not parse map asset',
  fields,
  listQuery: MapAssetListQuery,
  listAttrs: (q) => (q.type ? { assetType: [String(q.type)] } : undefined),
  getQuery: MapAssetGetQuery,
  checkGet: (row, q) => {
    if (q.type) assertAssetType(row, q.type as MapAssetType);
  },
  toAttrs: ({ services }, body, row) => {
    if (row) assertAssetType(row, body.assetType);
    if (body.assetType === 'color-palette') return { assetType: body.assetType, ...(body.palette && { palette: body.palette }) };
    const attrs: Record<string, unknown> = { assetType: body.assetType };
    if (body.externalUrl !== undefined) attrs.externalUrl = body.externalUrl;
    if (body.style !== undefined) attrs.style = body.style;
    // The token is a secret: sealed at rest, answered only as hasAccessToken.
    if (body.accessToken !== undefined) attrs.accessToken = body.accessToken === null ? null : services.secrets.encrypt(body.accessToken);
    return attrs;
  },
  blobKeys: (row) => [storedAsset(row)].flatMap((a) => (a?.assetType === 'map-style' && a.assetKey ? [a.assetKey] : [])),
};


async function serveFile(services: Services, row: ResourceRow, which: 'asset' | 'thumbnail') {
  const a = storedAsset(row);
  const key = which === 'asset' ? (a?.assetType === 'map-style' ? a.assetKey : null) : row.thumbnail_key;
  const contentType = which === 'asset' ? (a?.assetType === 'map-style' ? a.assetContentType : null) : row.thumbnail_type;
  const bytes = key ? await services.blobs.read(key) : null;
  if (!bytes) throw notFound(which === 'asset' ? 'Asset file not found' : 'Thumbnail not found');
  return { bytes, contentType: contentType ?? 'application/octet-stream' };
}

export const mapAssetRoutes: RouteDef[] = [
  ...kindRoutes(kind),
  defineRoute(mapAssetCalls.filePolicy, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const row = ctx.resource!;
      await ctx.services.records.assertNotLockedByOther(caller, row);
      const asset = 'assetContentType' in ctx.body;
      if (asset) assertAssetType(row, 'map-style');
      const policy = ctx.services.policies.issue({
        purpose: asset ? 'map-asset-file' : 'map-asset-thumbnail',
        resourceId: row.id,
        contentType: 'assetContentType' in ctx.body ? ctx.body.assetContentType : ctx.body.thumbnailContentType,
        maxBytes: asset ? MAP_ASSET_FILE_MAX_BYTES : THUMBNAIL_MAX_BYTES,
      });
      return { item: policy };
    },
  }),
  ...([[mapAssetCalls.styleFile, 'asset'], [mapAssetCalls.thumbnailFile, 'thumbnail']] as const).map(([call, which]) =>
    defineRoute(call, {
      handler: async ({ resource, services, reply }) => {
        const { bytes, contentType } = await serveFile(services, resource!, which);
        return reply.header('content-type', contentType).header('cache-control', 'private, max-age=300').send(bytes);
      },
    }),
  ),
];
