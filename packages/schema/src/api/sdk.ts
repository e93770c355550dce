import { z } from 'zod';
import { Id } from '../common';
import { NewUploadQuery, UploadReadOptions } from '../datasets';
import { SDK_MEDIA_TYPES, SdkDataset, SdkHexTileConfig, SdkMap, SdkMapWrite, SdkTokenAnswer, SdkTokenRequest, SdkVectorTileConfig } from '../sdk';
import { contract } from './contract';

const tag = 'sdk';
const IdParams = z.object({ id: Id });
const dataset = (action: 'read' | 'write' | 'delete') => ({ type: 'dataset', param: 'id', action }) as const;
const map = (action: 'read' | 'write' | 'delete') => ({ type: 'map', param: 'id', action }) as const;

/**
 * The Studio Data SDK's API (`DataSDK.base_url = 'http://<host>/sdk'`, `auth_url = '…/sdk/oauth/token'`): the calls of
 * `unfolded.data_sdk` / `foursquare.data_sdk`, in the SDK's shapes. Its bodies stay lenient (the SDK's compatibility
 * contract: a newer SDK may send fields this studio does not know).
 */
export const sdkCalls = {
  token: contract({
    method: 'POST',
    url: '/sdk/oauth/token',
    summary: "Data SDK token refresh: an SDK key (POST /v1/api-key {kind: 'sdk'}) as refresh_token for an access token (a JWT) of an hour",
    tag,
    auth: 'public',
    body: SdkTokenRequest,
    response: SdkTokenAnswer,
  }),
  datasets: contract({ method: 'GET', url: '/sdk/v1/datasets', summary: "Data SDK list_datasets: the caller's datasets", tag, auth: 'user', response: z.object({ items: z.array(SdkDataset) }) }),
  dataset: contract({ method: 'GET', url: '/sdk/v1/datasets/{id}', summary: 'Data SDK get_dataset_by_id', tag, auth: 'user', params: IdParams, resource: dataset('read'), response: SdkDataset }),
  download: contract({
    method: 'GET',
    url: '/sdk/v1/datasets/{id}/data',
    summary: 'Data SDK download_dataset / download_dataframe: GeoJSON uploads as application/geo+json, the rest as text/csv',
    tag,
    auth: 'user',
    params: IdParams,
    resource: dataset('read'),
    produces: [SDK_MEDIA_TYPES.csv, SDK_MEDIA_TYPES.geojson],
  }),
  upload: contract({
    method: 'POST',
    url: '/sdk/v1/datasets/data',
    summary: 'Data SDK upload_file / upload_dataframe: the body is the file (gzip-encoded as the SDK sends it), name and description in the query',
    tag,
    auth: 'user',
    query: NewUploadQuery,
    rawBody: true,
    status: 201,
    response: SdkDataset,
  }),
  replaceData: contract({
    method: 'PUT',
    url: '/sdk/v1/datasets/{id}/data',
    summary: "Data SDK upload_file(dataset=…) / update_dataset: replaces the dataset's data",
    tag,
    auth: 'user',
    params: IdParams,
    query: UploadReadOptions,
    rawBody: true,
    resource: dataset('write'),
    response: SdkDataset,
  }),
  hexTiles: contract({
    method: 'POST',
    url: '/sdk/v1/datasets/hextile',
    summary:
      'Data SDK generate_hextile: a hex-tile dataset built from a source the caller reads, or with target an existing one built again in place (as POST /v1/datasets/hextile); answers the dataset, pending until its job has built it',
    tag,
    auth: 'user',
    body: SdkHexTileConfig,
    status: 201,
    response: SdkDataset,
  }),
  vectorTiles: contract({
    method: 'POST',
    url: '/sdk/v1/datasets/vectortile',
    summary:
      'Data SDK generate_vectortile: a vector-tile dataset cut from a source the caller reads, or with target an existing one cut again in place (as POST /v1/datasets/vectortile); answers the dataset, pending until its job has cut it',
    tag,
    auth: 'user',
    body: SdkVectorTileConfig,
    status: 201,
    response: SdkDataset,
  }),
  deleteDataset: contract({ method: 'DELETE', url: '/sdk/v1/datasets/{id}', summary: 'Data SDK delete_dataset', tag, auth: 'user', params: IdParams, resource: dataset('delete'), status: 204 }),
  maps: contract({ method: 'GET', url: '/sdk/v1/maps', summary: "Data SDK list_maps: the caller's maps, without state or datasets", tag, auth: 'user', response: z.object({ items: z.array(SdkMap) }) }),
  map: contract({ method: 'GET', url: '/sdk/v1/maps/{id}', summary: 'Data SDK get_map_by_id: the map with its latest state and datasets', tag, auth: 'user', params: IdParams, resource: map('read'), response: SdkMap }),
  createMap: contract({ method: 'POST', url: '/sdk/v1/maps', summary: 'Data SDK create_map: name, description, latestState {data} and dataset ids', tag, auth: 'user', body: SdkMapWrite, status: 201, response: SdkMap }),
  updateMap: contract({
    method: 'PUT',
    url: '/sdk/v1/maps/{id}',
    summary: 'Data SDK update_map: the fields sent replace those of the map (datasets: the whole list)',
    tag,
    auth: 'user',
    params: IdParams,
    body: SdkMapWrite,
    resource: map('write'),
    response: SdkMap,
  }),
  deleteMap: contract({ method: 'DELETE', url: '/sdk/v1/maps/{id}', summary: 'Data SDK delete_map', tag, auth: 'user', params: IdParams, resource: map('delete'), status: 204 }),
};
