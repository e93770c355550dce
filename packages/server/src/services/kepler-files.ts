import { Readable } from 'node:stream';
import {
  KEPLER_FILE_MAX_ROWS,
  StudioError,
  bestEffort,
  bindKeplerDataIds,
  keplerConfigOfMapState,
  keplerFieldType,
  type KeplerFile,
  type KeplerSavedConfigShape,
} from '@studio/schema';
import { quoteLiteral } from '@studio/engine';
import type { Services } from '.';
import type { Caller } from '../http/caller';
import { datasetAttrs } from './datasets';
import type { ResourceRow } from './records';
import { csvField } from './csv-text';

/**
 * kepler.gl's export files in and out (docs/decisions.md "kepler.gl files"). Importing makes one managed dataset
 * per dataset of the file (its rows ingested as any CSV upload), binds the config's dataset ids to the new
 * datasets and keeps the config as the map's state (a bare kepler config: map state version 0, which the
 * builder upgrades). Exporting writes the same format: the map's kepler config and each dataset's rows.
 */

/** The column types an import fixes instead of leaving to detection: text stays text ("007" is not 7). */
const FIXED_TYPES: Record<string, string> = { string: 'STRING', integer: 'BIGINT', real: 'DOUBLE', boolean: 'BOOLEAN', geojson: 'STRING' };

/**
 * kepler keeps epoch timestamps as numbers (format `x`: milliseconds, `X`: seconds); the studio's time columns
 * are read from ISO text, so a time filter still finds a timestamp after the import.
 */
function timestampValue(value: unknown, format: string | null | undefined): unknown {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value;
  return new Date(format === 'X' ? value * 1000 : value).toISOString();
}

/** A kepler dataset's rows as CSV text, one header line and one line a row, built in pieces. */
export function* keplerCsv(data: KeplerFile['datasets'][number]['data']): Generator<string> {
  const fields = data.fields;
  yield `${fields.map((f) => csvField(f.name)).join(',')}\n`;
  const times = fields.map((f) => f.type === 'timestamp');
  for (const row of data.allData) {
    yield `${row.map((v, i) => csvField(times[i] ? timestampValue(v, fields[i]!.format) : v)).join(',')}\n`;
  }
}

/** An empty config kepler loads, for a map that was never saved. */
const EMPTY_CONFIG: KeplerSavedConfigShape = {
  version: 'v1',
  config: {
    visState: { filters: [], layers: [], interactionConfig: {}, layerBlending: 'normal', splitMaps: [], animationConfig: { currentTime: null, speed: 1 } },
    mapState: { bearing: 0, dragRotate: false, latitude: 0, longitude: 0, pitch: 0, zoom: 1, isSplit: false },
    mapStyle: {},
  },
};

/**
 * The file's datasets as new managed datasets of the caller, in order; the config bound to them. A dataset
 * that fails to ingest removes those made before it (and answers its 422): an import is whole or nothing.
 */
export async function importKeplerDatasets(services: Services, caller: Caller, file: KeplerFile, create: (name: string) => Promise<ResourceRow>): Promise<{ rows: ResourceRow[]; config: KeplerSavedConfigShape }> {
  const total = file.datasets.reduce((n, d) => n + d.data.allData.length, 0);
  if (total > KEPLER_FILE_MAX_ROWS) throw new StudioError(413, `A kepler.gl file may hold at most ${KEPLER_FILE_MAX_ROWS.toLocaleString('en-US')} rows; this one has ${total.toLocaleString('en-US')}`);
  const made: ResourceRow[] = [];
  try {
    for (const { data } of file.datasets) {
      if (!data.allData.length) throw new StudioError(422, `Dataset ${data.label ?? data.id} has no rows`, 'The studio stores data with at least one row');
      const row = await create(data.label?.trim() || data.id);
      made.push(row);
      const columnTypes = Object.fromEntries(data.fields.flatMap((f) => (f.type && FIXED_TYPES[f.type] ? [[f.name, FIXED_TYPES[f.type]!]] : [])));
      made[made.length - 1] = await services.datasets.ingestUpload(row, Readable.from(keplerCsv(data)), 'text/csv', undefined, { csv: { columnTypes } });
    }
  } catch (e) {
    for (const row of made) {
      await services.records.delete(caller, row);
      // The answer is the import's own error: files left behind are logged, not the user's concern.
      await bestEffort(services.datasets.deleteData(row), `Removing the data of ${row.id}, made by a failed kepler.gl import`);
    }
    throw e;
  }
  const ids = new Map(file.datasets.map((d, i) => [d.data.id, made[i]!.id]));
  return { rows: made, config: bindKeplerDataIds(file.config, ids) };
}

/**
 * The map as a kepler.gl file: its kepler config and, for each dataset it uses that the caller reads and
 * that holds rows, its fields and rows (datasets served as tiles have no rows to write and are left out).
 */
export async function exportKeplerMap(services: Services, caller: Caller, map: ResourceRow, adminMode: boolean): Promise<KeplerFile> {
  const links = await services.db.selectFrom('resource_links as l').innerJoin('resources as r', 'r.id', 'l.linked_id').selectAll('r').where('l.resource_id', '=', map.id).where('r.type', '=', 'dataset').orderBy('r.created_at').orderBy('r.id').execute();
  const readable: ResourceRow[] = [];
  for (const row of links) {
    if ((await services.access.accessOf(caller, row, adminMode)) !== 'none' && datasetAttrs(row).storageKey) readable.push(row);
  }
  const total = readable.reduce((n, r) => n + (datasetAttrs(r).metadata.rowCount ?? 0), 0);
  if (total > KEPLER_FILE_MAX_ROWS) throw new StudioError(413, `A kepler.gl file may hold at most ${KEPLER_FILE_MAX_ROWS.toLocaleString('en-US')} rows; this map's datasets have ${total.toLocaleString('en-US')}`, 'Download the datasets on their own instead');
  const datasets: KeplerFile['datasets'] = [];
  for (const row of readable) datasets.push({ version: 'v1', data: await keplerDataset(services, row) });
  return {
    datasets,
    config: keplerConfigOfMapState(map.latest_state) ?? EMPTY_CONFIG,
    info: { app: 'kepler.gl', created_at: new Date().toString(), title: map.name, description: map.description },
  };
}

async function keplerDataset(services: Services, row: ResourceRow): Promise<KeplerFile['datasets'][number]['data']> {
  const a = datasetAttrs(row);
  const geometry = a.metadata.detected.geometry;
  const file = await services.engine.store.localPath(a.storageKey!);
  const rows = await services.engine.query(`SELECT * FROM read_parquet(${quoteLiteral(file)})`);
  const names = a.metadata.columns.map((c) => c.name);
  const fields = a.metadata.columns.map((c) => ({ name: c.name, type: keplerFieldType(c.type, c.name === geometry), format: '', analyzerType: c.type }));
  const allData = rows.map((r) =>
    names.map((n) => {
      const v = r[n] ?? null;
      // GeoJSON text goes back as the object kepler saved; WKT stays text, which kepler reads too.
      if (n === geometry && typeof v === 'string' && v.trimStart().startsWith('{')) return JSON.parse(v) as unknown;
      return v;
    }),
  );
  return { id: row.id, label: row.name, allData, fields };
}
