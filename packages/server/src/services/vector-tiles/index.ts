import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { StudioError, badInput, isStudioError, type DatasetColumn, type VectorTileInfo, type VectorTileOptions, VECTOR_TILE_MAX_ZOOM, bestEffort } from '@studio/schema';
import type { Services } from '..';
import type { Caller } from '../../http/caller';
import type { ResourceRow } from '../records';
import { datasetAttrs, EMPTY_METADATA, type DatasetAttrs } from '../datasets';
import { TileArchives } from './archive';
import { buildTiles, type Location } from './tiler';

export const DEFAULT_LAYER = 'features';

/** Where a vector-tile dataset's rows come from, as its metadata records it. */
export interface TileSource {
  name: string;
  pipelineType: VectorTileInfo['pipelineType'];
  query: string | null;
  sourceLabel: string;
}
const PARQUET = 'application/vnd.apache.parquet';

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

/**
 * Vector-tile datasets: a Parquet snapshot of the source (so preview, data and SQL work as for any
 * dataset) plus a PMTiles archive cut from it, made through the datasets' one ingestion path (status
 * new -> pending -> ready | error).
 */
export class VectorTileService {
  readonly archives: TileArchives;

  constructor(private readonly services: Pick<Services, 'engine' | 'datasets' | 'records' | 'audit' | 'units'>) {
    this.archives = new TileArchives(services.engine.store);
  }

  /**
   * Creates the dataset and tiles `produce`'s Parquet into it. Bad input found on the way (no location,
   * an unknown column, a query the warehouse refuses) removes the new dataset again: a 422 changes nothing;
   * so does a caller who leaves before the end (`signal`).
   */
  async create(
    caller: Caller,
    opts: VectorTileOptions,
    source: TileSource,
    produce: (file: string) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<ResourceRow> {
    const attrs: DatasetAttrs = { datasetType: 'vector-tile', status: 'new', storageKey: null, dataConnectionId: null, metadata: { ...EMPTY_METADATA } };
    const row = await this.services.units.run(async () => {
      const created = await this.services.records.create(caller, 'dataset', { name: opts.name ?? source.name, description: opts.description, attrs: attrs as unknown as Record<string, unknown> });
      await this.services.audit.record(caller, 'dataset.create', 'dataset', created.id, { name: created.name, type: 'vector-tile', source: source.sourceLabel });
      return created;
    });
    try {
      const ready = await this.services.datasets.ingestWith(
        row,
        { source: source.sourceLabel, pipelineType: source.pipelineType, contentType: PARQUET, query: source.query },
        async (file) => {
          await produce(file);
          return { contentType: PARQUET, contentEncoding: undefined };
        },
        async (key, result) => ({ vectorTile: await this.tile(row.id, key, result.columns as DatasetColumn[], opts, source.pipelineType, row.name, signal) }),
      );
      return ready;
    } catch (e) {
      // Bad input, or a caller gone before the end: nothing was made for anyone.
      if (isStudioError(e) && (e.status === 422 || e.status === 499)) {
        await bestEffort(this.services.records.delete(caller, row), `Removing the record of an abandoned tileset ${row.id}`);
        await bestEffort(this.services.engine.store.delete(`datasets/${row.id}`), `Removing the files of an abandoned tileset ${row.id}`);
      }
      throw e;
    }
  }

  /** Cuts the archive from the stored snapshot and puts it beside it. */
  private async tile(id: string, key: string, columns: DatasetColumn[], opts: VectorTileOptions, pipelineType: VectorTileInfo['pipelineType'], name: string, signal?: AbortSignal): Promise<VectorTileInfo> {
    const location = locationOf(columns, opts);
    const out = path.join(this.services.engine.tmpDir, `vt-${randomUUID()}.pmtiles`);
    try {
      const summary = await buildTiles(
        this.services.engine,
        {
          file: await this.services.engine.store.localPath(key),
          location,
          properties: propertiesOf(columns, location, opts),
          layer: opts.layerName ?? DEFAULT_LAYER,
          name,
          description: opts.description,
          minZoom: opts.minZoom,
          maxZoom: opts.maxZoom,
          zoomLimit: VECTOR_TILE_MAX_ZOOM,
          signal,
        },
        out,
      );
      await this.services.engine.store.put(tilesKeyOf(key), out);
      return { ...summary, pipelineType, format: 'pmtiles', tileFormat: 'mvt', tileUrl: `/v1/datasets/${id}/tiles/{z}/{x}/{y}`, tileJsonUrl: `/v1/datasets/${id}/tiles.json` };
    } finally {
      await fs.rm(out, { force: true });
    }
  }

  /** The archive key and tile info of a ready vector-tile dataset. */
  tilesOf(row: ResourceRow): { key: string; info: VectorTileInfo } {
    const a = datasetAttrs(row);
    if (a.datasetType !== 'vector-tile') throw badInput(`Dataset ${row.name} is not a vector-tile dataset (type: ${a.datasetType})`);
    if (a.status !== 'ready' || !a.storageKey || !a.metadata.vectorTile) throw new StudioError(409, `Dataset is not ready (status: ${a.status})`, a.metadata.errorMessage ?? undefined);
    return { key: tilesKeyOf(a.storageKey), info: a.metadata.vectorTile };
  }
}

const byServices = new WeakMap<object, VectorTileService>();
/** One service (and archive cache) per studio. */
export function vectorTiles(services: Services): VectorTileService {
  let s = byServices.get(services);
  if (!s) byServices.set(services, (s = new VectorTileService(services)));
  return s;
}
