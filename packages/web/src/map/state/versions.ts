/**
 * The saved map state's versioning lives in @studio/schema (map-state.ts), shared with the server, which
 * parses map states with the same rule; the map builder's modules keep importing it from here.
 */
export {
  STUDIO_STATE_VERSION,
  MAP_UPGRADES as UPGRADES,
  upgradeMapState,
  parseMapState,
  savedView,
  wrapKeplerConfig,
  type KeplerSavedConfig,
  type StudioMapState,
  type StudioMapStateV1,
  type DataDraw,
  type TimeEnds,
  type SizeLegends,
  type StudioMapExtras,
  type MapViewState,
} from '@studio/schema';
