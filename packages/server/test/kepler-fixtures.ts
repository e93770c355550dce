import type { KeplerFile } from '@studio/schema';

/**
 * kepler.gl export files written in kepler's documented format (KeplerGlSchema.save: `{datasets, config, info}`):
 * a v1 file with point, arc, hexagon and geojson layers, a range and a time filter and a split map, and the
 * same map as kepler.gl 1.x saved it (config v0). Shared by the API test (kepler-files.test.ts) and the
 * browser test (web/e2e/kepler-files.e2e.ts).
 */
const polygon = (x: number, y: number) => ({ type: 'Polygon', coordinates: [[[x, y], [x + 0.01, y], [x + 0.01, y + 0.01], [x, y + 0.01], [x, y]]] });
const TRIPS = {
  id: 'trips-0',
  label: 'Trips',
  color: [143, 47, 191],
  fields: [
    { name: 'trip_id', type: 'string', format: '', analyzerType: 'STRING' },
    { name: 'begintrip_lat', type: 'real', format: '', analyzerType: 'FLOAT' },
    { name: 'begintrip_lng', type: 'real', format: '', analyzerType: 'FLOAT' },
    { name: 'dropoff_lat', type: 'real', format: '', analyzerType: 'FLOAT' },
    { name: 'dropoff_lng', type: 'real', format: '', analyzerType: 'FLOAT' },
    { name: 'fare', type: 'real', format: '', analyzerType: 'FLOAT' },
    { name: 'tpep_pickup_datetime', type: 'timestamp', format: 'YYYY-M-D H:m:s', analyzerType: 'DATETIME' },
  ],
  allData: [
    ['007', 40.7565, -73.9825, 40.7684, -73.9618, 12.5, '2015-01-15 19:05:39'],
    ['008', 40.7451, -73.9902, 40.7213, -73.9874, 7.25, '2015-01-15 19:23:42'],
    ['009', 40.7792, -73.9553, 40.7529, -73.9774, 21, '2015-01-15 20:01:10'],
  ],
};
const ZONES = {
  id: 'zones-0',
  label: 'Zones',
  color: [18, 147, 154],
  fields: [
    { name: '_geojson', type: 'geojson', format: '', analyzerType: 'GEOMETRY' },
    { name: 'zone', type: 'string', format: '', analyzerType: 'STRING' },
    { name: 'score', type: 'integer', format: '', analyzerType: 'INT' },
  ],
  allData: [
    [{ type: 'Feature', geometry: polygon(-73.99, 40.75), properties: { zone: 'A', score: 3 } }, 'A', 3],
    [{ type: 'Feature', geometry: polygon(-73.97, 40.76), properties: { zone: 'B', score: 8 } }, 'B', 8],
  ],
};

const layer = (id: string, type: string, dataId: string, columns: Record<string, string | null>, extra: Record<string, unknown> = {}) => ({
  id,
  type,
  config: { dataId, label: id, color: [30, 150, 190], columns, isVisible: true, visConfig: { opacity: 0.8, ...extra }, hidden: false, textLabel: [] },
  visualChannels: { colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
});

const MAP_STATE = { bearing: 0, dragRotate: false, latitude: 40.76, longitude: -73.97, pitch: 0, zoom: 12, isSplit: true };
const MAP_STYLE = { styleType: 'dark', topLayerGroups: {}, visibleLayerGroups: { label: true, road: true }, threeDBuildingColor: [9.6, 9.6, 9.6], mapStyles: {} };

/** What kepler.gl 3.x exports (KeplerGlSchema.save) for four layers, two filters and a split map. */
export function v1File(): KeplerFile {
  return structuredClone({
    datasets: [
      { version: 'v1', data: TRIPS },
      { version: 'v1', data: ZONES },
    ],
    config: {
      version: 'v1',
      config: {
        visState: {
          filters: [
            { dataId: ['trips-0'], id: 'fare-range', name: ['fare'], type: 'range', value: [5, 15], enlarged: false, plotType: 'histogram', yAxis: null },
            { dataId: ['trips-0'], id: 'pickup-time', name: ['tpep_pickup_datetime'], type: 'timeRange', value: [1421348739000, 1421352070000], enlarged: true, plotType: 'histogram', yAxis: null },
          ],
          layers: [
            layer('pickups', 'point', 'trips-0', { lat: 'begintrip_lat', lng: 'begintrip_lng', altitude: null }, { radius: 10 }),
            layer('rides', 'arc', 'trips-0', { lat0: 'begintrip_lat', lng0: 'begintrip_lng', lat1: 'dropoff_lat', lng1: 'dropoff_lng' }, { thickness: 2 }),
            layer('density', 'hexagon', 'trips-0', { lat: 'begintrip_lat', lng: 'begintrip_lng' }, { worldUnitSize: 1, resolution: 8, coverage: 1 }),
            layer('zones', 'geojson', 'zones-0', { geojson: '_geojson' }, { filled: true, stroked: true, thickness: 0.5 }),
          ],
          interactionConfig: {
            tooltip: { fieldsToShow: { 'trips-0': [{ name: 'trip_id', format: null }, { name: 'fare', format: null }], 'zones-0': [{ name: 'zone', format: null }] }, compareMode: false, compareType: 'absolute', enabled: true },
            brush: { size: 0.5, enabled: false },
            geocoder: { enabled: false },
            coordinate: { enabled: false },
          },
          layerBlending: 'normal',
          splitMaps: [{ layers: { pickups: true, rides: false, density: true, zones: true } }, { layers: { pickups: false, rides: true, density: false, zones: true } }],
          animationConfig: { currentTime: null, speed: 1 },
        },
        mapState: MAP_STATE,
        mapStyle: MAP_STYLE,
      },
    },
    info: { app: 'kepler.gl', created_at: 'Fri Nov 27 2026 06:00:00 GMT+0000', title: 'NYC trips', description: 'Pickups, rides and zones' },
  });
}

/** The same map as kepler.gl 1.x saved it: config v0 (filters name one dataset, tooltips list field names). */
export function v0File(): KeplerFile {
  return structuredClone({
    datasets: [{ version: 'v0', data: { ...TRIPS, fields: TRIPS.fields.map(({ name, type, format }, i) => ({ name, type, format, tableFieldIndex: i + 1 })) } }],
    config: {
      version: 'v0',
      config: {
        visState: {
          filters: [{ dataId: 'trips-0', id: 'fare-range', name: 'fare', type: 'range', value: [5, 15], enlarged: false, plotType: 'histogram', yAxis: null }],
          layers: [
            // v0 layers are flat: dataset, label and colour beside the type, columns with their field index.
            { id: 'pickups', type: 'point', dataId: 'trips-0', label: 'Pickups', color: [23, 184, 190], isVisible: true, columns: { lat: { value: 'begintrip_lat', fieldIdx: 1 }, lng: { value: 'begintrip_lng', fieldIdx: 2 }, altitude: { value: null, fieldIdx: -1 } }, visConfig: { radius: 10, opacity: 0.8 }, colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
            { id: 'rides', type: 'arc', dataId: 'trips-0', label: 'Rides', color: [255, 153, 31], isVisible: true, columns: { lat0: { value: 'begintrip_lat', fieldIdx: 1 }, lng0: { value: 'begintrip_lng', fieldIdx: 2 }, lat1: { value: 'dropoff_lat', fieldIdx: 3 }, lng1: { value: 'dropoff_lng', fieldIdx: 4 } }, visConfig: { thickness: 2, opacity: 0.8 }, colorField: null, colorScale: 'quantile', sizeField: null, sizeScale: 'linear' },
          ],
          interactionConfig: { tooltip: { fieldsToShow: { 'trips-0': ['trip_id', 'fare'] }, enabled: true }, brush: { size: 0.5, enabled: false } },
          layerBlending: 'normal',
          splitMaps: [],
        },
        mapState: { ...MAP_STATE, isSplit: false },
        mapStyle: { styleType: 'dark', topLayerGroups: {}, visibleLayerGroups: { label: true, road: true } },
      },
    },
    info: { app: 'kepler.gl', created_at: 'Mon Jan 07 2019 10:00:00 GMT+0000' },
  });
}
