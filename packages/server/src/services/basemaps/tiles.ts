import geojsonvt from 'geojson-vt';
import vtpbf from 'vt-pbf';
import { badInput } from '@studio/schema';
import { BASEMAP_LAYERS, LAYER_MIN_ZOOM, buildGeography, type BasemapLayer } from './geography';

/** Tiles are cut up to this zoom; styles declare it as the source's maxzoom and the map overzooms past it. */
export const TILE_MAX_ZOOM = 10;
/** Requests beyond this are refused rather than cut (a z24 tile would only be an overzoomed z10 anyway). */
export const TILE_REQUEST_MAX_ZOOM = 14;
const CACHE_SIZE = 512;

type Index = ReturnType<typeof geojsonvt>;

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
          out[name] = geojsonvt(geo[name], { maxZoom: TILE_MAX_ZOOM, indexMaxZoom: name === 'land' ? 4 : 2, tolerance: 3, buffer: 64 });
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
    const n = 2 ** z;
    if (!Number.isInteger(z) || z < 0 || z > TILE_REQUEST_MAX_ZOOM) throw badInput(`Tile zoom must be between 0 and ${TILE_REQUEST_MAX_ZOOM}`);
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) throw badInput(`Tile ${z}/${x}/${y} is outside the zoom level's range 0..${n - 1}`);
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
    const layers: Record<string, NonNullable<ReturnType<Index['getTile']>>> = {};
    for (const name of BASEMAP_LAYERS) {
      if (z < LAYER_MIN_ZOOM[name]) continue;
      const t = indexes[name].getTile(z, x, y);
      if (t && t.features.length) layers[name] = t;
    }
    const bytes = Object.keys(layers).length ? Buffer.from(vtpbf.fromGeojsonVt(layers, { version: 2 })) : null;
    this.cache.set(key, bytes);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return bytes;
  }
}
