import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import {
  conflict,
  forbidden,
  notFound,
  LOCK_TTL_SECONDS,
  type Access,
  type RecordCreate,
  type RecordUpdate,
  type ResourceType,
  type StudioRecord,
} from '@studio/schema';
import type { Db } from '../store/db';
import { toCount } from '../store/db';
import type { ResourcesTable } from '../store/tables';
import { homeOrgId, type Caller } from '../http/caller';
import { RESOURCE_LABELS } from './access';
import { latestVersions, recordVersion, VERSIONED_TYPES, type VersionInput } from './history';
import { wireOf, withLinksAndTags, type LinkJson, type TagJson } from './record-wire';

export type ResourceRow = Selectable<ResourcesTable>;
/** `readable`: what the caller owns, what is shared with them and their organizations' records (search across the workspace). */
export type ListScope = 'own' | 'organization' | 'shared' | 'samples' | 'all' | 'readable';

export interface ListOptions {
  scope: ListScope;
  search?: string;
  tag?: string;
  importSource?: string;
  /** Kind filters: attrs key to the values it may have (e.g. assetType in [map-style]). */
  attrs?: Record<string, string[]>;
  sortBy: 'name' | 'createdAt' | 'updatedAt';
  sortOrder: 'asc' | 'desc';
  offset: number;
  limit: number;
}

const SORT_COLUMNS = { name: 'name', createdAt: 'created_at', updatedAt: 'updated_at' } as const;
const iso = (d: Date | string) => new Date(d).toISOString();

/** Who holds an edit lock, and until when. */
interface LockHolder {
  ownerId: string;
  sessionId: string | null;
  tabId: string | null;
  acquiredAt: Date;
  expiresAt: Date;
}

/** The lock columns of a record for a holder, or cleared. */
const lockColumns = (lock: LockHolder | null) => ({
  lock_owner_id: lock?.ownerId ?? null,
  lock_session_id: lock?.sessionId ?? null,
  lock_tab_id: lock?.tabId ?? null,
  lock_acquired_at: lock?.acquiredAt ?? null,
  lock_expires_at: lock?.expiresAt ?? null,
});


/**
 * The generic record machinery: maps, insights (dashboards), workbooks, and every other catalog
 * resource are rows of one table, listed, created, saved, locked, cloned, shared and deleted here.
 * Kind-specific fields live in `attrs`; a kind adds behaviour around these calls, not beside them.
 */
export class RecordService {
  constructor(private readonly db: Db) {}

  /** Ids of the records shared with the caller: by user, by email (an invitation not yet accepted) or by organization. */
  private sharedWith(caller: Caller) {
    return this.db.selectFrom('permissions').select('resource_id').where((w) => {
      const ors = [w('user_id', '=', caller.user.id), w('email', '=', caller.user.email)];
      if (caller.orgIds.length) ors.push(w('organization_id', 'in', caller.orgIds));
      return w.or(ors);
    });
  }

  /**
   * Lists as the caller sees them, in one round trip: the page, its owners, links, tags and the total.
   * Lists leave `latestState` out (null): it can be large and a list never shows it.
   */
  async list(caller: Caller, type: ResourceType, opts: ListOptions): Promise<{ items: StudioRecord[]; total: number }> {
    const { items, total } = await this.listWithAttrs(caller, type, opts);
    return { items, total };
  }

  /**
   * The list with each record's attrs beside it, read by the same query: kinds whose wire form comes from their
   * attrs (datasets) need no second read of the page's rows (measured: a third of the dataset list's time).
   */
  async listWithAttrs(caller: Caller, type: ResourceType, opts: ListOptions): Promise<{ items: StudioRecord[]; total: number; attrs: Map<string, ResourceRow['attrs']> }> {
    const uid = caller.user.id;
    if (opts.scope === 'organization' && !caller.orgIds.length) return { items: [], total: 0, attrs: new Map() };
    let q = this.wireQuery({ withState: false }).where('r.type', '=', type);
    switch (opts.scope) {
      case 'own':
        // The samples their owner (the first administrator) made have their own tab, not a place among theirs.
        q = q.where('r.owner_id', '=', uid).where('r.is_sample', '=', false);
        break;
      case 'organization':
        q = q.where('r.organization_id', 'in', caller.orgIds).where('r.is_sample', '=', false);
        break;
      case 'shared':
        q = q.where('r.owner_id', '!=', uid).where('r.id', 'in', this.sharedWith(caller));
        break;
      case 'readable':
        q = q.where('r.is_sample', '=', false).where((w) => {
          const ors = [w('r.owner_id', '=', uid), w('r.id', 'in', this.sharedWith(caller))];
          if (caller.orgIds.length) ors.push(w('r.organization_id', 'in', caller.orgIds));
          return w.or(ors);
        });
        break;
      case 'samples':
        q = q.where('r.is_sample', '=', true);
        break;
      case 'all':
        break;
    }
    if (opts.search) q = q.where('r.name', 'ilike', `%${opts.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (opts.importSource) q = q.where('r.import_source', '=', opts.importSource);
    for (const [key, values] of Object.entries(opts.attrs ?? {})) if (values.length) q = q.where(sql<string>`r.attrs->>${key}`, 'in', values);
    if (opts.tag) {
      const tag = opts.tag;
      q = q.where('r.id', 'in', (eb) => eb.selectFrom('tag_links').select('resource_id').where('tag_id', '=', tag));
    }
    const page = q
      .select(sql<string | number>`count(*) over ()`.as('total_count'))
      .orderBy(`r.${SORT_COLUMNS[opts.sortBy]}`, opts.sortOrder)
      .orderBy('r.id')
      .offset(opts.offset)
      .limit(opts.limit);
    // The page's links and tags come in the same statement, aggregated for the page's rows only: a list call is
    // bound by the API node's CPU, and each catalog query costs it a socket write and a parse (a second query
    // for them was a third of the dataset list's time, measured 2026-11-28).
    const rows = (
      await this.db
        .with('page', () => page)
        .selectFrom('page')
        .selectAll('page')
        .select([
          sql<LinkJson[]>`coalesce((select json_agg(json_build_object('id', l.id, 'name', l.name, 'type', l.type, 'assetType', l.attrs->>'assetType')) from resource_links rl join resources l on l.id = rl.linked_id where rl.resource_id = page.id), '[]'::json)`.as('links'),
          sql<TagJson[]>`coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)) from tag_links tl join tags t on t.id = tl.tag_id where tl.resource_id = page.id), '[]'::json)`.as('tag_list'),
        ])
        .orderBy(sql.ref(`page.${SORT_COLUMNS[opts.sortBy]}`), opts.sortOrder)
        .orderBy(sql.ref('page.id'))
        .execute()
    ).map((row) => ({ ...row, tag_list: row.tag_list.sort((a, b) => a.name.localeCompare(b.name)) }));
    let total = toCount(rows[0]?.total_count);
    if (!rows.length && opts.offset > 0) {
      // Past the last page the window count is not there; count separately for an honest total.
      const counted = await this.list(caller, type, { ...opts, offset: 0, limit: 1 });
      total = counted.total;
    }
    const scopeAccess: Access = opts.scope === 'own' ? 'owner' : opts.scope === 'all' ? 'admin' : 'viewer';
    const items = rows.map((row) => wireOf(row, scopeAccess));
    if (opts.scope === 'shared' || opts.scope === 'organization' || opts.scope === 'samples' || opts.scope === 'readable') {
      // The list answers each record with the caller's real standing, computed in one query.
      const roles = await this.sharedRoles(caller, rows.map((r) => r.id));
      for (const item of items) {
        const role = roles.get(item.id);
        if (item.isSample) continue; // read-only for everyone (wireOf)
        item.access = item.ownerId === uid ? 'owner' : role && role !== 'none' ? role : 'viewer';
      }
    }
    return { items, total, attrs: new Map(rows.map((r) => [r.id, r.attrs])) };
  }


  /** Rows with what the wire form needs from the record itself: owner and lock holder. */
  private wireQuery(opts: { withState: boolean }) {
    return this.db
      .selectFrom('resources as r')
      .innerJoin('users as u', 'u.id', 'r.owner_id')
      .leftJoin('users as lu', 'lu.id', 'r.lock_owner_id')
      .select([
        'r.id', 'r.type', 'r.name', 'r.description', 'r.owner_id', 'r.organization_id', 'r.visibility', 'r.is_sample', 'r.import_source',
        'r.attrs', 'r.lock_owner_id', 'r.lock_acquired_at', 'r.lock_expires_at', 'r.lock_tab_id', 'r.thumbnail_key', 'r.thumbnail_type', 'r.created_at', 'r.updated_at',
        'u.name as owner_name', 'u.email as owner_email', 'lu.name as lock_owner_name',
        opts.withState ? 'r.latest_state' : sql<null>`null`.as('latest_state'),

      ]);
  }

  private async sharedRoles(caller: Caller, ids: string[]): Promise<Map<string, Access>> {
    const out = new Map<string, Access>();
    if (!ids.length) return out;
    const rank = { 'limited-viewer': 1, viewer: 2, editor: 3 } as const;
    const rows = await this.db
      .selectFrom('permissions')
      .select(['resource_id', 'role'])
      .where('resource_id', 'in', ids)
      .where((w) => {
        const ors = [w('user_id', '=', caller.user.id), w('email', '=', caller.user.email)];
        if (caller.orgIds.length) ors.push(w('organization_id', 'in', caller.orgIds));
        return w.or(ors);
      })
      .execute();
    for (const r of rows) {
      const prev = out.get(r.resource_id);
      if (!prev || rank[r.role] > rank[prev as keyof typeof rank]) out.set(r.resource_id, r.role);
    }
    return out;
  }

  async get(id: string): Promise<ResourceRow | undefined> {
    return this.db.selectFrom('resources').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The records with these ids (of `type` only, when given), in no order; ids with no record are left out. */
  async getMany(ids: readonly string[], type?: ResourceType): Promise<ResourceRow[]> {
    if (!ids.length) return [];
    let q = this.db.selectFrom('resources').selectAll().where('id', 'in', [...ids]);
    if (type) q = q.where('type', '=', type);
    return q.execute();
  }

  /** Records of `type` whose attrs name `id` under one of `keys` (datasets of a connection, say), by name. */
  async referencing(type: ResourceType, keys: string[], id: string): Promise<ResourceRow[]> {
    return this.db
      .selectFrom('resources')
      .selectAll()
      .where('type', '=', type)
      .where((eb) => eb.or(keys.map((key) => eb(sql<string>`attrs->>${key}`, '=', id))))
      .orderBy('name')
      .orderBy('id')
      .execute();
  }

  /** The ids of the maps that link this record (a dataset's maps). */
  async mapsLinking(id: string): Promise<string[]> {
    const rows = await this.db.selectFrom('resource_links as l').innerJoin('resources as r', 'r.id', 'l.resource_id').select('r.id').where('l.linked_id', '=', id).where('r.type', '=', 'map').execute();
    return rows.map((r) => r.id);
  }

  /** Points the record at its stored picture. */
  async setThumbnail(id: string, key: string, contentType: string): Promise<void> {
    await this.db.updateTable('resources').set({ thumbnail_key: key, thumbnail_type: contentType, updated_at: new Date() }).where('id', '=', id).execute();
  }

  /** Replaces the record's attrs with `attrs` (the caller merges what it keeps). */
  async setAttrs(id: string, attrs: Record<string, unknown>): Promise<void> {
    await this.db.updateTable('resources').set({ attrs: JSON.stringify(attrs), updated_at: new Date() }).where('id', '=', id).execute();
  }

  async create(
    caller: Caller,
    type: ResourceType,
    body: RecordCreate & { attrs?: Record<string, unknown>; isSample?: boolean; version?: VersionInput },
    opts: { acquireLock?: boolean; tabId?: string | null } = {},
  ): Promise<ResourceRow> {
    const id = randomUUID();
    const now = new Date();
    const lock = opts.acquireLock ? this.lockFor(caller, opts.tabId ?? null, now) : null;
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('resources')
        .values({
          id,
          type,
          owner_id: caller.user.id,
          organization_id: homeOrgId(caller),
          name: body.name,
          description: body.description,
          visibility: body.visibility ?? 'private',
          is_sample: body.isSample ?? false,
          import_source: body.importSource ?? null,
          latest_state: body.latestState === undefined ? null : JSON.stringify(body.latestState),
          attrs: JSON.stringify(body.attrs ?? {}),
          ...lockColumns(lock),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (body.datasets?.length) await this.linkAll(trx, id, body.datasets, 'dataset');
      // History (#51): the first save is version 1; a kepler.gl file's is an import.
      const input = { ...(body.importSource && { source: 'import' as const }), ...body.version };
      await recordVersion(trx, { recordId: id, type, before: null, beforeUpdatedAt: null, after: body.latestState ?? null, caller, input });
      return inserted;
    });
    return row;
  }

  /** A save: refused while someone else holds a live lock, naming them; renews the caller's lock. */
  async update(
    caller: Caller,
    row: ResourceRow,
    body: RecordUpdate & { attrs?: Record<string, unknown>; version?: VersionInput },
    opts: { adminMode: boolean; acquireLock?: boolean; tabId?: string | null },
  ): Promise<ResourceRow> {
    await this.assertNotLockedByOther(caller, row, opts.tabId);
    if (body.ownerId !== undefined && body.ownerId !== row.owner_id) {
      if (!opts.adminMode) throw forbidden('Only administrators in admin mode can change the owner');
      const owner = await this.db.selectFrom('users').select('id').where('id', '=', body.ownerId).executeTakeFirst();
      if (!owner) throw notFound('New owner not found');
    }
    const now = new Date();
    const lock = opts.acquireLock ? this.lockFor(caller, opts.tabId ?? null, now, row) : null;
    return this.db.transaction().execute(async (trx) => {
      // History (#51): a changed latestState is a version, written first (a 409 on an old base writes nothing).
      if (body.latestState !== undefined) {
        await recordVersion(trx, { recordId: row.id, type: row.type, before: row.latest_state, beforeUpdatedAt: row.updated_at, after: body.latestState, caller, input: body.version ?? {}, datasets: body.datasets });
      }
      const updated = await trx
        .updateTable('resources')
        .set({
          ...(body.name !== undefined && { name: body.name }),
          ...(body.description !== undefined && { description: body.description }),
          ...(body.importSource !== undefined && { import_source: body.importSource }),
          ...(body.latestState !== undefined && { latest_state: JSON.stringify(body.latestState) }),
          ...(body.attrs !== undefined && { attrs: JSON.stringify({ ...row.attrs, ...body.attrs }) }),
          ...(body.ownerId !== undefined && { owner_id: body.ownerId }),
          ...(lock && lockColumns(lock)),
          updated_at: now,
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (body.datasets) {
        await trx
          .deleteFrom('resource_links')
          .where('resource_id', '=', row.id)
          .where('linked_id', 'in', (eb) => eb.selectFrom('resources').select('id').where('type', '=', 'dataset'))
          .execute();
        await this.linkAll(trx, row.id, body.datasets, 'dataset');
      }
      return updated;
    });
  }

  private async linkAll(trx: Db, id: string, linkedIds: string[], type: ResourceType): Promise<void> {
    const unique = [...new Set(linkedIds)];
    if (!unique.length) return;
    const found = await trx.selectFrom('resources').select('id').where('id', 'in', unique).where('type', '=', type).execute();
    if (found.length !== unique.length) {
      const missing = unique.filter((u) => !found.some((f) => f.id === u));
      throw notFound(`${RESOURCE_LABELS[type]} not found`, missing.join(', '));
    }
    await trx
      .insertInto('resource_links')
      .values(unique.map((linked_id) => ({ resource_id: id, linked_id })))
      .onConflict((oc) => oc.columns(['resource_id', 'linked_id']).doNothing())
      .execute();
  }

  async link(id: string, linkedId: string): Promise<void> {
    await this.db
      .insertInto('resource_links')
      .values({ resource_id: id, linked_id: linkedId })
      .onConflict((oc) => oc.columns(['resource_id', 'linked_id']).doNothing())
      .execute();
  }

  async unlink(id: string, linkedId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('resource_links').where('resource_id', '=', id).where('linked_id', '=', linkedId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * The lock a caller takes: held by the session and, from a browser, the tab (`x-studio-tab`); an API
   * client sends no tab and holds it as its user.
   */
  lockFor(caller: Caller, tabId: string | null, now = new Date(), held?: ResourceRow): LockHolder {
    // A renewal keeps when the user took the lock: a read-only page says "editing since" then, not the last renewal.
    const renewing = held?.lock_owner_id === caller.user.id && held.lock_acquired_at && held.lock_expires_at && held.lock_expires_at > now;
    const acquiredAt = renewing ? held.lock_acquired_at! : now;
    return { ownerId: caller.user.id, sessionId: caller.via === 'session' ? caller.credentialId : null, tabId, acquiredAt, expiresAt: new Date(now.getTime() + LOCK_TTL_SECONDS * 1000) };
  }

  /**
   * Takes the edit lock when it is free or ran out. A lock the caller holds in this tab is renewed; one
   * the same user holds in another tab or device is taken only with `takeOver` (the user chose to edit
   * here); a caller with no tab (an API client) takes its user's lock as before. Someone else's live lock
   * is never taken here (an administrator hands it over: PUT /v1/locks/{type}/{id}/owner).
   */
  async acquireLock(caller: Caller, row: ResourceRow, opts: { tabId?: string | null; takeOver?: boolean } = {}): Promise<ResourceRow> {
    const tabId = opts.tabId ?? null;
    const lock = this.lockFor(caller, tabId, new Date(), row);
    const updated = await this.db
      .updateTable('resources')
      .set(lockColumns(lock))
      .where('id', '=', row.id)
      .where((eb) => {
        const mine = eb('lock_owner_id', '=', caller.user.id);
        const sameHolder = opts.takeOver || tabId === null ? mine : eb.and([mine, eb.or([eb('lock_tab_id', 'is', null), eb('lock_tab_id', '=', tabId)])]);
        return eb.or([eb('lock_owner_id', 'is', null), eb('lock_expires_at', '<', new Date()), sameHolder]);
      })
      .returningAll()
      .executeTakeFirst();
    return updated ?? row;
  }

  /**
   * Refuses a write while someone else holds a live lock, naming them; from a browser tab (`tabId`), also
   * while the same user holds it in another tab (the user takes it over there or here first).
   */
  async assertNotLockedByOther(caller: Caller, row: ResourceRow, tabId?: string | null): Promise<void> {
    if (!row.lock_owner_id) return;
    if (!row.lock_expires_at || row.lock_expires_at.getTime() < Date.now()) return;
    const label = RESOURCE_LABELS[row.type as ResourceType]?.toLowerCase() ?? 'record';
    if (row.lock_owner_id === caller.user.id) {
      if (tabId && row.lock_tab_id && row.lock_tab_id !== tabId) throw conflict(`You are editing this ${label} in another tab`, 'Take over the edit lock to save from here');
      return;
    }
    const holder = await this.db.selectFrom('users').select(['name', 'email']).where('id', '=', row.lock_owner_id).executeTakeFirst();
    throw conflict(`This ${label} is being edited by ${holder?.name ?? 'another user'} (${holder?.email ?? 'unknown'})`, `Locked until ${iso(row.lock_expires_at)}`);
  }

  /** Gives the lock up (a tab closing, an editor done): only its user may; someone else's answers 409 naming them. */
  async releaseLock(caller: Caller, row: ResourceRow): Promise<void> {
    await this.assertNotLockedByOther(caller, row);
    await this.db.updateTable('resources').set(lockColumns(null)).where('id', '=', row.id).where('lock_owner_id', '=', caller.user.id).execute();
  }

  /** Signing out releases the locks the session's tabs held. */
  async releaseSessionLocks(sessionId: string): Promise<number> {
    const r = await this.db.updateTable('resources').set(lockColumns(null)).where('lock_session_id', '=', sessionId).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async setLockOwner(row: ResourceRow, ownerId: string): Promise<ResourceRow> {
    const owner = await this.db.selectFrom('users').select('id').where('id', '=', ownerId).executeTakeFirst();
    if (!owner) throw notFound('User not found');
    const now = new Date();
    return this.db
      .updateTable('resources')
      // Handed over: the new owner takes it from any of their tabs (no session or tab yet).
      .set(lockColumns({ ownerId, sessionId: null, tabId: null, acquiredAt: now, expiresAt: new Date(now.getTime() + LOCK_TTL_SECONDS * 1000) }))
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** A copy owned by the caller: same state and links, no shares, tags or lock. */
  async clone(caller: Caller, row: ResourceRow): Promise<ResourceRow> {
    const links = await this.db.selectFrom('resource_links').select('linked_id').where('resource_id', '=', row.id).execute();
    return this.db.transaction().execute(async (trx) => {
      const id = randomUUID();
      const copy = await trx
        .insertInto('resources')
        .values({
          id,
          type: row.type,
          owner_id: caller.user.id,
          organization_id: homeOrgId(caller),
          name: `Copy of ${row.name}`.slice(0, 500),
          description: row.description,
          visibility: 'private',
          is_sample: false,
          import_source: row.import_source,
          latest_state: row.latest_state === null ? null : JSON.stringify(row.latest_state),
          attrs: JSON.stringify(row.attrs ?? {}),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (links.length) await trx.insertInto('resource_links').values(links.map((l) => ({ resource_id: id, linked_id: l.linked_id }))).execute();
      await recordVersion(trx, { recordId: id, type: row.type, before: null, beforeUpdatedAt: null, after: row.latest_state, caller, input: {} });
      return copy;
    });
  }

  async delete(caller: Caller, row: ResourceRow): Promise<void> {
    await this.assertNotLockedByOther(caller, row);
    await this.db.deleteFrom('resources').where('id', '=', row.id).execute();
  }

  /** Wire form of rows just read or written, in one query for all of them. */
  async toWire(rows: ResourceRow[], accessOf: (row: ResourceRow) => Access): Promise<StudioRecord[]> {
    if (!rows.length) return [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wires = await withLinksAndTags(this.db, await this.wireQuery({ withState: true }).where('r.id', 'in', [...byId.keys()]).execute());
    const wireById = new Map(wires.map((w) => [w.id, w]));
    const versions = await latestVersions(this.db, rows.filter((r) => VERSIONED_TYPES[r.type]).map((r) => r.id));
    return rows.flatMap((row) => {
      const w = wireById.get(row.id);
      // The latest version (#51), sent back by an editor as the base of its next save.
      return w ? [{ ...wireOf(w, accessOf(row)), ...(VERSIONED_TYPES[row.type] && { version: versions.get(row.id) ?? null }) }] : [];
    });
  }
}
