import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { StudioError, conflict, notFound, type User } from '@studio/schema';
import type { Db } from '../store/db';
import type { UsersTable } from '../store/tables';
import { hashPassword } from '../auth/passwords';
import { hashToken } from '../auth/tokens';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** Default feature flags of a new installation: everything this studio ships is on. */
export const DEFAULT_FLAGS: Record<string, boolean> = {
  'query-cache': true,
  'storage-connectors': true,
  insights: true,
  workbooks: true,
  'pivot-table': true,
  'kinetica-layer': false,
  'dashboard-beta': true,
};

/** A user by id as the catalog holds them; undefined when there is none. */
export async function userById(db: Db, id: string): Promise<Selectable<UsersTable> | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Accepts an invitation by its one-time token: the account is made in the inviting organization with the role
 * asked, and the invitation is used up. 404 for a token that matches none (or was used), 409 when the address
 * already has an account.
 */
export async function acceptInvitation(db: Db, token: string, account: { name: string; password: string }) {
  const invitation = await db.selectFrom('invitations').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  if (!invitation) throw new StudioError(404, 'Invitation not found or already used');
  if (await db.selectFrom('users').select('id').where('email', '=', invitation.email).executeTakeFirst()) {
    throw conflict(`An account for ${invitation.email} already exists; sign in instead`);
  }
  const user = await createUser(db, { email: invitation.email, name: account.name, password: account.password, organizationId: invitation.organization_id, role: invitation.role });
  await db.deleteFrom('invitations').where('id', '=', invitation.id).execute();
  return { user, invitation };
}

export async function userToWire(db: Db, user: Selectable<UsersTable>, includeFlags = false): Promise<User> {
  const memberships = await db
    .selectFrom('memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['m.organization_id', 'o.name', 'm.role', 'm.seat'])
    .where('m.user_id', '=', user.id)
    .execute();
  const home = memberships.find((m) => m.organization_id === user.default_org_id) ?? memberships[0];
  const wire: User = {
    id: user.id,
    email: user.email,
    name: user.name,
    isAdmin: user.is_admin,
    quotaPolicy: user.quota_policy,
    screeningStatus: (user.screening_status ?? null) as User['screeningStatus'],
    lastScreeningUpdate: iso(user.last_screening_update),
    organization: home ? { id: home.organization_id, name: home.name } : null,
    organizationSeatMap: Object.fromEntries(memberships.map((m) => [m.organization_id, m.seat])),
    memberships: memberships.map((m) => ({ organizationId: m.organization_id, organizationName: m.name, role: m.role, seat: m.seat })),
    createdAt: iso(user.created_at)!,
    updatedAt: iso(user.updated_at)!,
  };
  if (includeFlags) wire.flags = { ...DEFAULT_FLAGS, ...(user.flags ?? {}) };
  return wire;
}

export async function createUser(
  db: Db,
  input: { email: string; name?: string; password?: string | null; isAdmin?: boolean; organizationId?: string | null; role?: 'viewer' | 'maker' },
): Promise<Selectable<UsersTable>> {
  const id = randomUUID();
  const email = input.email.trim().toLowerCase();
  // Hashed before the transaction: scrypt takes a while and the transaction would hold the catalog.
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({
        id,
        email,
        name: input.name?.trim() || email.split('@')[0]!,
        password_hash: passwordHash,
        is_admin: input.isAdmin ?? false,
        default_org_id: input.organizationId ?? null,
        quota_policy: input.isAdmin ? 65535 : 100,
        screening_status: null,
        last_screening_update: null,
        industry: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.organizationId) {
      await trx.insertInto('memberships').values({ user_id: id, organization_id: input.organizationId, role: input.role ?? 'maker', seat: 'standard' }).execute();
    }
    return user;
  });
}

export async function createOrganization(db: Db, name: string, makerQuotaPolicy = 100) {
  return db.insertInto('organizations').values({ id: randomUUID(), name, maker_quota_policy: makerQuotaPolicy }).returningAll().executeTakeFirstOrThrow();
}

/** A user's memberships: organization, role and seat each. */
export async function seatsOf(db: Db, userId: string) {
  const rows = await db.selectFrom('memberships').selectAll().where('user_id', '=', userId).execute();
  return rows.map((r) => ({ organizationId: r.organization_id, role: r.role, seat: r.seat }));
}

/** Changes a user's name, industry, administrator right or flags (who may change what is the route's); 404 for an unknown user. */
export async function updateUser(db: Db, id: string, change: { name?: string; industry?: string; isAdmin?: boolean; flags?: Record<string, boolean> }): Promise<User> {
  const user = await db
    .updateTable('users')
    .set({
      ...(change.name !== undefined && { name: change.name }),
      ...(change.industry !== undefined && { industry: change.industry }),
      ...(change.isAdmin !== undefined && { is_admin: change.isAdmin }),
      ...(change.flags !== undefined && { flags: JSON.stringify(change.flags) }),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!user) throw notFound('User not found');
  return userToWire(db, user);
}

/** Makes `orgId` the user's home organization, as a member with `role` (kept as a member when already one). */
export async function moveToOrganization(db: Db, userId: string, orgId: string, role: 'viewer' | 'maker'): Promise<User> {
  await addMembers(db, orgId, [userId], role);
  const updated = await db.updateTable('users').set({ default_org_id: orgId, updated_at: new Date() }).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
  return userToWire(db, updated);
}

/**
 * Makes existing users members of an existing organization with `role` (a member already there gets the role,
 * keeps the seat; a new one gets a standard seat). 404 "Organization not found" or "User not found".
 */
export async function addMembers(db: Db, orgId: string, userIds: string[], role: 'viewer' | 'maker'): Promise<void> {
  if (!(await db.selectFrom('organizations').select('id').where('id', '=', orgId).executeTakeFirst())) throw notFound('Organization not found');
  const found = await db.selectFrom('users').select('id').where('id', 'in', userIds).execute();
  if (found.length !== new Set(userIds).size) throw notFound('User not found');
  await db
    .insertInto('memberships')
    .values(found.map((u) => ({ user_id: u.id, organization_id: orgId, role, seat: 'standard' })))
    .onConflict((oc) => oc.columns(['user_id', 'organization_id']).doUpdateSet({ role }))
    .execute();
}

/** Sets screening statuses, all or none; every user must exist (404 names the unknown ids). */
export async function setScreeningStatuses(db: Db, updates: { userId: string; status: number | null }[]): Promise<void> {
  const ids = updates.map((u) => u.userId);
  const found = await db.selectFrom('users').select('id').where('id', 'in', ids).execute();
  if (found.length !== new Set(ids).size) throw notFound('User not found', ids.filter((i) => !found.some((f) => f.id === i)).join(', '));
  await db.transaction().execute(async (trx) => {
    for (const u of updates) await trx.updateTable('users').set({ screening_status: u.status, last_screening_update: new Date() }).where('id', '=', u.userId).execute();
  });
}
