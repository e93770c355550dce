/**
 * The studio's saved map state (Map.latestState), versioned on its own:
 * `{studioVersion, kepler: <kepler saved config {version, config: {visState, mapState, mapStyle}}>}`.
 * kepler versions its config itself ('v1') and migrates it in KeplerGlSchema.parseSavedConfig; the
 * studio's envelope lets the studio change what it keeps around kepler's part (e.g. dataset refs)
 * without touching kepler's. Upgrades are small pure functions, one per version step, as in kepler's
 * schema manager: UPGRADES[n] turns version n into n + 1.
 */
export const STUDIO_STATE_VERSION = 1;

/** kepler's saved config, kept opaque except for what the studio reads. */
export interface KeplerSavedConfig {
  version: string;
  config: { visState?: unknown; mapState?: unknown; mapStyle?: unknown; uiState?: unknown };
}

export interface StudioMapStateV1 {
  studioVersion: 1;
  kepler: KeplerSavedConfig;
}

export type StudioMapState = StudioMapStateV1;

type Upgrade = (state: Record<string, unknown>) => Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * UPGRADES[n]: version n to n + 1. Version 0 is a bare kepler config (`{version, config}`), the
 * shape kepler itself exports and what a map imported from a kepler.gl JSON file carries.
 */
export const UPGRADES: Record<number, Upgrade> = {
  0: (bare) => ({ studioVersion: 1, kepler: bare }),
};

function versionOf(state: Record<string, unknown>): number {
  if (typeof state.studioVersion === 'number') return state.studioVersion;
  if ('config' in state && 'version' in state) return 0;
  throw new Error('Unrecognised map state: neither a studio state nor a kepler config');
}

/** Brings a stored state to the current version; null for a map never saved. */
export function upgradeMapState(stored: unknown): StudioMapState | null {
  if (stored === null || stored === undefined) return null;
  if (!isObject(stored)) throw new Error('Unrecognised map state: not an object');
  let state = stored;
  let version = versionOf(state);
  if (version > STUDIO_STATE_VERSION) throw new Error(`This map was saved by a newer studio (state version ${version})`);
  while (version < STUDIO_STATE_VERSION) {
    const step = UPGRADES[version];
    if (!step) throw new Error(`No upgrade from map state version ${version}`);
    state = step(state);
    version = versionOf(state);
  }
  const kepler = state.kepler;
  if (!isObject(kepler) || typeof kepler.version !== 'string' || !isObject(kepler.config)) throw new Error('Unrecognised map state: the kepler config is missing');
  return { studioVersion: 1, kepler: kepler as unknown as KeplerSavedConfig };
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
  if (!isObject(m)) return null;
  const { latitude, longitude, zoom, bearing, pitch } = m;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || typeof zoom !== 'number') return null;
  return { latitude, longitude, zoom, ...(typeof bearing === 'number' ? { bearing } : {}), ...(typeof pitch === 'number' ? { pitch } : {}) };
}

export function wrapKeplerConfig(kepler: KeplerSavedConfig): StudioMapState {
  return { studioVersion: STUDIO_STATE_VERSION, kepler };
}
