import { describe, expect, it } from 'vitest';
import { KeplerGlSchema } from '@kepler.gl/schemas';
import { STUDIO_STATE_VERSION, savedView, upgradeMapState, wrapKeplerConfig, type KeplerSavedConfig } from '../src/map/state/versions';
import { boundsOf } from '../src/map/datasets';

// A kepler config as KeplerGlSchema.getConfigToSave writes it for one point layer.
const KEPLER: KeplerSavedConfig = {
  version: 'v1',
  config: {
    visState: {
      filters: [],
      layers: [
        {
          id: 'pts',
          type: 'point',
          config: {
            dataId: 'ds-1',
            label: 'Points',
            color: [230, 20, 20],
            highlightColor: [252, 242, 26, 255],
            columns: { lat: 'lat', lng: 'lng' },
            isVisible: true,
            visConfig: { radius: 10, opacity: 0.8, filled: true },
            hidden: false,
            textLabel: [],
          },
          visualChannels: { colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
        },
      ],
      interactionConfig: {},
      layerBlending: 'normal',
      splitMaps: [],
      animationConfig: { currentTime: null, speed: 1 },
    },
    mapState: { bearing: 0, dragRotate: false, latitude: 37.7749, longitude: -122.4194, pitch: 0, zoom: 9, isSplit: false },
    mapStyle: { styleType: 'blank', topLayerGroups: {}, visibleLayerGroups: {}, threeDBuildingColor: [9, 17, 31], mapStyles: {} },
  },
};

describe('saved map state', () => {
  it.each([
    ['a bare kepler config (version 0)', KEPLER],
    ['a studio state', wrapKeplerConfig(KEPLER)],
  ])('upgrades %s to the current version without touching kepler’s part', (_label, stored) => {
    expect(upgradeMapState(stored)).toEqual({ studioVersion: STUDIO_STATE_VERSION, kepler: KEPLER });
  });

  it.each([
    ['a newer studio', { studioVersion: 99, kepler: KEPLER }, /newer studio/],
    ['no kepler part', { studioVersion: 1 }, /kepler config is missing/],
    ['not an object', 'x', /not an object/],
  ])('refuses %s', (_label, stored, message) => {
    expect(() => upgradeMapState(stored)).toThrow(message);
  });

  it('round-trips through kepler’s loader: layer, columns, color and view come back', () => {
    const state = upgradeMapState(JSON.parse(JSON.stringify(wrapKeplerConfig(KEPLER))))!;
    const parsed = KeplerGlSchema.parseSavedConfig(state.kepler as Parameters<typeof KeplerGlSchema.parseSavedConfig>[0]) as unknown as {
      visState: { layers: { id: string; type: string; config: { dataId: string; color: number[]; columns: Record<string, string> } }[] };
      mapState: { latitude: number; longitude: number; zoom: number };
      mapStyle: { styleType: string };
    };
    expect(parsed.visState.layers).toMatchObject([{ id: 'pts', type: 'point', config: { dataId: 'ds-1', color: [230, 20, 20], columns: { lat: 'lat', lng: 'lng' } } }]);
    expect(parsed.mapState).toMatchObject({ latitude: 37.7749, longitude: -122.4194, zoom: 9 });
    expect(parsed.mapStyle.styleType).toBe('blank');
  });

  it.each([
    ['a saved view', KEPLER, { latitude: 37.7749, longitude: -122.4194, zoom: 9, bearing: 0, pitch: 0 }],
    ['no mapState', { version: 'v1', config: {} }, null],
    ['a view without zoom', { version: 'v1', config: { mapState: { latitude: 1, longitude: 2 } } }, null],
    ['no config', null, null],
  ])('reads the view a map opens on from %s', (_label, kepler, view) => {
    expect(savedView(kepler as KeplerSavedConfig | null)).toEqual(view);
  });
});

describe('a catalog dataset’s bounds, for fitting the view before its data arrives', () => {
  const meta = (detected: Record<string, string>, stats: Record<string, { min?: number | string; max?: number | string }>) => ({
    metadata: { detected, columns: Object.entries(stats).map(([name, s]) => ({ name, type: 'DOUBLE', stats: { nullCount: 0, ...s } })) },
  }) as unknown as Parameters<typeof boundsOf>[0];
  it.each([
    ['lat/lng columns', meta({ latitude: 'lat', longitude: 'lng' }, { lat: { min: 37.6, max: 37.9 }, lng: { min: -122.6, max: -122.3 } }), [-122.6, 37.6, -122.3, 37.9]],
    ['one place, padded', meta({ latitude: 'lat', longitude: 'lng' }, { lat: { min: 10, max: 10 }, lng: { min: 20, max: 20 } }), [19.995, 9.995, 20.005, 10.005]],
    ['no detected columns', meta({}, { lat: { min: 1, max: 2 } }), undefined],
    ['statistics that are text', meta({ latitude: 'lat', longitude: 'lng' }, { lat: { min: 'a', max: 'b' }, lng: { min: 1, max: 2 } }), undefined],
    ['latitudes beyond the poles', meta({ latitude: 'lat', longitude: 'lng' }, { lat: { min: -100, max: 10 }, lng: { min: 1, max: 2 } }), undefined],
  ])('%s', (_label, m, bounds) => {
    expect(boundsOf(m)).toEqual(bounds);
  });
});
