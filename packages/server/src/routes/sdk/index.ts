import { notFound, sdkCalls, type Access, type SdkMapWrite, type SdkTokenAnswer, type StudioRecord } from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../../http/route';
import { datasetAttrs } from '../../services/datasets';
import type { ListOptions, ResourceRow } from '../../services/records';
import { assertUploadReady, deleteDataset, listDatasets, readOptionsOf, sendData, uploadInto, uploadNewDataset } from '../../http/dataset-answers';
import { createRecord, deleteRecord, recordItem, saveRecord } from '../../http/record-answers';
import { sdkDataset, sdkDownload, sdkMap, sdkVisible } from '../../http/sdk-wire';
import { createHexTiles } from '../../services/hextiles';
import { tileDataset } from '../../http/dataset-tiling';

/**
 * The Studio Data SDK's API (`DataSDK.base_url = 'http://<host>/sdk'`, `auth_url = '…/sdk/oauth/token'`): the
 * calls of `unfolded.data_sdk` / `foursquare.data_sdk` answered by the studio's own services with the same
 * guards as /v1, in the SDK's shapes (sdk-wire.ts). /v1 keeps its `{item}` answers.
 */
type Ctx = RouteContext<unknown, unknown, unknown>;

/** Every page of a list (the SDK asks once and expects all). */
async function allPages<T>(page: (offset: number, limit: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const limit = 1000;
  const items: T[] = [];
  for (let offset = 0; ; offset += limit) {
    const p = await page(offset, limit);
    items.push(...p.items);
    if (!p.items.length || items.length >= p.total) return items;
  }
}

const OWN: Omit<ListOptions, 'offset' | 'limit'> = { scope: 'own', sortBy: 'updatedAt', sortOrder: 'desc' };

/** One dataset in the SDK's shape; a kind the SDK has no type for is not found. */
async function sdkDatasetOf(ctx: Ctx, row: ResourceRow) {
  const access = await ctx.services.access.accessOf(ctx.caller, row, ctx.adminMode);
  const [wire] = await ctx.services.datasets.toWire([row], () => access);
  if (!wire || !sdkVisible(wire)) throw notFound('Dataset not found');
  return sdkDataset(wire);
}

/** A map with its state and the datasets it uses that the caller may read. */
async function fullMap(ctx: Ctx, row: ResourceRow) {
  const { item } = await recordItem(ctx.services, row, ctx);
  const ids = (item as StudioRecord).datasets.map((d) => d.id);
  const rows = await ctx.services.records.getMany(ids, 'dataset');
  const readable: { row: ResourceRow; access: Access }[] = [];
  for (const r of rows) {
    const access = await ctx.services.access.accessOf(ctx.caller, r, ctx.adminMode);
    if (access !== 'none') readable.push({ row: r, access });
  }
  const wires = await ctx.services.datasets.toWire(readable.map((r) => r.row), (r) => readable.find((x) => x.row.id === r.id)!.access);
  return sdkMap(item as StudioRecord, { datasets: wires.filter(sdkVisible).map(sdkDataset) });
}

/** The parts of an SDK map write the record service takes (the state's id is the map's own, not kept). */
const recordBody = (b: SdkMapWrite) => ({
  ...(b.name !== undefined && { name: b.name }),
  ...(b.description !== undefined && { description: b.description }),
  ...(b.latestState !== undefined && { latestState: b.latestState.data }),
  ...(b.datasets !== undefined && { datasets: b.datasets }),
});

export const sdkRoutes: RouteDef[] = [
  defineRoute(sdkCalls.token, {
    transaction: false,
    handler: async (ctx): Promise<SdkTokenAnswer> => {
      const { accessToken, expiresIn } = await ctx.services.auth.exchangeSdkKey(ctx.body.refresh_token);
      return { access_token: accessToken, refresh_token: ctx.body.refresh_token, expires_in: expiresIn, token_type: 'Bearer', scope: 'datasets maps' };
    },
  }),
  defineRoute(sdkCalls.datasets, {
    handler: async (ctx) => {
      const items = await allPages((offset, limit) => listDatasets(ctx as Ctx, { ...OWN, offset, limit }));
      return { items: items.filter(sdkVisible).map(sdkDataset) };
    },
  }),
  defineRoute(sdkCalls.dataset, {
    handler: async (ctx) => sdkDatasetOf(ctx as Ctx, ctx.resource!),
  }),
  defineRoute(sdkCalls.download, {
    handler: async (ctx) => {
      const { format, mediaType } = sdkDownload(datasetAttrs(ctx.resource!).metadata.contentType);
      return sendData(ctx as Ctx, ctx.resource!, format, mediaType);
    },
  }),
  defineRoute(sdkCalls.upload, {
    handler: async (ctx) => {
      const { item } = await uploadNewDataset(ctx as Ctx, { name: ctx.query.name, description: ctx.query.description }, { read: readOptionsOf(ctx.query) }, { via: 'sdk' });
      return sdkDataset(item);
    },
  }),
  defineRoute(sdkCalls.replaceData, {
    handler: async (ctx) => {
      assertUploadReady(ctx.resource!);
      const { item } = await uploadInto(ctx as Ctx, ctx.resource!, { read: readOptionsOf(ctx.query) });
      return sdkDataset(item);
    },
  }),
  defineRoute(sdkCalls.hexTiles, {
    transaction: false,
    handler: async (ctx) => {
      const { row } = await createHexTiles(ctx.services, requireCaller(ctx), ctx.body);
      return sdkDatasetOf(ctx as Ctx, row);
    },
  }),
  defineRoute(sdkCalls.vectorTiles, {
    transaction: false,
    handler: async (ctx) => {
      const { row } = await tileDataset(ctx as Ctx, ctx.body);
      return sdkDatasetOf(ctx as Ctx, row);
    },
  }),
  defineRoute(sdkCalls.deleteDataset, {
    handler: async (ctx) => deleteDataset(ctx as Ctx, ctx.resource!),
  }),
  defineRoute(sdkCalls.maps, {
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const items = await allPages((offset, limit) => ctx.services.records.list(caller, 'map', { ...OWN, offset, limit }));
      return { items: items.map((m) => sdkMap(m)) };
    },
  }),
  defineRoute(sdkCalls.map, {
    handler: async (ctx) => fullMap(ctx as Ctx, ctx.resource!),
  }),
  defineRoute(sdkCalls.createMap, {
    handler: async (ctx) => fullMap(ctx as Ctx, await createRecord(ctx as Ctx, 'map', { name: 'Untitled map', description: '', ...recordBody(ctx.body) }, {}, { via: 'sdk' })),
  }),
  defineRoute(sdkCalls.updateMap, {
    handler: async (ctx) => fullMap(ctx as Ctx, await saveRecord(ctx as Ctx, 'map', ctx.resource!, recordBody(ctx.body), {}, { via: 'sdk' })),
  }),
  defineRoute(sdkCalls.deleteMap, {
    handler: async (ctx) => deleteRecord(ctx as Ctx, 'map', ctx.resource!, { via: 'sdk' }),
  }),
];
