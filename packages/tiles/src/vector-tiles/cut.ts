import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { badInput, type DatasetColumn, type VectorTileInfo, type VectorTileOptions, VECTOR_TILE_MAX_ZOOM } from '@studio/schema';
import type { Engine } from '@studio/engine';
import type { TileCache } from '../tile-cache';
import { TileArchives } from './archive';
import { buildTiles, type Location } from './tiler';

export const DEFAULT_LAYER = 'features';

/** The archive sits next to the dataset's Parquet snapshot and switches with it (same name, .pmtiles). */
export const tilesKeyOf = (storageKey: string) => storageKey.replace(/\.parquet$/, '.pmtiles');

/** Where the location is, from the caller's choice or the detected roles; 422 when there is none. */
export function locationOf(columns: DatasetColumn[], opts: VectorTileOptions): Location {
  const known = new Set(columns.map((c) => c.name));
  for (const name of [opts.latColumn, opts.lngColumn, opts.geometryColumn, ...(opts.columns ?? [])]) {
    if (name !== undefined && !known.has(name)) throw badInput(`Unknown column ${name}`);
  }
  if (opts.latColumn && opts.lngColumn) return { kind: 'point', lat: opts.latColumn, lng: opts.lngColumn };
  if (opts.geometryColumn) return { kind: 'geometry', column: opts.geometryColumn };
  const role = (r: DatasetColumn['role']) => columns.find((c) => c.role === r)?.name;
  const lat = role('latitude');
  const lng = role('longitude');
  if (lat && lng) return { kind: 'point', lat, lng };
  const geometry = role('geometry');
  if (geometry) return { kind: 'geometry', column: geometry };
  throw badInput('The data has no location to tile', 'Give latColumn and lngColumn, or geometryColumn (GeoJSON or WKT text)');
}

/** Properties: the chosen columns, or all but the location columns (and GeoJSON point copies). */
function propertiesOf(columns: DatasetColumn[], location: Location, opts: VectorTileOptions) {
  const taken = new Set(location.kind === 'point' ? [location.lat, location.lng] : [location.column]);
  const chosen = opts.columns ? columns.filter((c) => opts.columns!.includes(c.name)) : columns.filter((c) => !taken.has(c.name) && c.name !== '_geojson');
  return chosen.map((c) => ({ name: c.name, duckdbType: c.duckdbType }));
}

/** One cut: the dataset it is for and its stored rows (a Parquet snapshot in the object store). */
export interface CutRequest {
  datasetId: string;
  key: string;
  columns: DatasetColumn[];
  opts: VectorTileOptions;
  pipelineType: VectorTileInfo['pipelineType'];
  name: string;
  signal?: AbortSignal;
  /** Where the archive goes; default beside the snapshot (tilesKeyOf). A table dataset's own tiles get a key per cut. */
  tilesKey?: string;
  /**
   * Low zooms first (tiler.ts step 5): zooms up to `upTo` are put under `tilesKey` of their own and `ready` is
   * awaited (the caller makes them served) before the rest is cut. Their info has `cutMaxZoom`.
   */
  early?: { upTo: number; tilesKey: string; ready: (info: VectorTileInfo) => Promise<void> };
}

/**
 * Vector tiles over the engine's object store: cutting a PMTiles archive from a stored Parquet snapshot, and
 * reading single tiles through the node's tile cache. Knows nothing of the catalog: the datasets' service
 * decides what to cut and when the cut becomes the dataset's.
 */
export class VectorTiles {
  readonly archives: TileArchives;

  constructor(private readonly deps: { engine: Engine; tileCache: TileCache }) {
    this.archives = new TileArchives(deps.engine.store);
  }

  /**
   * One tile as stored (gzip or not), null where the pyramid has no feature: from the node's tile cache when
   * hot, else read from the archive and kept there (an empty place too, so the next ask reads nothing).
   */
  async cachedTile(key: string, z: number, x: number, y: number): Promise<{ bytes: Buffer; gzip: boolean } | null> {
    const entry = await this.deps.tileCache.getOrLoad(`${key}|${z}/${x}/${y}`, async () => {
      const tile = await this.archives.storedTile(key, z, x, y);
      // The entry's first byte says whether the rest is gzip; no feature there is an empty entry.
      return tile ? Buffer.concat([Buffer.from([tile.gzip ? 1 : 0]), tile.bytes]) : Buffer.alloc(0);
    });
    return entry.length ? { gzip: entry[0] === 1, bytes: entry.subarray(1) } : null;
  }

  /** Cuts the archive from the stored snapshot and puts it beside it (tilesKeyOf), or under `tilesKey`. */
  async cut({ datasetId, key, columns, opts, pipelineType, name, signal, tilesKey = tilesKeyOf(key), early }: CutRequest): Promise<VectorTileInfo> {
    const { engine } = this.deps;
    const location = locationOf(columns, opts);
    const out = path.join(engine.tmpDir, `vt-${randomUUID()}.pmtiles`);
    const urls = { pipelineType, format: 'pmtiles', tileFormat: 'mvt', tileUrl: `/v1/datasets/${datasetId}/tiles/{z}/{x}/{y}`, tileJsonUrl: `/v1/datasets/${datasetId}/tiles.json` } as const;
    try {
      const summary = await buildTiles(
        engine,
        {
          file: await engine.store.localPath(key),
          location,
          properties: propertiesOf(columns, location, opts),
          layer: opts.layerName ?? DEFAULT_LAYER,
          name,
          description: opts.description,
          minZoom: opts.minZoom,
          maxZoom: opts.maxZoom,
          zoomLimit: VECTOR_TILE_MAX_ZOOM,
          maxTileBytes: opts.tileSizeKb === undefined ? undefined : opts.tileSizeKb * 1024,
          signal,
          early: early && {
            upTo: early.upTo,
            ready: async (file, low) => {
              await engine.store.put(early.tilesKey, file);
              await early.ready({ ...low, ...urls });
            },
          },
        },
        out,
      );
      await engine.store.put(tilesKey, out);
      return { ...summary, ...urls };
    } finally {
      await fs.rm(out, { force: true });
    }
  }
}
