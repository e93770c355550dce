import { z } from 'zod';
import { Dataset, Id, StudioError, badInput, itemOf } from '@studio/schema';
import { defineRoute } from '../http/route';
import { storeThumbnail } from '../http/record-answers';
import type { UploadHandler } from '../http/upload-handler';
import { mapAssetUploadHandlers } from '../http/map-asset-files';

/** Upload purposes by name: the map assets' come from routes/map-assets.ts. */
export const uploadHandlers = new Map<string, UploadHandler>([
  [
    'thumbnail',
    async (services, claims, contentType, body, audit) => {
      const row = await services.records.get(claims.resourceId);
      if (!row) throw new StudioError(409, 'Record is not upload-ready');
      await storeThumbnail(services, row, contentType, body, audit);
      return { id: row.id, contentType };
    },
  ],
  [
    'dataset-data',
    async (services, claims, contentType, body, audit) => {
      const row = await services.records.get(claims.resourceId);
      if (!row || row.type !== 'dataset') throw new StudioError(409, 'Record is not upload-ready');
      const ready = await services.datasets.ingestUpload(row, body, contentType, undefined, { onClaim: audit });
      const [item] = await services.datasets.toWire([ready], () => 'owner');
      return item;
    },
  ],
  ...mapAssetUploadHandlers,
]);

export const uploadRoutes = [
  defineRoute({
    method: 'POST',
    url: '/v1/uploads',
    summary: 'Upload a file under a signed policy (the policy is the credential; signature and expiry are checked)',
    tag: 'uploads',
    auth: 'public',
    query: z.object({ policy: z.string().min(1).max(4096), signature: z.string().min(1).max(200) }),
    rawBody: true,
    // A dataset upload answers the dataset; a thumbnail or map-asset file answers where it can be read.
    response: itemOf(z.union([Dataset, z.object({ id: Id, contentType: z.string(), readPath: z.string().optional(), thumbnailPath: z.string().optional() })])),
    handler: async (ctx) => {
      const claims = ctx.services.policies.verify(ctx.query.policy, ctx.query.signature);
      const contentType = String(ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (contentType !== claims.contentType) throw badInput('Unsupported content type', `This policy accepts ${claims.contentType}`);
      const handler = uploadHandlers.get(claims.purpose);
      if (!handler) throw new StudioError(409, 'Record is not upload-ready');
      const audit = () => ctx.services.audit.record(null, `upload.${claims.purpose}`, 'upload', claims.resourceId);
      return { item: await handler(ctx.services, claims, contentType, ctx.req.body as NodeJS.ReadableStream, audit) };
    },
  }),
];
