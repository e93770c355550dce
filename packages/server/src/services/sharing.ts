import { randomUUID } from 'node:crypto';
import { notFound, type PermissionsOfResource, type ResourceRole, type ShareBody } from '@studio/schema';
import type { Db } from '../store/db';
import type { ResourceRow } from './records';

/** Grants one role to one subject on a resource; a second grant to the same subject replaces the role. */
export async function grant(
  db: Db,
  resourceId: string,
  subject: { userId?: string; organizationId?: string; email?: string },
  role: ResourceRole,
): Promise<string> {
  const kind = subject.userId ? 'user' : subject.organizationId ? 'organization' : 'email';
  const email = subject.email?.trim().toLowerCase() ?? null;
  const existing = await db
    .selectFrom('permissions')
    .select('id')
    .where('resource_id', '=', resourceId)
    .where('subject_kind', '=', kind)
    .where((eb) =>
      kind === 'user' ? eb('user_id', '=', subject.userId!) : kind === 'organization' ? eb('organization_id', '=', subject.organizationId!) : eb('email', '=', email!),
    )
    .executeTakeFirst();
  if (existing) {
    await db.updateTable('permissions').set({ role }).where('id', '=', existing.id).execute();
    return existing.id;
  }
  const id = randomUUID();
  await db
    .insertInto('permissions')
    .values({ id, resource_id: resourceId, subject_kind: kind, user_id: subject.userId ?? null, organization_id: subject.organizationId ?? null, email, role })
    .execute();
  return id;
}

/** Grants every item or none (one transaction): the bulk call's writes, its checks done before. */
export async function grantAll(db: Db, items: { resourceId: string; userId?: string; organizationId?: string; email?: string; role: ResourceRole }[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const item of items) await grant(trx, item.resourceId, item, item.role);
  });
}

/** A permission entry and the resource it is on; 404 "Permission not found" for an unknown id. */
export async function permissionEntry(db: Db, id: string): Promise<{ id: string; type: string; resource_id: string }> {
  const perm = await db.selectFrom('permissions as p').innerJoin('resources as r', 'r.id', 'p.resource_id').select(['p.id', 'r.type', 'r.id as resource_id']).where('p.id', '=', id).executeTakeFirst();
  if (!perm) throw notFound('Permission not found');
  return perm;
}

export async function changeRole(db: Db, permissionId: string, role: ResourceRole): Promise<void> {
  await db.updateTable('permissions').set({ role }).where('id', '=', permissionId).execute();
}

export async function revoke(db: Db, permissionId: string): Promise<void> {
  await db.deleteFrom('permissions').where('id', '=', permissionId).execute();
}

/** Applies a share body: every user and organization must exist; emails may belong to future users. */
export async function applyShare(db: Db, row: ResourceRow, body: ShareBody): Promise<void> {
  const userIds = body.users.map((u) => u.userId);
  const orgIds = body.organizations.map((o) => o.organizationId);
  if (userIds.length) {
    const found = await db.selectFrom('users').select('id').where('id', 'in', userIds).execute();
    if (found.length !== new Set(userIds).size) throw notFound('User not found');
  }
  if (orgIds.length) {
    const found = await db.selectFrom('organizations').select('id').where('id', 'in', orgIds).execute();
    if (found.length !== new Set(orgIds).size) throw notFound('Organization not found');
  }
  for (const u of body.users) await grant(db, row.id, { userId: u.userId }, u.role);
  for (const o of body.organizations) await grant(db, row.id, { organizationId: o.organizationId }, o.role);
  for (const e of body.emails) await grant(db, row.id, { email: e.email }, e.role);
  if (body.visibility) await db.updateTable('resources').set({ visibility: body.visibility }).where('id', '=', row.id).execute();
}

export async function permissionsOf(db: Db, row: ResourceRow): Promise<PermissionsOfResource> {
  const rows = await db
    .selectFrom('permissions as p')
    .leftJoin('users as u', 'u.id', 'p.user_id')
    .leftJoin('organizations as o', 'o.id', 'p.organization_id')
    .leftJoin('memberships as m', (j) => j.onRef('m.user_id', '=', 'p.user_id').on('m.organization_id', '=', row.organization_id ?? '00000000-0000-0000-0000-000000000000'))
    .select(['p.id', 'p.subject_kind', 'p.role', 'p.user_id', 'p.organization_id', 'p.email', 'u.email as user_email', 'u.name as user_name', 'o.name as org_name', 'm.seat'])
    .where('p.resource_id', '=', row.id)
    .orderBy('p.created_at')
    .execute();
  return {
    resourceType: row.type,
    resourceId: row.id,
    visibility: row.visibility,
    users: rows
      .filter((r) => r.subject_kind === 'user')
      .map((r) => ({ id: r.id, role: r.role, userId: r.user_id!, email: r.user_email ?? '', name: r.user_name ?? '', seat: r.seat ?? null })),
    organizations: rows.filter((r) => r.subject_kind === 'organization').map((r) => ({ id: r.id, role: r.role, organizationId: r.organization_id!, name: r.org_name ?? '' })),
    emails: rows.filter((r) => r.subject_kind === 'email').map((r) => ({ id: r.id, role: r.role, email: r.email! })),
  };
}
