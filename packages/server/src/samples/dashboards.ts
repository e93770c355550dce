import { DASHBOARD_STATE_VERSION, parseDashboardState, type DashboardState } from '@studio/schema';
import type { SampleRecord } from './records';

export const SAMPLE_DASHBOARD_KEY = 'dashboard:world-cities';
const numbers = { numberFormat: 'compact', decimals: 1 } as const;

/**
 * The sample dashboard over World cities: a KPI, a bar chart and the cities map, with a country dropdown
 * filtering the KPI and the chart. Parsed by the dashboard editor's own parser, so it is a state the
 * editor saves (defaults filled in) and a schema change that breaks it fails at start, not in a browser.
 */
export function sampleDashboards(datasets: Map<string, string>, maps: Map<string, string>, citiesMapKey: string): SampleRecord[] {
  const cities = datasets.get('World cities');
  const mapId = maps.get(citiesMapKey);
  if (!cities || !mapId) return [];
  const state: DashboardState = parseDashboardState({
    version: DASHBOARD_STATE_VERSION,
    parameters: [{ id: 'country', label: 'Country', type: 'DROPDOWN', column: 'country', source: { kind: 'DYNAMIC', datasetId: cities, column: 'country' } }],
    widgets: [
      {
        id: 'people',
        kind: 'kpi',
        title: 'People in cities of 100,000+',
        query: { datasetId: cities, measures: [{ fn: 'sum', column: 'population', label: 'people' }] },
        parameterIds: ['country'],
        options: numbers,
      },
      {
        id: 'largest',
        kind: 'bar',
        title: 'Largest cities',
        query: { datasetId: cities, dimensions: ['name'], measures: [{ fn: 'sum', column: 'population', label: 'population' }], sort: { by: 'population', desc: true }, limit: 15 },
        parameterIds: ['country'],
        options: { ...numbers, xTitle: 'City', yTitle: 'Population' },
      },
      { id: 'where', kind: 'map', title: 'Where they are', mapId, parameterIds: [] },
    ],
    layout: [
      { i: 'people', x: 0, y: 0, w: 4, h: 6 },
      { i: 'largest', x: 4, y: 0, w: 8, h: 10 },
      { i: 'where', x: 0, y: 10, w: 12, h: 12 },
    ],
  });
  return [
    {
      key: SAMPLE_DASHBOARD_KEY,
      type: 'insight',
      name: 'World cities dashboard',
      description: 'People in large cities and the largest of them, for the world or one country picked in the dropdown, beside the map.',
      datasets: [cities],
      state,
    },
  ];
}
