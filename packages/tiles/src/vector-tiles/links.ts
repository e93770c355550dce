import { StudioError } from '@studio/schema';

/** What signs and checks links: the studio's shared secret (an HMAC), so any API node checks another's links. */
export interface LinkSigner {
  sign(payload: string): string;
  verify(payload: string, sig: string): boolean;
}

/**
 * Signed tile links: map renderers (kepler.gl, MapLibre) fetch TileJSON and tiles with plain GETs and
 * cannot send the session's Authorization header, so a reader of a vector-tile dataset is handed links
 * that carry an expiry and an HMAC of the dataset id (like a presigned URL). Any API node checks them with
 * the shared secret; deleting the dataset ends them.
 */
export const TILE_LINK_TTL_MS = 12 * 60 * 60 * 1000;
/**
 * Expiries are rounded up to the hour: every link to a dataset handed out within one hour is the same URL, so
 * a map opened again finds its tiles in the browser's cache (versioned tile answers are immutable) instead of
 * fetching them under a new signature. A link thus works 12 to 13 hours.
 */
const EXPIRY_STEP_MS = 60 * 60 * 1000;
export const LINK_BASE = '/v1/vector-tiles';

/**
 * What a link signs: the dataset and the expiry, and for a link handed out by a published map, that map
 * (such a link works only while the map is published with the dataset in it).
 */
const payload = (datasetId: string, exp: number, mapId?: string) => `vector-tiles:${datasetId}:${exp}${mapId ? `:map:${mapId}` : ''}`;

/** The query string (`exp`, `map` when given, `sig`) of links to one dataset's tiles, valid for TILE_LINK_TTL_MS and up to an hour more. */
export function signTileLink(secrets: LinkSigner, datasetId: string, now = Date.now(), mapId?: string): { exp: number; sig: string; query: string } {
  const exp = Math.ceil((now + TILE_LINK_TTL_MS) / EXPIRY_STEP_MS) * EXPIRY_STEP_MS;
  const sig = secrets.sign(payload(datasetId, exp, mapId));
  return { exp, sig, query: linkQuery({ exp, sig, map: mapId }) };
}

/** A link's query string, as signed and as handed on to the tile URLs of its TileJSON. */
export const linkQuery = (q: { exp: number; sig: string; map?: string }) => `exp=${q.exp}${q.map ? `&map=${q.map}` : ''}&sig=${q.sig}`;

/** 403 unless `sig` signs this dataset (and this map, for a published map's link) and `exp` has not passed. */
export function verifyTileLink(secrets: LinkSigner, datasetId: string, exp: number, sig: string, mapId?: string): void {
  if (!secrets.verify(payload(datasetId, exp, mapId), sig)) throw new StudioError(403, 'Invalid tile link signature');
  if (!(exp > Date.now())) throw new StudioError(403, 'Tile link has expired');
}
