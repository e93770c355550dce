import { applyMiddleware, combineReducers, createStore, type Middleware, type Store } from 'redux';
import { INITIAL_UI_STATE, enhanceReduxMiddleware, keplerGlReducer } from '@kepler.gl/reducers';
import { initApplicationConfig } from '@kepler.gl/utils';
import type { MapLook } from '../basemaps/catalog';
import type { MapViewState } from '../state/versions';
import { STUDIO_LAYER_CLASSES } from './layer-classes';
import { installTimeSpans } from '../time-span/gpu-span';

/** The kepler instance id inside the store: state.keplerGl[MAP_ID]. */
export const MAP_ID = 'map';

/** Where the map opens when it has no data (catalog: a default view near San Francisco). */
export const DEFAULT_VIEW = { latitude: 37.7749, longitude: -122.4194, zoom: 9 };

/**
 * Local blank styles (a background layer, no sources): the fallback when the studio's basemaps
 * (basemaps/catalog.ts, tiles served by the studio) cannot be loaded, and `blank-dark` for maps saved
 * with it. No basemap is ever fetched from another host.
 */
export const BLANK_STYLE_ID = 'blank';
export const LOCAL_MAP_STYLES = {
  [BLANK_STYLE_ID]: {
    id: BLANK_STYLE_ID,
    label: 'Blank',
    url: '',
    icon: '',
    layerGroups: [],
    style: { version: 8, name: 'Blank', sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#f4f3ef' } }] },
  },
  'blank-dark': {
    id: 'blank-dark',
    label: 'Blank dark',
    url: '',
    icon: '',
    layerGroups: [],
    style: { version: 8, name: 'Blank dark', sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#1b1d22' } }] },
  },
};

let configured = false;
/**
 * kepler's icon layer fetches `${cdnUrl}/icons/svg-icons.json`; the app serves that file itself
 * (public/kepler/icons), so no request leaves the studio's host.
 */
export function configureKepler(): void {
  if (configured) return;
  configured = true;
  initApplicationConfig({ cdnUrl: `${window.location.origin}/kepler` });
  // Time filters with an end field: features drawn while their interval overlaps the playback window.
  installTimeSpans();
}

/**
 * A read-only map's legend shows the labels its maker wrote (a colour range's `colorLegends`, saved with the layer)
 * but offers no editing of them: kepler makes each legend row an input unless `mapLegend.disableEdit`.
 */
const READ_ONLY_MAP_CONTROLS = { ...INITIAL_UI_STATE.mapControls, mapLegend: { ...INITIAL_UI_STATE.mapControls.mapLegend!, disableEdit: true } };

/**
 * One store per map view: opening another map never sees the previous map's layers. `view`: a saved
 * map's view, so the basemap starts there and the saved config's view, applied with the data, changes
 * nothing (a view change after the data is drawn would draw all of it again).
 */
export function createMapStore(opts: { readOnly: boolean; look?: MapLook | null; view?: MapViewState | null; middleware?: Middleware[] }): Store {
  const mapStyles = { ...LOCAL_MAP_STYLES, ...opts.look?.mapStyles };
  configureKepler();
  const reducer = combineReducers({
    keplerGl: keplerGlReducer.initialState({
      mapState: opts.view ?? DEFAULT_VIEW,
      mapStyle: { styleType: opts.look?.styleType || BLANK_STYLE_ID, mapStyles, mapStylesReplaceDefault: true },
      uiState: { readOnly: opts.readOnly, currentModal: null, activeSidePanel: opts.readOnly ? null : 'layer', ...(opts.readOnly && { mapControls: READ_ONLY_MAP_CONTROLS }) },
      // The vector tile layer whose tile requests stop when their tiles leave the view (layer-classes.ts).
      visState: { layerClasses: STUDIO_LAYER_CLASSES },
    }),
  });
  return createStore(reducer, {}, applyMiddleware(...enhanceReduxMiddleware(opts.middleware ?? [])));
}
