import type { ResourceType } from '@studio/schema';
import { client } from '../app/api';

/** One workspace list (catalog §2): where its records live and how the page talks about them. */
export interface CollectionConfig {
  /** Path segment under /workspace. */
  slug: string;
  /** Navigation label and page title. */
  title: string;
  /** One record, lower case ("map", "saved query"). */
  noun: string;
  /** Several records, lower case. */
  plural: string;
  resourceType: ResourceType;
  api: () => ReturnType<typeof client.collection>;
  /** What the empty "Mine" tab suggests doing. */
  emptyHint: string;
  /** Where a record opens, when it has a page of its own. */
  href?: (id: string) => string;
  /** The "New …" button's target, when records are created elsewhere. */
  newHref?: string;
}

export const COLLECTIONS: CollectionConfig[] = [
  {
    slug: 'maps', title: 'Maps', noun: 'map', plural: 'maps', resourceType: 'map',
    api: () => client.records('maps'),
    emptyHint: 'create one with “New map”, or start from a dataset.',
    href: (id) => `/${id}`, newHref: '/new',
  },
  {
    slug: 'dashboards', title: 'Dashboards', noun: 'dashboard', plural: 'dashboards', resourceType: 'insight',
    api: () => client.records('dashboards'),
    emptyHint: 'create one with “New dashboard” to put charts and maps side by side.',
    href: (id) => `/dashboard/${id}`, newHref: '/dashboard/new',
  },
  {
    slug: 'workbooks', title: 'Workbooks', noun: 'workbook', plural: 'workbooks', resourceType: 'workbook',
    api: () => client.records('workbooks'),
    emptyHint: 'create one with “New workbook” to explore a dataset step by step.',
    href: (id) => `/workbook/${id}`, newHref: '/workbook/new',
  },
  {
    slug: 'datasets', title: 'Datasets', noun: 'dataset', plural: 'datasets', resourceType: 'dataset',
    api: () => client.collection('/v1/datasets'),
    emptyHint: 'upload a file or bring a table in from a connector.',
    href: (id) => `/workspace/datasets/${id}`,
  },
  {
    slug: 'connectors', title: 'Connectors', noun: 'connector', plural: 'connectors', resourceType: 'data-connection',
    api: () => client.collection('/v1/data-connections'),
    emptyHint: 'connect a warehouse (Postgres, Snowflake, BigQuery…) or a storage bucket.',
  },
  {
    slug: 'queries', title: 'Saved queries', noun: 'saved query', plural: 'saved queries', resourceType: 'query-bookmark',
    api: () => client.collection('/v1/data-queries/bookmarks'),
    emptyHint: 'bookmark a query from a connector to run it again later.',
  },
  {
    slug: 'basemaps', title: 'Basemaps', noun: 'basemap', plural: 'basemaps', resourceType: 'map-asset',
    api: () => client.collection('/v1/map-assets', { type: 'map-style' }),
    emptyHint: 'add a map style to use it under your layers.',
  },
  {
    slug: 'colors', title: 'Colors', noun: 'color palette', plural: 'color palettes', resourceType: 'map-asset',
    api: () => client.collection('/v1/map-assets', { type: 'color-palette' }),
    emptyHint: 'save a color palette to reuse it across maps.',
  },
];

export const collectionBySlug = (slug: string) => COLLECTIONS.find((c) => c.slug === slug);
