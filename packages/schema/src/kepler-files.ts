import { z } from 'zod';
import { upgradeMapState } from './map-state';

/**
 * kepler.gl's own export file (`KeplerGlSchema.save()`, "Export map → JSON"): `{datasets, config, info}`.
 * Datasets are saved as `{version: 'v0' | 'v1', data: {id, label, color, allData, fields}}`; the config as
 * `{version: 'v0' | 'v1', config: {visState, mapState, mapStyle}}`, versioned and migrated by kepler itself
 * (the map builder loads either). Validated here only as far as the studio reads it; the rest is kept as is.
 */
export const KeplerField = z
  .object({
    name: z.string().min(1, 'a field needs a name').max(500),
    /** kepler's field type: string, integer, real, boolean, timestamp, date, geojson, point, array, object, h3 … */
    type: z.string().max(50).optional(),
    format: z.string().max(200).nullish(),
  })
  .passthrough();
export type KeplerField = z.infer<typeof KeplerField>;

/** At most this many rows a file's datasets hold together (import and export); past it, 413. */
export const KEPLER_FILE_MAX_ROWS = 1_000_000;

export const KeplerSavedDataset = z.object({
  version: z.string().max(20).optional(),
  data: z
    .object({
      id: z.string().min(1, 'a dataset needs an id').max(500),
      label: z.string().max(500).optional(),
      color: z.unknown().optional(),
      allData: z.array(z.array(z.unknown())),
      fields: z.array(KeplerField).min(1, 'a dataset needs at least one field').max(2000),
    })
    .passthrough(),
});
export type KeplerSavedDataset = z.infer<typeof KeplerSavedDataset>;

export const KeplerSavedConfigShape = z
  .object({
    version: z.string().min(1).max(20),
    config: z.record(z.string(), z.unknown()),
  })
  .passthrough();
export type KeplerSavedConfigShape = z.infer<typeof KeplerSavedConfigShape>;

export const KeplerFile = z
  .object({
    datasets: z.array(KeplerSavedDataset).max(100),
    config: KeplerSavedConfigShape,
    info: z.object({ app: z.string().optional(), created_at: z.string().optional(), title: z.string().max(500).optional(), description: z.string().max(10_000).optional() }).passthrough().optional(),
  })
  .superRefine((file, c) => {
    const ids = file.datasets.map((d) => d.data.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice) c.addIssue({ code: 'custom', path: ['datasets'], message: `dataset id ${twice} is used twice` });
    file.datasets.forEach((d, i) => {
      const width = d.data.fields.length;
      const bad = d.data.allData.findIndex((row) => row.length !== width);
      if (bad >= 0) c.addIssue({ code: 'custom', path: ['datasets', i, 'data', 'allData', bad], message: `row ${bad + 1} of ${d.data.id} has ${d.data.allData[bad]!.length} values for ${width} fields` });
    });
  });
export type KeplerFile = z.infer<typeof KeplerFile>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A kepler config with its dataset ids replaced through `ids` (ids not in it are kept): the places kepler's
 * config names a dataset — each layer's `config.dataId` (`dataId` in v0), each filter's `dataId` (one or a list), and the
 * tooltip's `fieldsToShow`, keyed by dataset — in v0 and v1 configs alike. Pure: the input is not changed.
 */
export function bindKeplerDataIds<T extends { config: Record<string, unknown> }>(saved: T, ids: ReadonlyMap<string, string>): T {
  const rename = (id: unknown) => (typeof id === 'string' ? (ids.get(id) ?? id) : id);
  const vis = saved.config.visState;
  if (!isObject(vis)) return saved;
  // v1 layers keep their dataset under config; v0 layers are flat (kepler folds dataId into config when it loads them).
  const layers = Array.isArray(vis.layers)
    ? vis.layers.map((l: unknown) => {
        if (!isObject(l)) return l;
        if (isObject(l.config)) return { ...l, config: { ...l.config, dataId: rename(l.config.dataId) } };
        return 'dataId' in l ? { ...l, dataId: rename(l.dataId) } : l;
      })
    : vis.layers;
  const filters = Array.isArray(vis.filters)
    ? vis.filters.map((f: unknown) => (isObject(f) ? { ...f, dataId: Array.isArray(f.dataId) ? f.dataId.map(rename) : rename(f.dataId) } : f))
    : vis.filters;
  let interaction = vis.interactionConfig;
  if (isObject(interaction) && isObject(interaction.tooltip)) {
    const tooltip = interaction.tooltip;
    // v1 keeps fieldsToShow under tooltip; some saved configs nest it under tooltip.config.
    const holder = isObject(tooltip.config) && isObject(tooltip.config.fieldsToShow) ? 'config' : null;
    const fields = holder ? (tooltip.config as Record<string, unknown>).fieldsToShow : tooltip.fieldsToShow;
    if (isObject(fields)) {
      const renamed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [rename(k) as string, v]));
      interaction = holder
        ? { ...interaction, tooltip: { ...tooltip, config: { ...(tooltip.config as Record<string, unknown>), fieldsToShow: renamed } } }
        : { ...interaction, tooltip: { ...tooltip, fieldsToShow: renamed } };
    }
  }
  return { ...saved, config: { ...saved.config, visState: { ...vis, layers, filters, interactionConfig: interaction } } };
}

/**
 * The kepler part of a saved map state (web/src/map/state/versions.ts): a studio state `{studioVersion, kepler}`
 * or a bare kepler config (state version 0, as imported). Null for a map never saved.
 */
export function keplerConfigOfMapState(state: unknown): KeplerSavedConfigShape | null {
  // One rule for a map state's versions (map-state.ts): a state it refuses has no kepler part to read.
  try {
    return (upgradeMapState(state)?.kepler as KeplerSavedConfigShape | undefined) ?? null;
  } catch {
    return null;
  }
}

/** kepler's field type for a column of the studio's catalog (DatasetColumn.type), and for its detected geometry column. */
export function keplerFieldType(columnType: string, isGeometry: boolean): string {
  if (isGeometry || columnType === 'GEOMETRY') return 'geojson';
  switch (columnType) {
    case 'INTEGER':
    case 'BIGINT':
      return 'integer';
    case 'FLOAT':
    case 'DOUBLE':
    case 'DECIMAL':
      return 'real';
    case 'BOOLEAN':
      return 'boolean';
    case 'DATE':
      return 'date';
    case 'TIMESTAMP':
      return 'timestamp';
    case 'ARRAY':
      return 'array';
    case 'STRUCT':
    case 'MAP':
    case 'VARIANT':
      return 'object';
    default:
      return 'string';
  }
}
