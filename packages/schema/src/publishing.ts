import { z } from 'zod';
import { Id, IsoDate } from './common';
import { Visibility } from './permissions';

/** What {x} of POST /v1/maps/{id}/publish/{x} may be: `map` publishes the map's saved state. */
export const PUBLISH_KINDS = ['map'] as const;

/** The header a published map's password grant travels in (POST …/published-map/password answers it). */
export const MAP_GRANT_HEADER = 'x-map-grant';
/** The header a published map's password may travel in instead of a grant. */
export const MAP_PASSWORD_HEADER = 'x-map-password';

export const FeaturedMap = z.object({
  id: Id,
  mapId: Id,
  title: z.string(),
  description: z.string(),
  highlighted: z.boolean(),
  position: z.number(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type FeaturedMap = z.infer<typeof FeaturedMap>;

/** A publication of a map, as GET /v1/maps/published and friends answer it. */
export const PublishedMapInfo = z.object({
  id: Id,
  mapId: Id,
  kind: z.string(),
  name: z.string(),
  description: z.string(),
  publishedAt: IsoDate,
  passwordProtected: z.boolean(),
  datasetIds: z.array(Id),
  views: z.number(),
  featured: FeaturedMap.nullable(),
});
export type PublishedMapInfo = z.infer<typeof PublishedMapInfo>;

/** A publication as administrators list it (ADM-005): with the map's owner and visibility, to act on it. */
export const AdminPublishedMap = PublishedMapInfo.extend({
  ownerId: Id,
  ownerEmail: z.string(),
  visibility: Visibility,
});
export type AdminPublishedMap = z.infer<typeof AdminPublishedMap>;

/** The published map itself: the snapshotted saved state. */
export const PublishedMap = PublishedMapInfo.extend({ latestState: z.unknown() });
export type PublishedMap = z.infer<typeof PublishedMap>;

/** What an accepted password hands back: a grant that later calls send in a header instead of the password. */
export const PublicationGrant = z.object({ token: z.string(), expiresAt: IsoDate });
export type PublicationGrant = z.infer<typeof PublicationGrant>;
