import fs from 'node:fs/promises';
import { EARTHQUAKES_FILE, PLACES_SAMPLE } from './datasets';
import type { SampleRecord } from './records';

/**
 * The sample maps' saved states, in the shape the map builder saves (packages/web/src/map/state/versions.ts:
 * `{studioVersion: 1, kepler: <kepler's saved config v1>}`). kepler's own parseSavedConfig fills in what a
 * layer or filter leaves out, as it does for a map imported from a kepler.gl file, so only what the sample
 * shows is spelled out. dataIds are the datasets' ids, as the builder keeps them.
 */
export const MAP_STATE_VERSION = 1;

type Channel = { name: string; type: 'real' | 'integer' };
const YELLOW_RED = { name: 'Global Warming', type: 'sequential', category: 'Uber', colors: ['#FFC300', '#F1920E', '#E3611C', '#C70039', '#900C3F', '#5A1846'] };

const mapState = (kepler: { layers: unknown[]; filters?: unknown[]; view: { latitude: number; longitude: number; zoom: number }; basemap: string }) => ({
  studioVersion: MAP_STATE_VERSION,
  kepler: {
    version: 'v1',
    config: {
      visState: { layers: kepler.layers, filters: kepler.filters ?? [] },
      mapState: { ...kepler.view, bearing: 0, pitch: 0 },
      mapStyle: { styleType: kepler.basemap },
    },
  },
});

/** The week the earthquakes span, for the time filter's opening range (the whole week). */
async function earthquakeWeek(): Promise<[number, number]> {
  const fc = JSON.parse(await fs.readFile(EARTHQUAKES_FILE(), 'utf8')) as { features: { properties: { time?: unknown } }[] };
  const times = fc.features.map((f) => f.properties.time).filter((t): t is number => typeof t === 'number');
  return [Math.min(...times), Math.max(...times)];
}

export const SAMPLE_MAP_KEYS = { earthquakes: 'map:earthquakes', cities: 'map:world-cities', places: 'map:foot-traffic-hexagons' } as const;

/** The sample maps over the sample datasets that are there (by name); one whose dataset is missing waits for a later start. */
export async function sampleMaps(datasets: Map<string, string>): Promise<SampleRecord[]> {
  const out: SampleRecord[] = [];
  const quakes = datasets.get('Earthquakes (one week)');
  if (quakes) {
    const mag: Channel = { name: 'mag', type: 'real' };
    out.push({
      key: SAMPLE_MAP_KEYS.earthquakes,
      type: 'map',
      name: 'Earthquakes of one week',
      description: 'A week of earthquakes worldwide, sized and coloured by magnitude, on the basemap with place names; the time filter plays the week.',
      datasets: [quakes],
      state: mapState({
        basemap: 'labelled',
        view: { latitude: 20, longitude: -150, zoom: 1.6 },
        layers: [
          {
            id: 'sample-earthquakes',
            type: 'geojson',
            config: {
              dataId: quakes,
              label: 'Earthquakes by magnitude',
              columns: { geojson: '_geojson' },
              isVisible: true,
              visConfig: { opacity: 0.8, filled: true, stroked: false, radius: 6, radiusRange: [1, 30], colorRange: YELLOW_RED },
            },
            visualChannels: { colorField: mag, colorScale: 'quantize', radiusField: mag, radiusScale: 'sqrt' },
          },
        ],
        filters: [{ dataId: [quakes], id: 'sample-earthquakes-time', name: ['time'], type: 'timeRange', value: await earthquakeWeek(), enlarged: true, plotType: 'histogram', animationWindow: 'free' }],
      }),
    });
  }
  const cities = datasets.get('World cities');
  if (cities) {
    out.push({
      key: SAMPLE_MAP_KEYS.cities,
      type: 'map',
      name: 'World cities by population',
      description: 'Cities of 100,000 people or more, each circle sized by its population (GeoNames).',
      datasets: [cities],
      state: mapState({
        basemap: 'light',
        view: { latitude: 25, longitude: 10, zoom: 1.4 },
        layers: [
          {
            id: 'sample-cities',
            type: 'point',
            config: {
              dataId: cities,
              label: 'Cities by population',
              color: [18, 92, 175],
              columns: { lat: 'latitude', lng: 'longitude', altitude: null },
              isVisible: true,
              visConfig: { opacity: 0.6, filled: true, radius: 8, radiusRange: [1, 28] },
            },
            visualChannels: { sizeField: { name: 'population', type: 'integer' }, sizeScale: 'sqrt' },
          },
        ],
      }),
    });
  }
  const places = datasets.get(PLACES_SAMPLE);
  if (places) {
    out.push({
      key: SAMPLE_MAP_KEYS.places,
      type: 'map',
      name: 'Foot-traffic places as hexagons',
      description: 'The foot-traffic sample’s places counted in hexagons of 25 km across the United States.',
      datasets: [places],
      state: mapState({
        basemap: 'light',
        view: { latitude: 38.5, longitude: -96, zoom: 3.3 },
        layers: [
          {
            id: 'sample-places',
            type: 'hexagon',
            config: {
              dataId: places,
              label: 'Places per hexagon',
              columns: { lat: 'latitude', lng: 'longitude' },
              isVisible: true,
              visConfig: { opacity: 0.85, worldUnitSize: 25, coverage: 0.95, colorRange: YELLOW_RED, enable3d: false },
            },
          },
        ],
      }),
    });
  }
  return out;
}
