import { sql } from 'kysely';
import type { Db } from '../store/db';
import { THUMBNAIL_COLLECTIONS, type Access, type Lock, type ResourceType, type StudioRecord } from '@studio/schema';

/**
 * A record as the catalog query answers it (owner, lock holder, links and tags joined in) and as the wire carries
 * it: RecordService's lists and single reads both end here.
 */
const iso = (d: Date | string) => new Date(d).toISOString();

export interface LinkJson {
  id: string;
  name: string;
  type: string;
  assetType: string | null;
}
export interface TagJson {
  id: string;
  name: string;
  color: string;
}
interface WireRow {
  id: string;
  type: string;
  name: string;
  description: string;
  owner_id: string;
  organization_id: string | null;
  visibility: 'private' | 'public_read';
  is_sample: boolean;
  import_source: string | null;
  lock_owner_id: string | null;
  lock_acquired_at: Date | null;
  lock_expires_at: Date | null;
  lock_tab_id: string | null;
  thumbnail_key: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  owner_name: string;
  owner_email: string;
  lock_owner_name: string | null;
  latest_state: unknown;
  links: LinkJson[];
  tag_list: TagJson[];
}

/** One record on the wire; `access` is the caller's standing. */
export function wireOf(w: WireRow, access: Access): StudioRecord {
  const live = w.lock_owner_id && w.lock_expires_at && new Date(w.lock_expires_at).getTime() > Date.now();
  const lock: Lock | null = live
    ? { ownerId: w.lock_owner_id!, ownerName: w.lock_owner_name ?? '', acquiredAt: iso(w.lock_acquired_at!), expiresAt: iso(w.lock_expires_at!), tabId: w.lock_tab_id ?? null }
    : null;
  const ref = (l: LinkJson) => ({ id: l.id, name: l.name });
  return {
    id: w.id,
    type: w.type as ResourceType,
    name: w.name,
    description: w.description,
    ownerId: w.owner_id,
    owner: { id: w.owner_id, name: w.owner_name, email: w.owner_email },
    organizationId: w.organization_id,
    visibility: w.visibility,
    isSample: w.is_sample,
    importSource: w.import_source,
    latestState: w.latest_state ?? null,
    datasets: w.links.filter((l) => l.type === 'dataset').map(ref),
    mapAssets: {
      mapStyles: w.links.filter((l) => l.type === 'map-asset' && l.assetType === 'map-style').map(ref),
      colorPalettes: w.links.filter((l) => l.type === 'map-asset' && l.assetType === 'color-palette').map(ref),
    },
    tags: w.tag_list,
    lock,
    // Samples read as their viewer's, whoever asks (sampleAccess): the editors open them read-only.
    access: w.is_sample ? 'viewer' : access === 'none' ? 'limited-viewer' : access,
    thumbnailUrl: w.thumbnail_key ? `/v1/${THUMBNAIL_COLLECTIONS[w.type as ResourceType] ?? 'maps'}/${w.id}/thumbnail?v=${new Date(w.updated_at).getTime()}` : null,
    createdAt: iso(w.created_at),
    updatedAt: iso(w.updated_at),
  };
}

/**
 * Links (datasets, map assets) and tags of a page of records, in one indexed query. Aggregating
 * them as JSON per row inside the list query cost PostgreSQL more than the list itself.
 */
export async function withLinksAndTags<T extends { id: string }>(db: Db, rows: T[]): Promise<(T & { links: LinkJson[]; tag_list: TagJson[] })[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const extras = await db
    .selectFrom('resource_links as rl')
    .innerJoin('resources as l', 'l.id', 'rl.linked_id')
    .select(['rl.resource_id', sql<string>`'link'`.as('kind'), 'l.id', 'l.name', 'l.type as detail', sql<string | null>`l.attrs->>'assetType'`.as('asset_type')])
    .where('rl.resource_id', 'in', ids)
    .unionAll((eb) =>
      eb
        .selectFrom('tag_links as tl')
        .innerJoin('tags as t', 't.id', 'tl.tag_id')
        .select(['tl.resource_id', sql<string>`'tag'`.as('kind'), 't.id', 't.name', 't.color as detail', sql<string | null>`null`.as('asset_type')])
        .where('tl.resource_id', 'in', ids),
    )
    .execute();
  return rows.map((row) => {
    const own = extras.filter((e) => e.resource_id === row.id);
    return {
      ...row,
      links: own.filter((e) => e.kind === 'link').map((e) => ({ id: e.id, name: e.name, type: e.detail, assetType: e.asset_type })),
      tag_list: own.filter((e) => e.kind === 'tag').map((e) => ({ id: e.id, name: e.name, color: e.detail })).sort((a, b) => a.name.localeCompare(b.name)),
    };
  });
}
