import type { SearchKind } from '@studio/schema';

/** Where a record of each kind opens in the studio, and what it is called: shared by projects and the search. */
export const RECORD_KINDS: Record<SearchKind, { label: string; plural: string; href: (id: string) => string }> = {
  map: { label: 'Map', plural: 'Maps', href: (id) => `/${id}` },
  insight: { label: 'Dashboard', plural: 'Dashboards', href: (id) => `/dashboard/${id}` },
  workbook: { label: 'Workbook', plural: 'Workbooks', href: (id) => `/workbook/${id}` },
  project: { label: 'Project', plural: 'Projects', href: (id) => `/workspace/projects/${id}` },
  dataset: { label: 'Dataset', plural: 'Datasets', href: (id) => `/workspace/datasets/${id}` },
  'data-connection': { label: 'Connector', plural: 'Connectors', href: (id) => `/workspace/connectors/${id}` },
  'query-bookmark': { label: 'Saved query', plural: 'Saved queries', href: (id) => `/workspace/queries/${id}` },
  'map-style': { label: 'Basemap', plural: 'Basemaps', href: (id) => `/workspace/basemaps/${id}` },
  'color-palette': { label: 'Color palette', plural: 'Color palettes', href: (id) => `/workspace/colors/${id}` },
};
