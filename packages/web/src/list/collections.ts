import type { ComponentType } from 'react';
import type { ProjectResource, ResourceType, ShareBody, StudioRecord } from '@studio/schema';
import type { PermissionGrant } from '@studio/client';
import { client } from '../app/api';
import type { Column } from '../app/ui';
import { ImportKeplerButton } from '../map/kepler-files/ImportKeplerButton';
import { DATASET_COLUMNS, UploadDatasetButton, datasetHref } from '../datasets/listExtras';

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
  /**
   * How sharing is written: record collections have POST {id}/share (with visibility); the other
   * kinds are shared through the permissions API, where only administrators set visibility.
   */
  share: 'record' | 'permissions';
  /** Whether the server offers sample records of this kind. */
  samples: boolean;
  /** Whether records of this kind can be duplicated (POST {id}/clone): a copy owned by the caller. */
  clone?: boolean;
  /** Columns of this kind after the name (datasets: status and row count). */
  columns?: Column<StudioRecord>[];
  /** An action beside the page title (datasets: upload); `onChanged` reloads the list. */
  HeaderAction?: ComponentType<{ onChanged: () => void }>;
  /** What a project calls records of this kind, when a project can hold them ("Add to project"). */
  projectKind?: ProjectResource['resource']['type'];
}

/** Shares one record the way its collection does; `visibility` needs the record route or an administrator. */
export async function shareRecord(c: CollectionConfig, id: string, body: Partial<ShareBody>, isAdmin: boolean): Promise<void> {
  if (c.share === 'record') {
    await c.api().share(id, body);
    return;
  }
  const grant = { resourceType: c.resourceType, resourceId: id };
  const items: PermissionGrant[] = [
    ...(body.users ?? []).map((u) => ({ ...grant, role: u.role, userId: u.userId })),
    ...(body.organizations ?? []).map((o) => ({ ...grant, role: o.role, organizationId: o.organizationId })),
    ...(body.emails ?? []).map((e) => ({ ...grant, role: e.role, email: e.email })),
  ];
  if (items.length) await client.permissions.grantMany(items);
  if (body.visibility && isAdmin) await client.admin.setVisibility(c.resourceType, id, body.visibility);
}

/** Whether the share dialog can offer visibility for this collection to this user. */
export const canSetVisibility = (c: CollectionConfig, isAdmin: boolean) => c.share === 'record' || isAdmin;

export const COLLECTIONS: CollectionConfig[] = [
  {
    slug: 'maps', projectKind: 'map', title: 'Maps', noun: 'map', plural: 'maps', resourceType: 'map',
    api: () => client.records('maps'),
    emptyHint: 'create one with “New map”, or start from a dataset.',
    href: (id) => `/${id}`, newHref: '/new', share: 'record', samples: true, clone: true,
    HeaderAction: ImportKeplerButton,
  },
  {
    slug: 'dashboards', projectKind: 'insight', title: 'Dashboards', noun: 'dashboard', plural: 'dashboards', resourceType: 'insight',
    api: () => client.records('dashboards'),
    emptyHint: 'create one with “New dashboard” to put charts and maps side by side.',
    href: (id) => `/dashboard/${id}`, newHref: '/dashboard/new', share: 'record', samples: true, clone: true,
  },
  {
    slug: 'workbooks', projectKind: 'workbook', title: 'Workbooks', noun: 'workbook', plural: 'workbooks', resourceType: 'workbook',
    api: () => client.records('workbooks'),
    emptyHint: 'create one with “New workbook” to analyze data step by step, or start from a dataset.',
    href: (id) => `/workbook/${id}`, newHref: '/workbook/new', share: 'record', samples: true, clone: true,
  },
  {
    slug: 'projects', title: 'Projects', noun: 'project', plural: 'projects', resourceType: 'project',
    api: () => client.projects,
    emptyHint: 'create one with “New project” to gather maps, dashboards, workbooks and data in folders.',
    href: (id) => `/workspace/projects/${id}`, newHref: '/workspace/projects/new',
    share: 'permissions', samples: false,
  },
  {
    slug: 'datasets', projectKind: 'dataset', title: 'Datasets', noun: 'dataset', plural: 'datasets', resourceType: 'dataset',
    api: () => client.records('datasets'),
    emptyHint: 'upload a file with “Upload dataset”, or bring a table in from a connector.',
    href: datasetHref, share: 'permissions', samples: true, clone: true,
    columns: DATASET_COLUMNS, HeaderAction: UploadDatasetButton,
  },
  {
    slug: 'connectors', title: 'Connectors', noun: 'connector', plural: 'connectors', resourceType: 'data-connection',
    api: () => client.collection('/v1/data-connections'),
    emptyHint: 'connect a warehouse (PostgreSQL or Amazon Redshift) with “New connector”.',
    href: (id) => `/workspace/connectors/${id}`, newHref: '/workspace/connectors/new',
    share: 'permissions', samples: false,
  },
  {
    slug: 'queries', title: 'Saved queries', noun: 'saved query', plural: 'saved queries', resourceType: 'query-bookmark',
    api: () => client.collection('/v1/data-queries/bookmarks'),
    emptyHint: 'write one over your datasets with “New saved query”, or save one from a connector’s SQL workspace (“Save query”).',
    href: (id) => `/workspace/queries/${id}`, newHref: '/workspace/queries/new',
    share: 'permissions', samples: false,
  },
  {
    slug: 'basemaps', projectKind: 'map-style', title: 'Basemaps', noun: 'basemap', plural: 'basemaps', resourceType: 'map-asset',
    api: () => client.collection('/v1/map-assets', { query: { type: 'map-style' }, body: { assetType: 'map-style' } }),
    emptyHint: 'add a map style (a MapLibre style file) with “New basemap” to use it under your layers.',
    href: (id) => `/workspace/basemaps/${id}`, newHref: '/workspace/basemaps/new',
    share: 'permissions', samples: false,
  },
  {
    slug: 'colors', projectKind: 'color-palette', title: 'Colors', noun: 'color palette', plural: 'color palettes', resourceType: 'map-asset',
    api: () => client.collection('/v1/map-assets', { query: { type: 'color-palette' }, body: { assetType: 'color-palette' } }),
    emptyHint: 'make a color palette with “New color palette” to reuse it across maps.',
    href: (id) => `/workspace/colors/${id}`, newHref: '/workspace/colors/new',
    share: 'permissions', samples: false,
  },
];

export const collectionBySlug = (slug: string) => COLLECTIONS.find((c) => c.slug === slug);
