import type { Selectable } from 'kysely';
import {
  can,
  forbidden,
  notFound,
  strongest,
  Id,
  type Access,
  type Action,
  type ResourceType,
  RESOURCE_TYPES,
  StoredConnection,
  StoredState,
} from '@studio/schema';
import type { Db } from '../store/db';
import type { ResourcesTable } from '../store/tables';
import type { Caller } from '../http/caller';
import { ExpiringCache } from './expiring-cache';

/** The one setting of a stored connection that decides who may run queries on it. */
const RunRestriction = StoredConnection.pick({ runForEditorsOnly: true });

export const RESOURCE_LABELS: Record<ResourceType, string> = {
  map: 'Map',
  dataset: 'Dataset',
  'data-connection': 'Data connection',
  insight: 'Insight',
  workbook: 'Workbook',
  'query-bookmark': 'Query bookmark',
  'query-template': 'Query template',
  'map-asset': 'Map asset',
  project: 'Project',
  'insight-state': 'Insight state',
  'studio-state': 'Studio state',
  'workbook-state': 'Workbook state',
};

/**
 * Samples are read-only for everyone, administrators and their owner included (what a newcomer opens must
 * stay as shipped), and anyone who reads one may duplicate it: a reader of a sample is its viewer.
 */
export const sampleAccess = (access: Access): Access => (access === 'none' ? 'none' : 'viewer');

/** Saved states follow the record they point to (attrs.recordId), not their organization. */
const STATE_TYPES: ReadonlySet<string> = new Set(['insight-state', 'studio-state', 'workbook-state']);

/**
 * The one place that decides what a caller may do with a resource (catalog §6):
 * - administrators in admin mode (`isAdmin=true`) may do everything;
 * - the owner may do everything;
 * - an explicit share (to the user, their email, or one of their organizations) grants its role;
 * - members of the resource's organization are viewers (read, copy): "what their organization has";
 * - `public_read` lets anyone signed in read.
 * A caller with no access is told the resource does not exist (404), not that it is forbidden.
 */
/** Granted checks `guardReused` holds at most (the oldest goes first). */
const GRANTED_LIMIT = 10_000;

/** What a passed check answers: the resource and the caller's access to it. */
export interface Guarded {
  resource: Selectable<ResourcesTable>;
  access: Access;
}

export class AccessService {
  /** Granted checks reused for a short time (guardReused), by credential, resource and action. */
  private readonly granted: ExpiringCache<Guarded>;

  constructor(
    private readonly db: Db,
    /** How long `guardReused` reuses a granted check (STUDIO_AUTH_CACHE_MS; 0: never). */
    reuseMs = 0,
    now: () => number = Date.now,
  ) {
    this.granted = new ExpiringCache<Guarded>({ ttlMs: reuseMs, limit: GRANTED_LIMIT, now });
  }

  async accessOf(caller: Caller | null, resource: Selectable<ResourcesTable>, adminMode: boolean): Promise<Access> {
    const grants: Access[] = [];
    if (resource.visibility === 'public_read') grants.push('limited-viewer');
    if (!caller) return strongest(...grants);
    if (adminMode && caller.isAdmin) return 'admin';
    if (resource.owner_id === caller.user.id) return 'owner';
    const isState = STATE_TYPES.has(resource.type);
    if (resource.organization_id && caller.orgIds.includes(resource.organization_id) && !isState) grants.push('viewer');
    const target = isState ? StoredState.safeParse(resource.attrs).data?.recordId : undefined;
    if (target) {
      const row = await this.db.selectFrom('resources').selectAll().where('id', '=', target).executeTakeFirst();
      // Reading or writing the record reads or writes its state; sharing the state stays with its owner.
      const onRecord = row ? await this.accessOf(caller, row, adminMode) : 'none';
      grants.push(onRecord === 'owner' || onRecord === 'admin' ? 'editor' : onRecord);
    }
    let query = this.db
      .selectFrom('permissions')
      .select('role')
      .where('resource_id', '=', resource.id)
      .where((eb) => {
        const ors = [eb('user_id', '=', caller.user.id), eb('email', '=', caller.user.email)];
        if (caller.orgIds.length) ors.push(eb('organization_id', 'in', caller.orgIds));
        return eb.or(ors);
      });
    const shares = await query.execute();
    grants.push(...shares.map((s) => s.role));
    return strongest(...grants);
  }

  async guard(
    caller: Caller | null,
    type: ResourceType,
    id: string,
    action: Action,
    adminMode: boolean,
  ): Promise<Guarded> {
    const label = RESOURCE_LABELS[type] ?? 'Resource';
    if (!(RESOURCE_TYPES as readonly string[]).includes(type)) throw notFound(`Unknown resource type ${String(type)}`);
    if (!Id.safeParse(id).success) throw notFound(`${label} not found`);
    const resource = await this.db.selectFrom('resources').selectAll().where('id', '=', id).where('type', '=', type).executeTakeFirst();
    if (!resource) throw notFound(`${label} not found`);
    const found = await this.accessOf(caller, resource, adminMode);
    if (found === 'none') throw notFound(`${label} not found`);
    const access = resource.is_sample ? sampleAccess(found) : found;
    if (resource.is_sample && !can(access, action)) throw forbidden(`Samples are read-only, for administrators too: duplicate this ${label.toLowerCase()} to change a copy of your own`);
    if (!can(access, action)) throw forbidden(`You do not have permission to ${action} this ${label.toLowerCase()}`);
    return { resource, access };
  }

  /**
   * `guard` for the hot reads (tiles): a granted check is reused for `ttlMs` per credential, resource and
   * action, like the bearer cache (STUDIO_AUTH_CACHE_MS): a share removed on any node takes effect within
   * that time. Refusals are never reused, so a new share works at once.
   */
  async guardReused(caller: Caller | null, type: ResourceType, id: string, action: Action, adminMode: boolean): Promise<Guarded> {
    if (!caller) return this.guard(caller, type, id, action, adminMode);
    const key = `${caller.credentialId}\0${caller.user.id}\0${type}\0${id}\0${action}\0${adminMode}`;
    // A refusal throws, so only grants are kept.
    return this.granted.getOrLoad(key, () => this.guard(caller, type, id, action, adminMode));
  }

  /**
   * A data connection the caller may run queries on: read access, or edit access when its owner turned
   * on "runs for editors only" (readers still see and browse it).
   */
  async guardRun(caller: Caller | null, connectionId: string, adminMode: boolean): Promise<Selectable<ResourcesTable>> {
    const { resource, access } = await this.guard(caller, 'data-connection', connectionId, 'read', adminMode);
    // Only the one field is read, and a value that does not parse restricts: a damaged row must not open a connection up.
    const setting = RunRestriction.safeParse(resource.attrs);
    const restricted = !setting.success || setting.data.runForEditorsOnly === true;
    if (restricted && !can(access, 'write')) throw forbidden('Only editors of this connection may run queries on it');
    return resource;
  }

  /**
   * Ids a request body names (the datasets of a map, a parent connection, what a tag or a project
   * points at) follow the same rule as an id in the path: each must exist as `type` and allow
   * `action` to the caller, else the same 404 (or 403) as `guard`, before anything is written.
   */
  async guardAll(
    caller: Caller | null,
    type: ResourceType,
    ids: readonly string[],
    action: Action,
    adminMode: boolean,
  ): Promise<Selectable<ResourcesTable>[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const label = RESOURCE_LABELS[type] ?? 'Resource';
    if (unique.some((id) => !Id.safeParse(id).success)) throw notFound(`${label} not found`);
    const rows = await this.db.selectFrom('resources').selectAll().where('id', 'in', unique).where('type', '=', type).execute();
    if (rows.length !== unique.length) throw notFound(`${label} not found`);
    for (const row of rows) {
      const access = await this.accessOf(caller, row, adminMode);
      if (access === 'none') throw notFound(`${label} not found`);
      if (!can(access, action)) throw forbidden(`You do not have permission to ${action} this ${label.toLowerCase()}`);
    }
    return rows;
  }

  /**
   * Share targets named by id must exist and be visible to the caller: users who share one of the
   * caller's organizations (or the caller), and the caller's own organizations; administrators see
   * everyone. Anything else is "not found", so sharing cannot probe other organizations' members.
   * (Emails are not checked: they become pending shares for whoever signs up with them.)
   */
  async assertVisibleSubjects(caller: Caller | null, subjects: { userIds?: readonly string[]; organizationIds?: readonly string[] }): Promise<void> {
    const userIds = [...new Set(subjects.userIds ?? [])];
    const orgIds = [...new Set(subjects.organizationIds ?? [])];
    if (orgIds.length) {
      const found = await this.db.selectFrom('organizations').select('id').where('id', 'in', orgIds).execute();
      const visible = found.filter((o) => caller?.isAdmin || caller?.orgIds.includes(o.id));
      if (visible.length !== orgIds.length) throw notFound('Organization not found');
    }
    if (userIds.length) {
      let q = this.db.selectFrom('users').select('users.id').where('users.id', 'in', userIds);
      if (!caller?.isAdmin) {
        // Nobody is visible to no caller (and '' is no user id: the catalog would refuse it as a uuid).
        if (!caller) throw notFound('User not found');
        const me = caller.user.id;
        const orgs = caller.orgIds;
        q = q.where((eb) =>
          eb.or([
            eb('users.id', '=', me),
            ...(orgs.length
              ? [eb.exists(eb.selectFrom('memberships as m').select('m.user_id').whereRef('m.user_id', '=', 'users.id').where('m.organization_id', 'in', orgs))]
              : []),
          ]),
        );
      }
      const found = await q.execute();
      if (found.length !== userIds.length) throw notFound('User not found');
    }
  }
}
