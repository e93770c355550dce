import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { AUDIT_EXPORT_MAX, StudioError, badInput, conflict, notFound, type AuditEntry, type AuditLogFilter, type MergePreview, type ResourceType, type User, type Visibility } from '@studio/schema';
import type { Selectable } from 'kysely';
import type { AuditLogTable } from '../store/tables';
import { csvLine, spreadsheetField } from './csv-text';
import type { Db } from '../store/db';
import { usageOf } from './quota';
import { userToWire } from './users';

const AUDIT_CSV_BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

const auditToWire = (r: Selectable<AuditLogTable>): AuditEntry => ({
  id: String(r.id),
  actorId: r.actor_id,
  actorEmail: r.actor_email,
  action: r.action,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  details: r.details,
  at: new Date(r.at).toISOString(),
});

/** The seat types a member may have; a viewer seat makes the member a viewer, any other a maker. */
export { SEATS, type Seat } from '@studio/schema';
import type { Seat } from '@studio/schema';

/**
 * What administrators do to accounts and resources beyond organizations (analytics-and-admin.md, ADM-004…024):
 * the audit log, any resource's visibility, quotas and seats, administrator rights, feature flags, merging
 * accounts, reconciling quotas and provisioning an organization. The routes (routes/admin.ts) check that the
 * caller is an administrator and record the audit trail.
 */
export class AdminService {
  constructor(private readonly db: Db) {}

  /** One page of the audit log, newest first, narrowed by the filter. */
  async auditLog(filter: AuditLogFilter & { offset: number; limit: number }): Promise<AuditEntry[]> {
    const rows = await this.auditQuery(filter).orderBy('at', 'desc').orderBy('id', 'desc').offset(filter.offset).limit(filter.limit).execute();
    return rows.map(auditToWire);
  }

  /**
   * Every entry the filter matches (at most AUDIT_EXPORT_MAX), newest first, as CSV lines for a spreadsheet: read
   * in batches by entry number, so a long export holds no more than a batch in memory and entries written
   * meanwhile neither repeat nor shift the rest.
   */
  async *auditCsv(filter: AuditLogFilter): AsyncGenerator<string> {
    yield csvLine(['When (UTC)', 'Who', 'Action', 'Resource type', 'Resource id', 'Details']);
    let before: string | null = null;
    for (let sent = 0; sent < AUDIT_EXPORT_MAX; ) {
      let q = this.auditQuery(filter);
      if (before !== null) q = q.where('id', '<', before);
      const rows = await q.orderBy('id', 'desc').limit(Math.min(AUDIT_CSV_BATCH, AUDIT_EXPORT_MAX - sent)).execute();
      for (const r of rows) {
        const e = auditToWire(r);
        yield csvLine([e.at, e.actorEmail ?? 'system', e.action, e.resourceType, e.resourceId, e.details], spreadsheetField);
      }
      if (rows.length < AUDIT_CSV_BATCH) return;
      sent += rows.length;
      before = rows.at(-1)!.id;
    }
  }

  private auditQuery(filter: AuditLogFilter) {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (filter.actorId) q = q.where('actor_id', '=', filter.actorId);
    if (filter.actorEmail) q = q.where(sql`lower(actor_email)`, '=', filter.actorEmail.toLowerCase());
    if (filter.resourceType) q = q.where('resource_type', '=', filter.resourceType);
    if (filter.resourceId) q = q.where('resource_id', '=', filter.resourceId);
    // "map" is the family map.*; the pattern's own wildcards in what was typed are escaped, so they match themselves.
    if (filter.action) {
      const action = filter.action;
      const family = `${action.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`;
      q = q.where((eb) => eb.or([eb('action', '=', action), eb('action', 'like', family)]));
    }
    if (filter.from) q = q.where('at', '>=', new Date(`${filter.from}T00:00:00Z`));
    if (filter.to) q = q.where('at', '<', new Date(Date.parse(`${filter.to}T00:00:00Z`) + DAY_MS));
    return q;
  }

  async setVisibility(type: ResourceType, id: string, visibility: Visibility): Promise<void> {
    const r = await this.db.updateTable('resources').set({ visibility, updated_at: new Date() }).where('id', '=', id).where('type', '=', type).executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw notFound('Resource not found');
  }

  async setQuota(userId: string, policy: number): Promise<User> {
    const user = await this.db.updateTable('users').set({ quota_policy: policy, updated_at: new Date() }).where('id', '=', userId).returningAll().executeTakeFirst();
    if (!user) throw notFound('User not found');
    return userToWire(this.db, user);
  }

  /** Sets a member's seat, and with it their role in the organization. */
  async setSeat(userId: string, orgId: string, seat: Seat): Promise<'viewer' | 'maker'> {
    const role = seat === 'viewer' ? 'viewer' : 'maker';
    const r = await this.db.updateTable('memberships').set({ seat, role }).where('user_id', '=', userId).where('organization_id', '=', orgId).executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw notFound('Membership not found');
    return role;
  }

  /**
   * Users with this email, name or id (all given must match), by email, at most 1,000. Asked by email, exactly one:
   * 404 when none, 500 when several (emails are unique, so several means the catalog is broken).
   */
  async findUsers(by: { email?: string; name?: string; id?: string }): Promise<User[]> {
    let q = this.db.selectFrom('users').selectAll();
    if (by.email !== undefined) q = q.where('email', '=', by.email.trim().toLowerCase());
    if (by.name !== undefined) q = q.where('name', '=', by.name);
    if (by.id !== undefined) q = q.where('id', '=', by.id);
    const rows = await q.orderBy('email').limit(1000).execute();
    if (by.email !== undefined) {
      if (rows.length === 0) throw notFound(`No user found for email ${by.email}`);
      if (rows.length > 1) throw new StudioError(500, `Multiple users found for email ${by.email}`);
    }
    return Promise.all(rows.map((r) => userToWire(this.db, r)));
  }

  async admins(): Promise<User[]> {
    const rows = await this.db.selectFrom('users').selectAll().where('is_admin', '=', true).orderBy('email').execute();
    return Promise.all(rows.map((r) => userToWire(this.db, r)));
  }

  async admin(id: string): Promise<User> {
    const user = await this.db.selectFrom('users').selectAll().where('id', '=', id).where('is_admin', '=', true).executeTakeFirst();
    if (!user) throw notFound('Administrator not found');
    return userToWire(this.db, user);
  }

  async grantAdmin(userId: string): Promise<User> {
    const user = await this.db.updateTable('users').set({ is_admin: true, updated_at: new Date() }).where('id', '=', userId).returningAll().executeTakeFirst();
    if (!user) throw notFound('User not found');
    return userToWire(this.db, user);
  }

  /** Takes administrator rights away; never the caller's own (the last administrator could lock everyone out). */
  async revokeAdmin(callerId: string, id: string): Promise<void> {
    if (callerId === id) throw conflict('You cannot revoke your own administrator rights');
    const r = await this.db.updateTable('users').set({ is_admin: false, updated_at: new Date() }).where('id', '=', id).where('is_admin', '=', true).executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw notFound('Administrator not found');
  }

  /** Sets feature flags of the user with `email` (merged over theirs); answers the user with flags. */
  async setFlags(email: string, flags: Record<string, boolean>): Promise<User> {
    const user = await this.db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    if (!user) throw notFound(`No user found for email ${email}`);
    const merged = { ...(user.flags ?? {}), ...flags };
    const updated = await this.db.updateTable('users').set({ flags: JSON.stringify(merged), updated_at: new Date() }).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow();
    return userToWire(this.db, updated, true);
  }

  /** Moves the secondaries' records, tags, memberships and shares to the primary and deletes them; answers how many records moved. */
  /** What a merge would move to the primary account, for the administrator to confirm; changes nothing. */
  async mergePreview(primaryId: string, secondaryIds: string[]): Promise<MergePreview> {
    await this.assertMergeable(primaryId, secondaryIds);
    const records = await this.db.selectFrom('resources').select(['type', (eb) => eb.fn.countAll<string>().as('n')]).where('owner_id', 'in', secondaryIds).groupBy('type').orderBy('type').execute();
    const tags = await this.db.selectFrom('tags').select((eb) => eb.fn.countAll<string>().as('n')).where('owner_id', 'in', secondaryIds).executeTakeFirstOrThrow();
    const joins = await this.db
      .selectFrom('memberships')
      .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
      .select('organizations.name')
      .distinct()
      .where('memberships.user_id', 'in', secondaryIds)
      .where('memberships.organization_id', 'not in', (eb) => eb.selectFrom('memberships').select('organization_id').where('user_id', '=', primaryId))
      .orderBy('organizations.name')
      .execute();
    const deleted = await this.db.selectFrom('users').select('email').where('id', 'in', secondaryIds).orderBy('email').execute();
    return {
      records: Object.fromEntries(records.map((r) => [r.type, Number(r.n)])),
      tags: Number(tags.n),
      joinsOrganizations: joins.map((j) => j.name),
      deletedAccounts: deleted.map((d) => d.email),
    };
  }

  private async assertMergeable(primaryId: string, secondaryIds: string[]): Promise<void> {
    if (secondaryIds.includes(primaryId)) throw badInput('The primary account cannot also be a secondary');
    const found = await this.db.selectFrom('users').select('id').where('id', 'in', [primaryId, ...secondaryIds]).execute();
    if (found.length !== new Set([primaryId, ...secondaryIds]).size) throw notFound('User not found');
  }

  async mergeAccounts(primaryId: string, secondaryIds: string[]): Promise<number> {
    await this.assertMergeable(primaryId, secondaryIds);
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('resources').set({ owner_id: primaryId }).where('owner_id', 'in', secondaryIds).executeTakeFirst();
      await trx.updateTable('tags').set({ owner_id: primaryId }).where('owner_id', 'in', secondaryIds).execute();
      await sql`insert into memberships (user_id, organization_id, role, seat)
                select ${primaryId}::uuid, organization_id, role, seat from memberships where user_id = any(${secondaryIds}::uuid[])
                on conflict (user_id, organization_id) do nothing`.execute(trx);
      await sql`update permissions set user_id = ${primaryId}::uuid where user_id = any(${secondaryIds}::uuid[])
                and not exists (select 1 from permissions p2 where p2.resource_id = permissions.resource_id and p2.user_id = ${primaryId}::uuid)`.execute(trx);
      await trx.deleteFrom('users').where('id', 'in', secondaryIds).execute();
      return Number(r.numUpdatedRows);
    });
  }

  /** The users over their quota; unless `dryRun`, their quota is lifted to their usage. */
  async reconcileQuota(dryRun: boolean): Promise<{ id: string; email: string; quota: number; usage: number }[]> {
    const users = await this.db.selectFrom('users').select(['id', 'email', 'quota_policy']).execute();
    const over: { id: string; email: string; quota: number; usage: number }[] = [];
    for (const u of users) {
      const usage = (await usageOf(this.db, u.id)).total ?? 0;
      if (usage > u.quota_policy) over.push({ id: u.id, email: u.email, quota: u.quota_policy, usage });
    }
    if (!dryRun) for (const o of over) await this.db.updateTable('users').set({ quota_policy: Math.min(o.usage, 65535) }).where('id', '=', o.id).execute();
    return over;
  }

  /** An organization's default tags ("Needs review", "Published"), owned by the provisioning admin; answers those made now. */
  async provisionAccount(orgId: string, adminId: string): Promise<string[]> {
    const org = await this.db.selectFrom('organizations').select('id').where('id', '=', orgId).executeTakeFirst();
    if (!org) throw notFound('Organization not found');
    const defaults = [
      { name: 'Needs review', color: '#f5a623' },
      { name: 'Published', color: '#2ca02c' },
    ];
    const existing = await this.db.selectFrom('tags').select('name').where('organization_id', '=', orgId).execute();
    const created = defaults.filter((d) => !existing.some((e) => e.name === d.name));
    if (created.length) await this.db.insertInto('tags').values(created.map((d) => ({ id: randomUUID(), owner_id: adminId, organization_id: orgId, ...d }))).execute();
    return created.map((c) => c.name);
  }
}
