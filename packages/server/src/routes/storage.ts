import fs from 'node:fs/promises';
import { z } from 'zod';
import { Dataset, Id, StorageImportBody, StorageListing, badInput, itemOf } from '@studio/schema';
import { defineRoute, requireCaller, type RouteDef } from '../http/route';
import { createManaged, datasetItem } from '../http/dataset-answers';

/**
 * Storage connections (S3 and S3-compatible stores): list a bucket one level at a time, and import an
 * object as a dataset through the one ingestion path (the same formats as an upload). Whoever may read
 * the connection may list it and import from it, as with running queries on a warehouse.
 */

const TAG = 'data-connections';
const Params = z.object({ connection: Id });

export const storageRoutes: RouteDef[] = [
  defineRoute({
    spec: [],
    method: 'GET',
    url: '/v1/data-connections/{connection}/objects',
    summary: "One level of a storage connection's bucket under `prefix` (inside the connection's own prefix): folders, then objects with size and date",
    tag: TAG,
    auth: 'user',
    transaction: false,
    params: Params,
    query: z.object({ prefix: z.string().max(1024).optional() }),
    response: StorageListing,
    resource: { type: 'data-connection', param: 'connection', action: 'read' },
    handler: async (ctx) => {
      const { driver, target } = ctx.services.executions.storageOf(ctx.resource!);
      return driver.list(target, ctx.query.prefix ?? '');
    },
  }),
  defineRoute({
    spec: [],
    method: 'POST',
    url: '/v1/data-connections/{connection}/import',
    summary: 'A new dataset from an object of a storage connection (CSV, TSV, Parquet, GeoJSON, NDJSON; .gz read as gzip): ready with its rows, or the ingestion error',
    tag: TAG,
    auth: 'user',
    transaction: false,
    params: Params,
    body: StorageImportBody,
    status: 201,
    response: itemOf(Dataset),
    resource: { type: 'data-connection', param: 'connection', action: 'read' },
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      await ctx.services.quota.assertCanCreate(caller, 'dataset');
      const { driver, target } = ctx.services.executions.storageOf(ctx.resource!);
      const { key } = ctx.body;
      if (key.endsWith('/')) throw badInput(`${key} is a folder; pick an object in it`);
      const name = ctx.body.name ?? key.split('/').pop()!.replace(/\.gz$/i, '');
      // Fetched before anything is created: an object that cannot be read leaves no dataset behind. Data
      // that cannot be ingested leaves a dataset in error with the message, as an upload does.
      const fetched = await ctx.services.datasets.scratchFile('imports');
      try {
        const { contentType } = await driver.download(target, key, fetched);
        const row = await createManaged(ctx.services, caller, { name, description: ctx.body.description }, { connectionId: ctx.resource!.id, key });
        const ready = await ctx.services.datasets.ingestWith(row, { source: 'connection', pipelineType: 'managed', contentType, query: null }, async (file) => {
          await fs.rename(fetched, file);
          return { contentType, contentEncoding: /\.gz$/i.test(key) ? 'gzip' : undefined };
        });
        return await datasetItem(ctx.services, ready, ctx);
      } finally {
        await fs.rm(fetched, { force: true });
      }
    },
  }),
];
