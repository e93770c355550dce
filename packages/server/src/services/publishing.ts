import { randomUUID } from 'node:crypto';
import type { ColumnType, Generated, Kysely } from 'kysely';
import { PUBLISH_KINDS, StudioError, notFound, type FeaturedMap, type PublishedMap, type PublishedMapInfo, type UploadOptions, type AdminPublishedMap, type Visibility } from '@studio/schema';
import type { Db } from '../store/db';
import type { ResourceRow } from './records';
import { hashPassword, verifyPassword } from '../auth/passwords';

export { MAP_GRANT_HEADER, MAP_PASSWORD_HEADER } from '@studio/schema';
import type { FailureThrottle, MapGrants } from './rate-limits';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** Tables of migration 003 (published maps); kept here so the shared table file stays untouched. */
export interface PublishedMapsTable {
  map_id: string;
  kind: Generated<string>;
  name: string;
  description: Generated<string>;
  latest_state: ColumnType<unknown, string | null | undefined, string | null>;
  dataset_ids: ColumnType<string[], string | undefined, string>;
  password_hash: Generated<string | null>;
  published_by: string | null;
  published_at: Timestamp;
  views: Generated<number>;
}

export interface FeaturedMapsTable {
  id: string;
  map_id: string;
  title: Generated<string>;
  description: Generated<string>;
  highlighted: Generated<boolean>;
  position: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

// A type alias, not an interface: withTables wants an index-signature-compatible shape.
type PublishingTables = {
  published_maps: PublishedMapsTable;
  featured_maps: FeaturedMapsTable;
};

/** `details` of the 401/403 answers about a publication's password, for the app's password form. */
export const PASSWORD_REQUIRED = 'passwordRequired';


/** How a reader of a protected publication gets in. */
export interface MapKey {
  /** The reader may read the map itself: no password is asked. */
  canBypass: boolean;
  password?: string;
  /** A grant from an earlier verified password (MapGrants): no scrypt, no throttle. */
  grant?: string;
  /** The reader's address, for the wrong-password back-off. */
  address: string;
}

export { PUBLISH_KINDS };
export type { PublishedMapInfo, PublishedMap, FeaturedMap };

type PublishedRow = { map_id: string; kind: string; name: string; description: string; latest_state: unknown; dataset_ids: string[]; password_hash: string | null; published_at: Date; views: number };
type FeaturedRow = { id: string; map_id: string; title: string; description: string; highlighted: boolean; position: number; created_at: Date; updated_at: Date };

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : new Date(d).toISOString());
const ids = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? (JSON.parse(v) as string[]) : []);

function featuredWire(f: FeaturedRow): FeaturedMap {
  return { id: f.id, mapId: f.map_id, title: f.title, description: f.description, highlighted: f.highlighted, position: Number(f.position), createdAt: iso(f.created_at), updatedAt: iso(f.updated_at) };
}

function infoWire(r: PublishedRow, featured: FeaturedRow | undefined): PublishedMapInfo {
  return {
    id: r.map_id,
    mapId: r.map_id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    publishedAt: iso(r.published_at),
    passwordProtected: r.password_hash !== null,
    datasetIds: ids(r.dataset_ids),
    views: Number(r.views),
    featured: featured ? featuredWire(featured) : null,
  };
}

/** Publishing of maps: snapshots, passwords, featured maps (catalog §7 Maps). */
export class PublishingService {
  private readonly db: Kysely<PublishingTables>;
  constructor(
    private readonly catalog: Db,
    /** Wrong passwords back off per (map, address) and per map; a right one yields a grant. */
    private readonly unlocking: { mapPassword: FailureThrottle; grants: MapGrants },
  ) {
    this.db = catalog.withTables<PublishingTables>() as unknown as Kysely<PublishingTables>;
  }

  /**
   * Snapshots the map's saved state and datasets; publishing again replaces the snapshot. The options are
   * uploadOptions' (catalog §7): `title` and `description` name the publication (the map's own by default).
   */
  async publish(row: ResourceRow, kind: string, publishedBy: string, options: Pick<UploadOptions, 'password' | 'title' | 'description'> = {}): Promise<PublishedMapInfo> {
    const { password } = options;
    if (!(PUBLISH_KINDS as readonly string[]).includes(kind)) throw new StudioError(422, `Unknown publication kind: ${kind}`, `One of: ${PUBLISH_KINDS.join(', ')}`);
    if (row.latest_state === null || row.latest_state === undefined) throw new StudioError(422, 'Save the map before publishing it');
    const links = await this.catalog
      .selectFrom('resource_links as l')
      .innerJoin('resources as d', 'd.id', 'l.linked_id')
      .select('d.id')
      .where('l.resource_id', '=', row.id)
      .where('d.type', '=', 'dataset')
      .execute();
    const previous = await this.row(row.id);
    // undefined keeps the previous password; null or '' removes it.
    const passwordHash = password === undefined ? (previous?.password_hash ?? null) : password ? await hashPassword(password) : null;
    const values = {
      kind,
      name: options.title?.trim() || row.name,
      description: options.description ?? row.description,
      latest_state: JSON.stringify(row.latest_state),
      dataset_ids: JSON.stringify(links.map((l) => l.id)),
      password_hash: passwordHash,
      published_by: publishedBy,
      published_at: new Date(),
    };
    await this.db
      .insertInto('published_maps')
      .values({ map_id: row.id, ...values })
      .onConflict((oc) => oc.column('map_id').doUpdateSet(values))
      .execute();
    return (await this.info(row.id))!;
  }

  async unpublish(mapId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('published_maps').where('map_id', '=', mapId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  private row(mapId: string): Promise<PublishedRow | undefined> {
    return this.db.selectFrom('published_maps').selectAll().where('map_id', '=', mapId).executeTakeFirst() as Promise<PublishedRow | undefined>;
  }

  async info(mapId: string): Promise<PublishedMapInfo | undefined> {
    const [item] = await this.infos([mapId]);
    return item;
  }

  /** Publications of the given maps, in no particular order; unknown ids are left out. */
  async infos(mapIds: string[]): Promise<PublishedMapInfo[]> {
    if (mapIds.length === 0) return [];
    const rows = (await this.db.selectFrom('published_maps').selectAll().where('map_id', 'in', mapIds).orderBy('published_at', 'desc').execute()) as PublishedRow[];
    return this.withFeatured(rows);
  }

  private async withFeatured(rows: PublishedRow[]): Promise<PublishedMapInfo[]> {
    if (rows.length === 0) return [];
    const featured = (await this.db.selectFrom('featured_maps').selectAll().where('map_id', 'in', rows.map((r) => r.map_id)).execute()) as FeaturedRow[];
    const byMap = new Map(featured.map((f) => [f.map_id, f]));
    return rows.map((r) => infoWire(r, byMap.get(r.map_id)));
  }

  /** Every publication, for administrators: most viewed (default) or newest first, paged, with each map's owner and visibility. */
  async all(opts: { count: number; offset: number; sortBy: 'views' | 'date' }): Promise<AdminPublishedMap[]> {
    const rows = (await this.db
      .selectFrom('published_maps')
      .selectAll()
      .orderBy(opts.sortBy === 'views' ? 'views' : 'published_at', 'desc')
      .orderBy('map_id')
      .offset(opts.offset)
      .limit(opts.count)
      .execute()) as PublishedRow[];
    const infos = await this.withFeatured(rows);
    if (infos.length === 0) return [];
    const maps = await this.catalog
      .selectFrom('resources as r')
      .innerJoin('users as u', 'u.id', 'r.owner_id')
      .select(['r.id', 'r.owner_id', 'r.visibility', 'u.email'])
      .where('r.id', 'in', infos.map((i) => i.mapId))
      .execute();
    const byId = new Map(maps.map((m) => [m.id, m]));
    // A publication whose map row is gone (deleted meanwhile) is left out rather than shown without an owner.
    return infos.flatMap((i) => {
      const m = byId.get(i.mapId);
      return m ? [{ ...i, ownerId: m.owner_id, ownerEmail: m.email, visibility: m.visibility as Visibility }] : [];
    });
  }

  /** Publications of maps owned by `ownerId`, or of sample maps. */
  async list(filter: { ownerId: string } | { samples: true }): Promise<PublishedMapInfo[]> {
    let q = this.catalog
      .withTables<PublishingTables>()
      .selectFrom('published_maps as p')
      .innerJoin('resources as r', 'r.id', 'p.map_id')
      .selectAll('p');
    q = 'ownerId' in filter ? q.where('r.owner_id', '=', filter.ownerId) : q.where('r.is_sample', '=', true);
    return this.withFeatured((await q.orderBy('p.published_at', 'desc').execute()) as unknown as PublishedRow[]);
  }

  /**
   * The published map for a viewer. `canBypass`: the caller may read the map itself, so no password
   * is asked. Otherwise a protected map needs `password`; a missing one answers 401 with
   * details 'passwordRequired' so the app can show its form, a wrong one 403.
   */
  async open(mapId: string, opts: MapKey): Promise<PublishedMap> {
    return (await this.opened(mapId, opts)).map;
  }

  /**
   * The published map for the password, with a short-lived grant that later fetches (datasets, tiles)
   * send instead of the password, so a reader pays for one scrypt and one throttled attempt.
   */
  async unlock(mapId: string, password: string, address: string): Promise<{ map: PublishedMap; grant: { token: string; expiresAt: string } | null }> {
    const { r, map } = await this.opened(mapId, { password, address, canBypass: false });
    return { map, grant: r.password_hash === null ? null : this.unlocking.grants.issue(mapId, r.password_hash) };
  }

  /** Every opening by a reader is a view (the owner's own previews go through the map itself). */
  private async opened(mapId: string, opts: MapKey): Promise<{ r: PublishedRow; map: PublishedMap }> {
    const r = await this.row(mapId);
    if (!r) throw notFound('Published map not found');
    await this.assertPassword(r, opts);
    await this.db.updateTable('published_maps').set((eb) => ({ views: eb('views', '+', 1) })).where('map_id', '=', mapId).execute();
    const [info] = await this.withFeatured([r]);
    return { r, map: { ...info!, latestState: r.latest_state } };
  }

  /**
   * What a published map's signed tile links rest on, read without a password (the link was handed out
   * behind it): the datasets the publication names and whether it is protected; null once unpublished.
   */
  async publicationOf(mapId: string): Promise<{ datasetIds: string[]; protected: boolean } | null> {
    const r = await this.row(mapId);
    return r ? { datasetIds: ids(r.dataset_ids), protected: r.password_hash !== null } : null;
  }

  /** The ids of the datasets a viewer may read through the publication, after the same checks. */
  async datasetIdsFor(mapId: string, opts: MapKey): Promise<string[]> {
    const r = await this.row(mapId);
    if (!r) throw notFound('Published map not found');
    await this.assertPassword(r, opts);
    return ids(r.dataset_ids);
  }

  private async assertPassword(r: PublishedRow, key: MapKey): Promise<void> {
    const hash = r.password_hash;
    if (hash === null || key.canBypass) return;
    if (key.grant && this.unlocking.grants.verify(r.map_id, hash, key.grant)) return;
    const password = key.password;
    if (!password) throw new StudioError(401, 'This map is protected by a password', PASSWORD_REQUIRED);
    // While this address (or everyone, during a spread-out attack) must wait: 429 before any scrypt.
    const ok = await this.unlocking.mapPassword.attempt(r.map_id, key.address, () => verifyPassword(password, hash));
    if (!ok) throw new StudioError(403, 'Wrong password for this map', PASSWORD_REQUIRED);
  }

  // --- featured maps ------------------------------------------------------------------------
  async featured(): Promise<(FeaturedMap & { map: PublishedMapInfo })[]> {
    const rows = (await this.db.selectFrom('featured_maps').selectAll().orderBy('highlighted', 'desc').orderBy('position').orderBy('created_at').execute()) as FeaturedRow[];
    const infos = new Map((await this.infos(rows.map((f) => f.map_id))).map((i) => [i.mapId, i]));
    return rows.filter((f) => infos.has(f.map_id)).map((f) => ({ ...featuredWire(f), map: infos.get(f.map_id)! }));
  }

  async feature(body: { mapId: string; title?: string; description?: string; position?: number }): Promise<FeaturedMap> {
    if (!(await this.row(body.mapId))) throw notFound('Published map not found');
    const existing = await this.db.selectFrom('featured_maps').select('id').where('map_id', '=', body.mapId).executeTakeFirst();
    if (existing) throw new StudioError(409, 'This map is already featured');
    const row = await this.db
      .insertInto('featured_maps')
      .values({ id: randomUUID(), map_id: body.mapId, title: body.title ?? '', description: body.description ?? '', position: body.position ?? 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return featuredWire(row as FeaturedRow);
  }

  async updateFeatured(id: string, body: { title?: string; description?: string; position?: number }): Promise<FeaturedMap> {
    const row = await this.db
      .updateTable('featured_maps')
      .set({ ...body, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound('Featured map not found');
    return featuredWire(row as FeaturedRow);
  }

  async unfeature(id: string): Promise<void> {
    const r = await this.db.deleteFrom('featured_maps').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw notFound('Featured map not found');
  }

  /** One highlighted featured map at a time: highlighting one clears the others. */
  async highlight(id: string): Promise<FeaturedMap> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx.selectFrom('featured_maps').select('id').where('id', '=', id).executeTakeFirst();
      if (!found) throw notFound('Featured map not found');
      await trx.updateTable('featured_maps').set({ highlighted: false }).where('highlighted', '=', true).execute();
      const row = await trx.updateTable('featured_maps').set({ highlighted: true, updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
      return featuredWire(row as FeaturedRow);
    });
  }
}
