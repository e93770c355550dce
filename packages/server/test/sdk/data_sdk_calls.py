"""Every call of the public Studio Data SDK (unfolded.data_sdk 0.11 / foursquare.data_sdk), replayed against a
running studio through /sdk, each answer parsed by pydantic models holding the SDK's required fields.

The SDK itself is not on this machine (no PyPI here), so `DataSDK` below sends exactly what its documented
calls send: the same URLs under base_url, the bearer header, the OAuth refresh body, gzip uploads with
Content-Length-Uncompressed, the query parameters, the JSON bodies of MapUpdateParams. Run by
packages/server/test/sdk.test.ts with python3 from Debian (requests, pydantic, PyJWT, pandas):

  STUDIO_SDK_BASE_URL=http://127.0.0.1:PORT/sdk STUDIO_SDK_REFRESH_TOKEN=v1.… python3 data_sdk_calls.py

It prints one JSON line per call ({"call": …, "ok": true}) and exits non-zero at the first failure.
"""
import gzip
import io
import json
import os
import sys
import tempfile
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Dict, List, Optional, Union

import jwt
import pandas as pd
import requests
from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr

DATASET_TYPES = {'managed', 'externally-hosted', 'vector-tile', 'raster-tile', 'hex-tile', 'sql'}


class Credentials(BaseModel):
    access_token: StrictStr
    refresh_token: StrictStr
    scope: str
    expires_in: int
    token_type: str


class DatasetMetadata(BaseModel):
    media_type: Optional[StrictStr] = Field(alias='contentType')
    size: Optional[StrictInt]
    source: Optional[StrictStr]
    tileset_data_url: Optional[StrictStr] = Field(alias='tilesetDataUrl')
    tileset_metadata_url: Optional[StrictStr] = Field(alias='tilesetMetadataUrl')
    image_url: Optional[StrictStr] = Field(alias='imageUrl')
    metadata_url: Optional[StrictStr] = Field(alias='metadataUrl')
    data_status: Optional[StrictStr] = Field(alias='dataStatus')


class Dataset(BaseModel):
    id: uuid.UUID
    name: StrictStr
    type: StrictStr
    created_at: datetime = Field(..., alias='createdAt')
    updated_at: datetime = Field(..., alias='updatedAt')
    description: Optional[StrictStr]
    is_valid: StrictBool = Field(..., alias='isValid')
    metadata: DatasetMetadata


class MapState(BaseModel):
    id: uuid.UUID
    data: Dict


class MapUpdateParams(BaseModel):
    name: Optional[StrictStr]
    description: Optional[StrictStr]
    latest_state: Optional[MapState] = Field(None, alias='latestState')
    datasets: Optional[List[uuid.UUID]]

    class Config:
        allow_population_by_field_name = True


class Map(BaseModel):
    id: uuid.UUID
    name: StrictStr
    description: Optional[StrictStr]
    created_at: datetime = Field(..., alias='createdAt')
    updated_at: datetime = Field(..., alias='updatedAt')
    latest_state: Optional[MapState] = Field(None, alias='latestState')
    datasets: Optional[List[Dataset]]


class HexTileOutputColumnConfig(BaseModel):
    source_column: StrictStr = Field(..., alias='sourceColumn')
    target_column: StrictStr = Field(..., alias='targetColumn')
    agg_method: Optional[StrictStr] = Field(..., alias='aggMethod')
    dtype: Optional[StrictStr] = None

    class Config:
        allow_population_by_field_name = True


class HexTileConfig(BaseModel):
    """generate_hextile's body: the SDK's HexTileConfig fields and aliases, sent with exclude_none and by_alias."""
    source: uuid.UUID
    target: Optional[uuid.UUID] = None
    source_hex_column: Optional[StrictStr] = Field(None, alias='sourceHexColumn')
    source_lat_column: Optional[StrictStr] = Field(None, alias='sourceLatColumn')
    source_lng_column: Optional[StrictStr] = Field(None, alias='sourceLngColumn')
    source_time_column: Optional[StrictStr] = Field(None, alias='sourceTimeColumn')
    time_intervals: Optional[List[StrictStr]] = Field(None, alias='timeIntervals')
    target_res_offset: Optional[StrictInt] = Field(None, alias='targetResOffset')
    finest_resolution: Optional[StrictInt] = Field(None, alias='finestResolution')
    output_columns: Optional[List[HexTileOutputColumnConfig]] = Field(None, alias='outputColumns')

    class Config:
        allow_population_by_field_name = True


class VectorTileConfig(BaseModel):
    """generate_vectortile's body: the SDK's VectorTileConfig."""
    source: uuid.UUID
    target: Optional[uuid.UUID] = None
    source_lat_column: Optional[StrictStr] = Field(None, alias='sourceLatColumn')
    source_lng_column: Optional[StrictStr] = Field(None, alias='sourceLngColumn')
    attributes: Optional[List[StrictStr]] = None
    exclude_all_attributes: Optional[bool] = Field(None, alias='excludeAllAttributes')
    tile_size_kb: Optional[int] = Field(None, alias='tileSizeKb')

    class Config:
        allow_population_by_field_name = True


def raise_for_status(r: requests.Response) -> None:
    if not r.ok:
        raise AssertionError(f'{r.request.method} {r.url}: {r.status_code} {r.text[:500]}')


class DataSDK:
    """The SDK's HTTP calls, one method per documented call, with its token handling (refresh a minute before exp)."""

    client_id = 'studio-test'

    def __init__(self, base_url: str, auth_url: str, refresh_token: str):
        if not refresh_token.startswith('v1.'):
            raise ValueError('Refresh token should start with "v1."')
        self.base_url, self.auth_url, self.refresh_token = base_url, auth_url, refresh_token
        self._token: Optional[str] = None
        self.refreshes = 0

    @property
    def token(self) -> str:
        if not self._token or datetime.now() >= self._expiration() - timedelta(minutes=1):
            r = requests.post(self.auth_url, json={'grant_type': 'refresh_token', 'client_id': self.client_id, 'refresh_token': self.refresh_token})
            raise_for_status(r)
            creds = Credentials(**r.json())
            self.refresh_token = creds.refresh_token
            self._token = creds.access_token
            self.refreshes += 1
        return self._token

    def _expiration(self) -> datetime:
        return datetime.fromtimestamp(jwt.decode(self._token, options={'verify_signature': False})['exp'])

    @property
    def _headers(self) -> Dict[str, str]:
        return {'Authorization': f'Bearer {self.token}'}

    def list_datasets(self) -> List[Dataset]:
        r = requests.get(f'{self.base_url}/v1/datasets', headers=self._headers)
        raise_for_status(r)
        return [Dataset(**item) for item in r.json().get('items', [])]

    def get_dataset_by_id(self, dataset: Union[Dataset, str]) -> Dataset:
        dataset_id = dataset.id if isinstance(dataset, Dataset) else dataset
        r = requests.get(f'{self.base_url}/v1/datasets/{dataset_id}', headers=self._headers)
        raise_for_status(r)
        return Dataset(**r.json())

    def download_dataset(self, dataset: Union[Dataset, str], output_file=None):
        dataset_id = dataset.id if isinstance(dataset, Dataset) else dataset
        with requests.get(f'{self.base_url}/v1/datasets/{dataset_id}/data', headers=self._headers, stream=True) as r:
            raise_for_status(r)
            if output_file is None:
                return r.content, r
            with open(output_file, 'wb') as f:
                for chunk in r.iter_content(chunk_size=256 * 1024):
                    f.write(chunk)
            return None, r

    def download_dataframe(self, dataset: Union[Dataset, str]) -> pd.DataFrame:
        buf, r = self.download_dataset(dataset)
        content_type = r.headers['Content-Type']
        if content_type == 'text/csv':
            return pd.read_csv(io.BytesIO(buf))
        if content_type in ('application/geo+json', 'application/json'):
            return pd.json_normalize(json.loads(buf)['features'])
        raise AssertionError(f'Unknown Media Type {content_type}')

    def upload_file(self, file: Union[io.BytesIO, str, Path], name: Optional[str] = None, *, dataset=None, media_type: Optional[str] = None, description: Optional[str] = None) -> Dataset:
        if not name and not dataset:
            name = Path(file).name
        if not media_type:
            media_type = {'CSV': 'text/csv', 'GEOJSON': 'application/geo+json', 'JSON': 'application/json'}[Path(file).suffix.lstrip('.').upper()]
        raw = Path(file).read_bytes() if isinstance(file, (str, Path)) else file.read()
        headers = {**self._headers, 'Content-Type': media_type, 'Content-Encoding': 'gzip', 'Content-Length-Uncompressed': str(len(raw))}
        body = gzip.compress(raw)
        chunks = (body[i:i + 256 * 1024] for i in range(0, len(body), 256 * 1024))
        if dataset:
            dataset_id = dataset.id if isinstance(dataset, Dataset) else dataset
            r = requests.put(f'{self.base_url}/v1/datasets/{dataset_id}/data', data=chunks, headers=headers)
        else:
            params = {'name': name}
            if description:
                params['description'] = description
            r = requests.post(f'{self.base_url}/v1/datasets/data', data=chunks, params=params, headers=headers)
        raise_for_status(r)
        return Dataset(**r.json())

    def upload_dataframe(self, df: pd.DataFrame, name: Optional[str] = None, index: bool = True, **kwargs) -> Dataset:
        with io.BytesIO(df.to_csv(index=index).encode('utf-8')) as bio:
            return self.upload_file(file=bio, name=name, media_type='text/csv', **kwargs)

    def delete_dataset(self, dataset: Union[Dataset, str]) -> None:
        dataset_id = dataset.id if isinstance(dataset, Dataset) else dataset
        raise_for_status(requests.delete(f'{self.base_url}/v1/datasets/{dataset_id}', headers=self._headers))

    def list_maps(self) -> List[Map]:
        r = requests.get(f'{self.base_url}/v1/maps', headers=self._headers)
        raise_for_status(r)
        return [Map(**item) for item in r.json().get('items', [])]

    def get_map_by_id(self, map_id) -> Map:
        r = requests.get(f'{self.base_url}/v1/maps/{map_id}', headers=self._headers)
        raise_for_status(r)
        return Map(**r.json())

    def _map_params(self, name, description, map_state, datasets) -> str:
        ids = [str(d.id) if isinstance(d, Dataset) else d for d in datasets] if datasets else None
        return MapUpdateParams(name=name, description=description, latest_state=map_state, datasets=ids).json(exclude_none=True, by_alias=True)

    def create_map(self, *, name: str, description=None, map_state: Optional[MapState] = None, datasets=None) -> Map:
        r = requests.post(f'{self.base_url}/v1/maps', data=self._map_params(name, description, map_state, datasets), headers={**self._headers, 'Content-Type': 'application/json'})
        raise_for_status(r)
        return Map(**r.json())

    def update_map(self, *, map_id, name=None, description=None, map_state: Optional[MapState] = None, datasets=None) -> Map:
        r = requests.put(f'{self.base_url}/v1/maps/{map_id}', data=self._map_params(name, description, map_state, datasets), headers={**self._headers, 'Content-Type': 'application/json'})
        raise_for_status(r)
        return Map(**r.json())

    def generate_hextile(self, source, *, target=None, **kwargs) -> Dataset:
        as_id = lambda d: d.id if isinstance(d, Dataset) else d
        config = HexTileConfig(source=as_id(source), target=as_id(target) if target else None, **kwargs)
        r = requests.post(f'{self.base_url}/v1/datasets/hextile', data=config.json(exclude_none=True, by_alias=True), headers={**self._headers, 'Content-Type': 'application/json'})
        raise_for_status(r)
        return Dataset(**r.json())

    def generate_vectortile(self, source, *, target=None, **kwargs) -> Dataset:
        as_id = lambda d: d.id if isinstance(d, Dataset) else d
        config = VectorTileConfig(source=as_id(source), target=as_id(target) if target else None, **kwargs)
        r = requests.post(f'{self.base_url}/v1/datasets/vectortile', data=config.json(exclude_none=True, by_alias=True), headers={**self._headers, 'Content-Type': 'application/json'})
        raise_for_status(r)
        return Dataset(**r.json())

    def delete_map(self, map_id) -> None:
        raise_for_status(requests.delete(f'{self.base_url}/v1/maps/{map_id}', headers=self._headers))


def report(call: str, **facts) -> None:
    print(json.dumps({'call': call, 'ok': True, **facts}), flush=True)


def main() -> None:
    base = os.environ['STUDIO_SDK_BASE_URL']
    sdk = DataSDK(base, f'{base}/oauth/token', os.environ['STUDIO_SDK_REFRESH_TOKEN'])

    # Auth: the first call refreshes; the access token is a JWT whose exp the SDK reads.
    token = sdk.token
    claims = jwt.decode(token, options={'verify_signature': False})
    assert claims['exp'] > datetime.now().timestamp() + 30 * 60, claims
    assert 'jti' in claims, claims
    assert sdk.token == token and sdk.refreshes == 1, 'a fresh token is reused, not refreshed on every call'
    report('refresh', expires_in_s=int(claims['exp'] - datetime.now().timestamp()))

    work = Path(tempfile.mkdtemp())
    csv_path = work / 'stores.csv'
    csv_path.write_text('name,lat,lng,visits\nNorth,40.71,-74.0,12\nSouth,40.69,-73.98,7\nEast,40.72,-73.95,3\n')
    geojson_path = work / 'zones.geojson'
    geojson_path.write_text(json.dumps({'type': 'FeatureCollection', 'features': [
        {'type': 'Feature', 'properties': {'zone': 'A', 'score': 1.5}, 'geometry': {'type': 'Point', 'coordinates': [-74.0, 40.7]}},
        {'type': 'Feature', 'properties': {'zone': 'B', 'score': 2.5}, 'geometry': {'type': 'Point', 'coordinates': [-73.9, 40.8]}},
    ]}))

    stores = sdk.upload_file(csv_path, description='Three stores')
    assert stores.name == 'stores.csv' and stores.type == 'managed' and stores.is_valid, stores
    assert stores.metadata.media_type == 'text/csv' and stores.description == 'Three stores', stores
    report('upload_file csv', id=str(stores.id))

    zones = sdk.upload_file(geojson_path, 'Zones')
    assert zones.is_valid and zones.metadata.media_type == 'application/geo+json', zones
    report('upload_file geojson', id=str(zones.id))

    frame = pd.DataFrame({'city': ['Lyon', 'Nice'], 'lat': [45.76, 43.70], 'lng': [4.83, 7.26]})
    cities = sdk.upload_dataframe(frame, 'Cities', index=False)
    assert cities.is_valid and cities.name == 'Cities', cities
    report('upload_dataframe', id=str(cities.id))

    listed = {d.id: d for d in sdk.list_datasets()}
    assert {stores.id, zones.id, cities.id} <= set(listed), listed.keys()
    assert all(d.type in DATASET_TYPES for d in listed.values())
    report('list_datasets', count=len(listed))

    got = sdk.get_dataset_by_id(stores)
    assert got.id == stores.id and got.name == 'stores.csv' and got.is_valid, got
    report('get_dataset_by_id')

    raw, response = sdk.download_dataset(stores)
    assert response.headers['Content-Type'] == 'text/csv', response.headers['Content-Type']
    assert raw.decode().splitlines()[0] == 'name,lat,lng,visits' and len(raw.decode().strip().splitlines()) == 4, raw
    report('download_dataset bytes')

    out = work / 'copy.csv'
    assert sdk.download_dataset(stores, output_file=out)[0] is None and out.read_bytes() == raw
    report('download_dataset file')

    df = sdk.download_dataframe(stores)
    assert list(df.columns) == ['name', 'lat', 'lng', 'visits'] and df['visits'].sum() == 22, df
    report('download_dataframe csv', rows=len(df))

    back = sdk.download_dataframe(cities)
    assert list(back['city']) == ['Lyon', 'Nice'], back
    report('download_dataframe of an uploaded dataframe')

    geo_raw, geo_response = sdk.download_dataset(zones)
    assert geo_response.headers['Content-Type'] == 'application/geo+json', geo_response.headers['Content-Type']
    features = json.loads(geo_raw)['features']
    assert sorted(f['properties']['zone'] for f in features) == ['A', 'B'], features
    report('download_dataset geojson')

    def built(d: Dataset) -> Dataset:
        """Tiles are built by a job: the SDK's dataset reads pending, then valid."""
        deadline = datetime.now() + timedelta(seconds=90)
        while True:
            d = sdk.get_dataset_by_id(d)
            if d.metadata.data_status != 'pending' or datetime.now() > deadline:
                return d

    cells = sdk.generate_hextile(stores, source_lat_column='lat', source_lng_column='lng', finest_resolution=8,
                                 output_columns=[{'source_column': 'visits', 'target_column': 'visits_sum', 'agg_method': 'sum'}])
    assert cells.type == 'hex-tile' and cells.metadata.data_status == 'pending' and not cells.is_valid, cells
    cells = built(cells)
    assert cells.is_valid and cells.metadata.data_status == 'ready', cells
    report('generate_hextile', id=str(cells.id))

    points = sdk.generate_vectortile(stores, source_lat_column='lat', source_lng_column='lng', attributes=['name', 'visits'], tile_size_kb=64)
    assert points.type == 'vector-tile' and points.metadata.data_status == 'pending', points
    points = built(points)
    assert points.is_valid and points.metadata.tileset_data_url == f'/v1/datasets/{points.id}/tiles/{{z}}/{{x}}/{{y}}', points
    report('generate_vectortile', id=str(points.id))

    replaced = sdk.upload_file(io.BytesIO(b'name,lat,lng,visits\nWest,40.7,-74.1,40\n'), dataset=stores, media_type='text/csv')
    assert replaced.id == stores.id and replaced.is_valid, replaced
    assert sdk.download_dataframe(stores)['visits'].tolist() == [40]
    report('upload_file dataset= (replace)')

    # Built again in place from the replaced source: the same datasets, newer.
    again = sdk.generate_hextile(stores, target=cells, source_lat_column='lat', source_lng_column='lng', finest_resolution=8, time_intervals=None,
                                 output_columns=[{'source_column': 'visits', 'target_column': 'visits_sum', 'agg_method': 'sum'}])
    assert again.id == cells.id and again.name == cells.name, again
    again = built(again)
    assert again.is_valid and again.updated_at > cells.updated_at, again
    report('generate_hextile target= (in place)')

    cut = built(sdk.generate_vectortile(stores, target=points, exclude_all_attributes=True))
    assert cut.id == points.id and cut.is_valid and cut.updated_at > points.updated_at, cut
    report('generate_vectortile target= (in place)')

    state = MapState(id=uuid.uuid4(), data={'version': 'v1', 'config': {'mapState': {'latitude': 40.7, 'longitude': -74.0, 'zoom': 10}}})
    created = sdk.create_map(name='Stores map', description='From the SDK', map_state=state, datasets=[stores, str(zones.id)])
    assert created.name == 'Stores map' and created.description == 'From the SDK', created
    assert created.latest_state is not None and created.latest_state.data == state.data, created.latest_state
    assert sorted(str(d.id) for d in created.datasets) == sorted([str(stores.id), str(zones.id)]), created.datasets
    report('create_map', id=str(created.id))

    maps = sdk.list_maps()
    assert created.id in {m.id for m in maps}, maps
    report('list_maps', count=len(maps))

    full = sdk.get_map_by_id(created.id)
    assert full.latest_state.data == state.data and {d.id for d in full.datasets} == {stores.id, zones.id}, full
    report('get_map_by_id')

    new_state = MapState(id=uuid.uuid4(), data={'version': 'v1', 'config': {'mapState': {'latitude': 45.7, 'longitude': 4.8, 'zoom': 6}}})
    updated = sdk.update_map(map_id=created.id, name='Cities map', map_state=new_state, datasets=[cities])
    assert updated.name == 'Cities map' and updated.description == 'From the SDK', updated
    assert updated.latest_state.data == new_state.data and [d.id for d in updated.datasets] == [cities.id], updated
    report('update_map')

    sdk.delete_map(created.id)
    assert created.id not in {m.id for m in sdk.list_maps()}
    gone = requests.get(f'{base}/v1/maps/{created.id}', headers=sdk._headers)
    assert gone.status_code == 404, gone.status_code
    report('delete_map')

    for d in (stores, zones, cities, cells, points):
        sdk.delete_dataset(d)
    remaining = {d.id for d in sdk.list_datasets()}
    assert not remaining & {stores.id, zones.id, cities.id, cells.id, points.id}, remaining
    report('delete_dataset')


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # one line the test prints whole, then a failing exit
        print(json.dumps({'ok': False, 'error': f'{type(e).__name__}: {e}'}), flush=True)
        sys.exit(1)
