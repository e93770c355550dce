import { z } from 'zod';
import { Id, IsoDate, Paging } from './common';
import { Visibility } from './permissions';
import { VersionedSaveFields } from './history';

/** Every kind of resource the catalog stores (catalog §3 resource types). */
export const RESOURCE_TYPES = [
  'map',
  'dataset',
  'data-connection',
  'insight',
  'workbook',
  'query-bookmark',
  'query-template',
  'map-asset',
  'project',
  // State collections (analytics-and-admin §7): saved states of insights, maps and workbooks.
  'insight-state',
  'studio-state',
  'workbook-state',
] as const;
export const ResourceType = z.enum(RESOURCE_TYPES);
export type ResourceType = z.infer<typeof ResourceType>;

/**
 * The record collections that share one machinery (analytics-and-admin §7). `/v1/dashboards` and
 * `/v1/insights` are two names for one kind: an insight is a dashboard (catalog: "insights (dashboards)").
 */
export const RECORD_COLLECTIONS = {
  maps: 'map',
  insights: 'insight',
  dashboards: 'insight',
  workbooks: 'workbook',
} as const satisfies Record<string, ResourceType>;
export type RecordCollection = keyof typeof RECORD_COLLECTIONS;

/** How long an edit lock lasts without a renewing load or save. */
export const LOCK_TTL_SECONDS = 300;

export const Lock = z.object({
  ownerId: Id,
  ownerName: z.string(),
  acquiredAt: IsoDate,
  expiresAt: IsoDate,
  /** The browser tab holding it (its `x-studio-tab` header); null when an API client took it. */
  tabId: z.string().nullable(),
});
export type Lock = z.infer<typeof Lock>;

/** The header a browser tab sends its id in: an edit lock is held by one tab (see RecordService.acquireLock). */
export const TAB_HEADER = 'x-studio-tab';

export const Ref = z.object({ id: Id, name: z.string() });
export const TagRef = z.object({ id: Id, name: z.string(), color: z.string() });

export const StudioRecord = z.object({
  id: Id,
  type: ResourceType,
  name: z.string(),
  description: z.string(),
  ownerId: Id,
  owner: z.object({ id: Id, name: z.string(), email: z.string() }),
  organizationId: Id.nullable(),
  visibility: Visibility,
  isSample: z.boolean(),
  importSource: z.string().nullable(),
  latestState: z.unknown().nullable(),
  datasets: z.array(Ref),
  mapAssets: z.object({ mapStyles: z.array(Ref), colorPalettes: z.array(Ref) }),
  tags: z.array(TagRef),
  lock: Lock.nullable(),
  /** Maps, dashboards and workbooks: the latest version (#51), null before the first save of a state. */
  version: z.number().int().nullable().optional(),
  /** The caller's standing on this record, so a client shows only what it may do. */
  access: z.enum(['limited-viewer', 'viewer', 'editor', 'owner', 'admin']),
  thumbnailUrl: z.string().nullable(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type StudioRecord = z.infer<typeof StudioRecord>;

const Name = z.string().trim().min(1, 'Name must not be empty').max(500);
const Description = z.string().max(10_000);

export const RecordCreate = z.object({
  name: Name.default('Untitled'),
  description: Description.default(''),
  importSource: z.string().max(100).optional(),
  latestState: z.unknown().optional(),
  datasets: z.array(Id).max(1024).optional(),
  visibility: Visibility.optional(),
});
export type RecordCreate = z.infer<typeof RecordCreate>;

export const RecordUpdate = z.object({
  name: Name.optional(),
  description: Description.optional(),
  importSource: z.string().max(100).optional(),
  latestState: z.unknown().optional(),
  datasets: z.array(Id).max(1024).optional(),
  /** Owner change: administrators in admin mode only (analytics-and-admin §6). */
  ownerId: Id.optional(),
  ...VersionedSaveFields.shape,
});
export type RecordUpdate = z.infer<typeof RecordUpdate>;

export const RecordQuery = z.object({
  isAdmin: z.string().optional(),
  acquireLock: z.string().optional(),
});

export const ListFilters = z.object({
  search: z.string().max(200).optional(),
  tag: Id.optional(),
  importSource: z.string().max(100).optional(),
  sortBy: z.enum(['name', 'createdAt', 'updatedAt']).default('updatedAt'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  isAdmin: z.string().optional(),
});
/** The query of a record list call (own, organization's, shared, samples): its filters and page. */
export const RecordListQuery = ListFilters.extend(Paging.shape);

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
export const isImageType = (type: string): type is ImageType => (IMAGE_TYPES as readonly string[]).includes(type);
export const ThumbnailRequest = z.object({ contentType: z.enum(IMAGE_TYPES) });
/** The largest thumbnail a record or map asset keeps (the upload is cut off past it). */
export const THUMBNAIL_MAX_BYTES = 10 * 1024 * 1024;

/** The kinds whose records keep a picture, and the collection its `/v1/{collection}/{id}/thumbnail` is read under. */
export const THUMBNAIL_COLLECTIONS: Partial<Record<ResourceType, string>> = { map: 'maps', insight: 'insights', workbook: 'workbooks', dataset: 'datasets', project: 'projects' };

/** A signed upload policy: the client POSTs the file to `url` with `fields` as query parameters. */
export const UploadPolicy = z.object({
  url: z.string(),
  fields: z.object({ policy: z.string(), signature: z.string() }),
  contentType: z.string(),
  expiresAt: IsoDate,
});
export type UploadPolicy = z.infer<typeof UploadPolicy>;

export const LockOwnerBody = z.object({ ownerId: Id });

export const Tag = z.object({
  id: Id,
  name: z.string(),
  color: z.string(),
  organizationId: Id.nullable(),
  ownerId: Id,
  resources: z.array(z.object({ resourceType: ResourceType, resourceId: Id })),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type Tag = z.infer<typeof Tag>;
const Color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Color must be #rrggbb');
export const TagCreate = z.object({
  name: z.string().trim().min(1).max(100),
  color: Color.default('#5b8ff9'),
  resourceId: Id.optional(),
  resourceType: ResourceType.optional(),
});
export const TagUpdate = z.object({ name: z.string().trim().min(1).max(100).optional(), color: Color.optional() });

