import { checkTile, encodeTile, vtIndex, type VtIndex, type VtTile } from '../vector-tiles/mvt';
import { BASEMAP_LAYERS, LAYER_MIN_ZOOM, buildGeography, placeRankAt, type BasemapLayer } from './geography';

/** Tiles are cut up to this zoom; styles declare it as the source's maxzoom and the map overzooms past it. */
export const TILE_MAX_ZOOM = 10;
/** Requests beyond this are refused rather than cut (a z24 tile would only be an overzoomed z10 anyway). */
export const TILE_REQUEST_MAX_ZOOM = 14;
const CACHE_SIZE = 512;

type Index = VtIndex;

/** A places tile with only the ranks named at its zoom (a copy: geojson-vt keeps its tiles). */
function placesUpToRank(tile: VtTile | null, maxRank: number): VtTile | null {
  if (!tile) return null;
  const features = tile.features.filter((f) => Number((f.tags as { rank?: unknown }).rank) <= maxRank);
  return features.length ? { ...tile, features } : null;
}

/**
 * Mapbox Vector Tiles of the built-in geography. The GeoJSON and the geojson-vt indexes are built once,
 * on the first tile asked for (start-up stays fast; a server that never shows a map never pays), then
 * kept in memory with the last encoded tiles.
 */
export class BasemapTiles {
  private indexes: Promise<Record<BasemapLayer, Index>> | null = null;
  private readonly cache = new Map<string, Buffer | null>();

  private load(): Promise<Record<BasemapLayer, Index>> {
    this.indexes ??= buildGeography()
      .then((geo) => {
        const out = {} as Record<BasemapLayer, Index>;
        for (const name of BASEMAP_LAYERS) {
          // Only land is pre-tiled deeply; the border meshes are cut on demand.
          out[name] = vtIndex(geo[name], TILE_MAX_ZOOM, name === 'land' ? 4 : 2);
        }
        return out;
      })
      .catch((e: unknown) => {
        this.indexes = null;
        throw e;
      });
    return this.indexes;
  }

  /** Throws 422 for coordinates outside the tile pyramid. */
  static check(z: number, x: number, y: number): void {
    checkTile(z, x, y, TILE_REQUEST_MAX_ZOOM);
  }

  /** The tile's bytes, or null when no layer has a feature there (the ocean). */
  async tile(z: number, x: number, y: number): Promise<Buffer | null> {
    BasemapTiles.check(z, x, y);
    const key = `${z}/${x}/${y}`;
    if (this.cache.has(key)) {
      const hit = this.cache.get(key)!;
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const indexes = await this.load();
    const layers: Record<string, VtTile | null> = {};
    for (const name of BASEMAP_LAYERS) if (z >= LAYER_MIN_ZOOM[name]) layers[name] = indexes[name].getTile(z, x, y);
    layers.places = placesUpToRank(layers.places ?? null, placeRankAt(z));
    const encoded = encodeTile(layers);
    const bytes = encoded ? Buffer.from(encoded) : null;
    this.cache.set(key, bytes);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return bytes;
  }
}
