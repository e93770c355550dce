import { z } from 'zod';
import {
  Id,
  SDK_MEDIA_TYPES,
  SdkDataset,
  SdkHexTileConfig,
  SdkMap,
  SdkMapWrite,
  SdkTokenAnswer,
  SdkTokenRequest,
  SdkVectorTileConfig,
  UploadReadOptions,
  notFound,
  type Access,
  type StudioRecord,
} from '@studio/schema';
import { defineRoute, requireCaller, type RouteContext, type RouteDef } from '../../http/route';
import { datasetAttrs } from '../../services/datasets';
import type { ListOptions, ResourceRow } from '../../services/records';
import { NewUploadQuery, assertUploadReady, deleteDataset, listDatasets, readOptionsOf, sendData, uploadInto, uploadNewDataset } from '../../http/dataset-answers';
import { createRecord, deleteRecord, recordItem, saveRecord } from '../../http/record-answers';
import { sdkDataset, sdkDownload, sdkMap, sdkVisible } from '../../http/sdk-wire';
import { createHexTiles } from '../../services/hextiles';
import { tileDataset } from '../../http/dataset-tiling';

/**
 * The Studio Data SDK's API (`DataSDK.base_url = 'http://<host>/sdk'`, `auth_url = '…/sdk/oauth/token'`): the
 * calls of `unfolded.data_sdk` / `foursquare.data_sdk` answered by the studio's own services with the same
 * guards as /v1, in the SDK's shapes (sdk-wire.ts). /v1 keeps its `{item}` answers.
 */
const IdParam = z.object({ id: Id });
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
  defineRoute({
    method: 'POST',
    url: '/sdk/oauth/token',
    summary: "Data SDK token refresh: an SDK key (POST /v1/api-key {kind: 'sdk'}) as refresh_token for an access token (a JWT) of an hour",
    tag: 'sdk',
    auth: 'public',
    body: SdkTokenRequest,
    transaction: false,
    response: SdkTokenAnswer,
    handler: async (ctx): Promise<SdkTokenAnswer> => {
      const { accessToken, expiresIn } = await ctx.services.auth.exchangeSdkKey(ctx.body.refresh_token);
      return { access_token: accessToken, refresh_token: ctx.body.refresh_token, expires_in: expiresIn, token_type: 'Bearer', scope: 'datasets maps' };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/sdk/v1/datasets',
    summary: "Data SDK list_datasets: the caller's datasets",
    tag: 'sdk',
    auth: 'user',
    response: z.object({ items: z.array(SdkDataset) }),
    handler: async (ctx) => {
      const items = await allPages((offset, limit) => listDatasets(ctx as Ctx, { ...OWN, offset, limit }));
      return { items: items.filter(sdkVisible).map(sdkDataset) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/sdk/v1/datasets/{id}',
    summary: 'Data SDK get_dataset_by_id',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    response: SdkDataset,
    handler: async (ctx) => sdkDatasetOf(ctx as Ctx, ctx.resource!),
  }),
  defineRoute({
    method: 'GET',
    url: '/sdk/v1/datasets/{id}/data',
    summary: 'Data SDK download_dataset / download_dataframe: GeoJSON uploads as application/geo+json, the rest as text/csv',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'read' },
    produces: [SDK_MEDIA_TYPES.csv, SDK_MEDIA_TYPES.geojson],
    handler: async (ctx) => {
      const { format, mediaType } = sdkDownload(datasetAttrs(ctx.resource!).metadata.contentType);
      return sendData(ctx as Ctx, ctx.resource!, format, mediaType);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/sdk/v1/datasets/data',
    summary: 'Data SDK upload_file / upload_dataframe: the body is the file (gzip-encoded as the SDK sends it), name and description in the query',
    tag: 'sdk',
    auth: 'user',
    query: NewUploadQuery,
    rawBody: true,
    status: 201,
    response: SdkDataset,
    handler: async (ctx) => {
      const { item } = await uploadNewDataset(ctx as Ctx, { name: ctx.query.name, description: ctx.query.description }, { read: readOptionsOf(ctx.query) }, { via: 'sdk' });
      return sdkDataset(item);
    },
  }),
  defineRoute({
    method: 'PUT',
    url: '/sdk/v1/datasets/{id}/data',
    summary: "Data SDK upload_file(dataset=…) / update_dataset: replaces the dataset's data",
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    query: UploadReadOptions,
    rawBody: true,
    resource: { type: 'dataset', param: 'id', action: 'write' },
    response: SdkDataset,
    handler: async (ctx) => {
      assertUploadReady(ctx.resource!);
      const { item } = await uploadInto(ctx as Ctx, ctx.resource!, { read: readOptionsOf(ctx.query) });
      return sdkDataset(item);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/sdk/v1/datasets/hextile',
    summary: "Data SDK generate_hextile: a hex-tile dataset built from a source the caller reads, or with target an existing one built again in place (as POST /v1/datasets/hextile); answers the dataset, pending until its job has built it",
    tag: 'sdk',
    auth: 'user',
    transaction: false,
    body: SdkHexTileConfig,
    status: 201,
    response: SdkDataset,
    handler: async (ctx) => {
      const { row } = await createHexTiles(ctx.services, requireCaller(ctx), ctx.body);
      return sdkDatasetOf(ctx as Ctx, row);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/sdk/v1/datasets/vectortile',
    summary: 'Data SDK generate_vectortile: a vector-tile dataset cut from a source the caller reads, or with target an existing one cut again in place (as POST /v1/datasets/vectortile); answers the dataset, pending until its job has cut it',
    tag: 'sdk',
    auth: 'user',
    transaction: false,
    body: SdkVectorTileConfig,
    status: 201,
    response: SdkDataset,
    handler: async (ctx) => {
      const { row } = await tileDataset(ctx as Ctx, ctx.body);
      return sdkDatasetOf(ctx as Ctx, row);
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/sdk/v1/datasets/{id}',
    summary: 'Data SDK delete_dataset',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    resource: { type: 'dataset', param: 'id', action: 'delete' },
    status: 204,
    handler: async (ctx) => deleteDataset(ctx as Ctx, ctx.resource!),
  }),
  defineRoute({
    method: 'GET',
    url: '/sdk/v1/maps',
    summary: "Data SDK list_maps: the caller's maps, without state or datasets",
    tag: 'sdk',
    auth: 'user',
    response: z.object({ items: z.array(SdkMap) }),
    handler: async (ctx) => {
      const caller = requireCaller(ctx);
      const items = await allPages((offset, limit) => ctx.services.records.list(caller, 'map', { ...OWN, offset, limit }));
      return { items: items.map((m) => sdkMap(m)) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/sdk/v1/maps/{id}',
    summary: 'Data SDK get_map_by_id: the map with its latest state and datasets',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    resource: { type: 'map', param: 'id', action: 'read' },
    response: SdkMap,
    handler: async (ctx) => fullMap(ctx as Ctx, ctx.resource!),
  }),
  defineRoute({
    method: 'POST',
    url: '/sdk/v1/maps',
    summary: 'Data SDK create_map: name, description, latestState {data} and dataset ids',
    tag: 'sdk',
    auth: 'user',
    body: SdkMapWrite,
    status: 201,
    response: SdkMap,
    handler: async (ctx) => fullMap(ctx as Ctx, await createRecord(ctx as Ctx, 'map', { name: 'Untitled map', description: '', ...recordBody(ctx.body) }, {}, { via: 'sdk' })),
  }),
  defineRoute({
    method: 'PUT',
    url: '/sdk/v1/maps/{id}',
    summary: 'Data SDK update_map: the fields sent replace those of the map (datasets: the whole list)',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    body: SdkMapWrite,
    resource: { type: 'map', param: 'id', action: 'write' },
    response: SdkMap,
    handler: async (ctx) => fullMap(ctx as Ctx, await saveRecord(ctx as Ctx, 'map', ctx.resource!, recordBody(ctx.body), {}, { via: 'sdk' })),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/sdk/v1/maps/{id}',
    summary: 'Data SDK delete_map',
    tag: 'sdk',
    auth: 'user',
    params: IdParam,
    resource: { type: 'map', param: 'id', action: 'delete' },
    status: 204,
    handler: async (ctx) => deleteRecord(ctx as Ctx, 'map', ctx.resource!, { via: 'sdk' }),
  }),
];
