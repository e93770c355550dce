import geojsonvt from 'geojson-vt';
import vtpbf from 'vt-pbf';
import { badInput } from '@studio/schema';

/**
 * What the studio's two tile makers share (the built-in basemaps and vector-tile datasets): geojson-vt
 * settings, MVT encoding and the check of tile coordinates.
 */

export type VtIndex = ReturnType<typeof geojsonvt>;
export type VtTile = NonNullable<ReturnType<VtIndex['getTile']>>;

/** A tile's MVT (null without features), and whether features were left out to keep it within its byte budget. */
export type Encoded = { bytes: Uint8Array | null; trimmed: boolean };

/** MVT extent 4096 with a 64-unit buffer (what renderers expect); simplification tolerance 3 units. */
export const VT_OPTIONS = { extent: 4096, buffer: 64, tolerance: 3 } as const;

/** A geojson-vt index; tiles deeper than `indexMaxZoom` are cut on demand, up to `maxZoom`. */
export function vtIndex(data: Parameters<typeof geojsonvt>[0], maxZoom: number, indexMaxZoom: number): VtIndex {
  return geojsonvt(data, { ...VT_OPTIONS, maxZoom, indexMaxZoom });
}

/** Encodes geojson-vt tiles, one per layer name, as an MVT (version 2); null when no layer has a feature. */
export function encodeTile(layers: Record<string, VtTile | null | undefined>): Uint8Array | null {
  const kept = Object.fromEntries(Object.entries(layers).filter(([, t]) => t && t.features.length));
  return Object.keys(kept).length ? vtpbf.fromGeojsonVt(kept, { version: 2 }) : null;
}

/**
 * One layer's tile as an MVT of at most `maxBytes` (the Data SDK's tileSizeKb; no limit when undefined): past it,
 * features are left out, those with the lowest ids kept (the same features at every zoom), as many as fit. A
 * single feature larger than the budget is kept alone: an empty tile would lose it everywhere. Answers the
 * bytes (null without features) and whether any feature was left out.
 */
export function encodeWithin(layer: string, tile: VtTile | null | undefined, maxBytes?: number): Encoded {
  return fitWithin(encodeTile({ [layer]: tile }), tile?.features.length ?? 0, maxBytes, () => {
    const features = [...tile!.features].sort((a, b) => Number(a.id) - Number(b.id));
    return (n) => encodeTile({ [layer]: { ...tile!, features: features.slice(0, n) } })!;
  });
}

/**
 * The budget rule of encodeWithin for any encoder: `whole` (all `count` features) when it fits, else the most
 * features that fit, in the order `byId()` encodes them (lowest ids first), found by bisection (encoding is
 * linear in the features kept); never fewer than one.
 */
export function fitWithin(whole: Uint8Array | null, count: number, maxBytes: number | undefined, byId: () => (n: number) => Uint8Array): Encoded {
  if (!maxBytes || !whole || whole.length <= maxBytes || count < 2) return { bytes: whole, trimmed: false };
  const first = byId();
  let fits = 1;
  let over = count;
  let best = first(1);
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    const bytes = first(mid);
    if (bytes.length <= maxBytes) [fits, best] = [mid, bytes];
    else over = mid;
  }
  return { bytes: best, trimmed: true };
}

/** Throws 422 for coordinates outside the tile pyramid or past `maxZoom`. */
export function checkTile(z: number, x: number, y: number, maxZoom: number): void {
  const n = 2 ** z;
  if (!Number.isInteger(z) || z < 0 || z > maxZoom) throw badInput(`Tile zoom must be between 0 and ${maxZoom}`);
  if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) throw badInput(`Tile ${z}/${x}/${y} is outside the zoom level's range 0..${n - 1}`);
}
