import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { User } from '@studio/schema';
import type { Db } from '../store/db';
import type { UsersTable } from '../store/tables';
import { hashPassword } from '../auth/passwords';

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
