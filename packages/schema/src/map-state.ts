import { z } from 'zod';
import { isStateObject, parseVersionedState, type StateUpgrade } from './versioned-state';
import { badInput } from './errors';

/**
 * The studio's saved map state (Map.latestState), versioned on its own:
 * `{studioVersion, kepler: <kepler saved config {version, config: {visState, mapState, mapStyle}}>}`.
 * kepler versions its config itself ('v1') and migrates it in KeplerGlSchema.parseSavedConfig; the
 * studio's envelope lets the studio change what it keeps around kepler's part (e.g. dataset refs)
 * without touching kepler's. One rule for the browser and the server, as dashboards.ts has:
 * MAP_UPGRADES[n] turns version n into n + 1, parseMapState brings any stored state to the current one.
 */
export const MAP_STATE_VERSION = 1;
/** The name the map builder has always used for it. */
export const STUDIO_STATE_VERSION = MAP_STATE_VERSION;

/** kepler's saved config, kept opaque except for what the studio reads. */
export interface KeplerSavedConfig {
  version: string;
  config: { visState?: unknown; mapState?: unknown; mapStyle?: unknown; uiState?: unknown };
}

/** How a layer's dataset is drawn: from its own vector tiles, or all its rows downloaded (#50). */
export const DATA_DRAWS = ['tiles', 'rows'] as const;
export type DataDraw = (typeof DATA_DRAWS)[number];

export interface StudioMapStateV1 {
  studioVersion: 1;
  kepler: KeplerSavedConfig;
  /**
   * Optional (#50): the datasets whose layers the user set to draw from tiles or from all rows, by dataset id. A
   * dataset absent from it (every map saved before) is drawn as the installation's tile threshold decides
   * (STUDIO_MAP_TILE_ROWS, STUDIO_MAP_TILE_BYTES). Optional rather than a version 2: a studio before it ignores it.
   */
  draw?: Record<string, DataDraw>;
  /**
   * Optional (#50, kepler.gl #3198): a time filter's end-time field, by kepler filter id then dataset id. With one, the
   * playback draws a feature while its [start, end] interval overlaps the window, not only when its start falls in it.
   * Kept here, not in kepler's config: kepler 3.2's filter schema saves no such field and drops it on load.
   */
  timeEnds?: TimeEnds;
  /**
   * Optional (#50): the size (radius) legend's manual labels, by kepler layer id then legend value (its number as
   * text), as kepler keeps the colour legend's in the layer's colorRange. kepler's loader drops a visConfig key it
   * does not know, so they are kept here.
   */
  sizeLegends?: SizeLegends;
}
/** Layer id -> legend value -> the label shown instead of the value. */
export type SizeLegends = Record<string, Record<string, string>>;
/** Filter id -> dataset id -> the name of that dataset's end-time field. */
export type TimeEnds = Record<string, Record<string, string>>;
export type StudioMapState = StudioMapStateV1;

/** Version 0 is a bare kepler config (`{version, config}`): what kepler exports and a kepler.gl JSON import carries. */
export const MAP_UPGRADES: Record<number, StateUpgrade> = {
  0: (bare) => ({ studioVersion: 1, kepler: bare }),
};

const StudioMapStateSchema = z.object({
  studioVersion: z.literal(MAP_STATE_VERSION),
  kepler: z.looseObject({ version: z.string().min(1), config: z.record(z.string(), z.unknown()) }, { error: 'the kepler config is missing' }),
  draw: z.record(z.string(), z.enum(DATA_DRAWS)).optional(),
  timeEnds: z.record(z.string().min(1), z.record(z.string().min(1), z.string().min(1, { error: 'an end-time field needs a name' }))).optional(),
  sizeLegends: z.record(z.string().min(1), z.record(z.string().min(1), z.string().max(200, { error: 'a legend label is at most 200 characters' }))).optional(),
});

function mapVersionOf(state: Record<string, unknown>): number {
  if (typeof state.studioVersion === 'number') return state.studioVersion;
  return 'config' in state && 'version' in state ? 0 : -1;
}

/** A stored map state brought to the current version; 422 for a newer studio's or one of no known shape. */
export function parseMapState(stored: unknown): StudioMapState {
  if (!isStateObject(stored)) throw badInput('Invalid map state: not an object');
  return parseVersionedState(stored, {
    what: 'map',
    current: MAP_STATE_VERSION,
    upgrades: MAP_UPGRADES,
    schema: StudioMapStateSchema,
    versionOf: mapVersionOf,
    unknownShape: 'neither a studio state nor a kepler config',
  }) as StudioMapState;
}

/** parseMapState, with null for a map never saved. */
export function upgradeMapState(stored: unknown): StudioMapState | null {
  return stored === null || stored === undefined ? null : parseMapState(stored);
}

/** Where a map looks: the part of kepler's mapState the map opens on. */
export interface MapViewState {
  latitude: number;
  longitude: number;
  zoom: number;
  bearing?: number;
  pitch?: number;
}

/** The view a saved kepler config opens on, or null when it has none. */
export function savedView(kepler: KeplerSavedConfig | null | undefined): MapViewState | null {
  const m = kepler?.config.mapState;
  if (!isStateObject(m)) return null;
  const { latitude, longitude, zoom, bearing, pitch } = m;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || typeof zoom !== 'number') return null;
  return { latitude, longitude, zoom, ...(typeof bearing === 'number' ? { bearing } : {}), ...(typeof pitch === 'number' ? { pitch } : {}) };
}

/** What a map saves beside kepler's config (each left out when empty). */
export interface StudioMapExtras {
  timeEnds?: TimeEnds;
  sizeLegends?: SizeLegends;
}

/** The state a map saves: kepler's config, with the layers' draw overrides, time filters' end fields and size-legend labels when there are any. */
export function wrapKeplerConfig(kepler: KeplerSavedConfig, draw: Record<string, DataDraw> = {}, extras: StudioMapExtras = {}): StudioMapState {
  const some = <T extends object>(o: T | undefined) => (o && Object.keys(o).length ? o : undefined);
  const timeEnds = some(extras.timeEnds);
  const sizeLegends = some(extras.sizeLegends);
  return { studioVersion: STUDIO_STATE_VERSION, kepler, ...(Object.keys(draw).length ? { draw } : {}), ...(timeEnds && { timeEnds }), ...(sizeLegends && { sizeLegends }) };
}

/**
 * A map state as a save checks it (#51; docs/decisions.md "Map states checked on save, leniently"): a state in
 * the studio's envelope (`studioVersion`) or a bare kepler config (`version` and `config`) must parse as one —
 * a newer studio's version, a missing kepler part, a config that is not an object are refused with 422 — while
 * every field the parse does not read is kept, since the state is stored as sent, not as parsed. Any other object
 * (the Data SDK's `{id, data}`, a client's own shape) is kept as it is: refusing it would break callers the
 * studio promises to serve unchanged. What is not an object at all is refused.
 */
export function checkMapStateOnSave(state: unknown): void {
  if (!isStateObject(state)) throw badInput('Invalid map state: not an object');
  if ('studioVersion' in state || ('config' in state && 'version' in state)) parseMapState(state);
}
