import type { Dataset } from '@studio/schema';
import { client } from '../app/api';
import type { KeplerDataset } from './datasets';

/** Signed links to a vector-tile dataset's TileJSON and tiles (see the server's /v1/datasets/{id}/tiles/link). */
interface TileLink {
  tileJsonUrl: string;
  tileUrl: string;
  expiresAt: string;
}

export const isVectorTileDataset = (meta: Pick<Dataset, 'type'>) => meta.type === 'vector-tile';

/**
 * A vector-tile dataset as kepler.gl 3.2 takes a remote MVT tileset (what its "add tileset" dialog
 * dispatches): no rows, the TileJSON and tile URLs in `metadata`; kepler fetches the TileJSON itself when
 * it creates the table and reads the fields from it. kepler fetches with plain GETs, so the URLs are the
 * signed links the server hands to readers of the dataset, not the session-authenticated ones.
 */
export async function vectorTileDataset(meta: Pick<Dataset, 'id' | 'name'>): Promise<KeplerDataset> {
  const { item } = await client.request<{ item: TileLink }>('GET', `/v1/datasets/${meta.id}/tiles/link`);
  return fromLink(meta.id, meta.name, item);
}

/**
 * A published map's dataset as a remote tileset when it is a vector-tile dataset — or, with `own`, a table dataset
 * whose saved layers drew it from its own tiles (#50) while they show its data — else null (read it as Arrow).
 */
export async function publishedVectorTileDataset(mapId: string, id: string, label: string, grant?: string, own = false): Promise<KeplerDataset | null> {
  const { item } = await client.request<{ item: TileLink | null }>('GET', `/v1/maps/${mapId}/published-map/datasets/${id}/tiles/link`, {
    headers: grant ? { 'x-map-grant': grant } : {},
    ...(own ? { query: { own: '1' } } : {}),
  });
  return item && fromLink(id, label, item);
}

function fromLink(id: string, label: string, item: TileLink): KeplerDataset {
  const dataset = {
    info: { id, label, type: 'vector-tile', format: 'rows' },
    data: { fields: [], rows: [] },
    metadata: { type: 'remote', remoteTileFormat: 'mvt', tilesetDataUrl: item.tileUrl, tilesetMetadataUrl: item.tileJsonUrl },
    // What kepler's own tileset dialog sets: tiles filter on the GPU by numbers and booleans, rows are not local.
    supportedFilterTypes: ['real', 'integer', 'boolean'],
    disableDataOperation: true,
  };
  // addDataToMap takes this shape as well as the Arrow one KeplerDataset names.
  return dataset as unknown as KeplerDataset;
}
