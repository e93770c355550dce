import type { Selectable } from 'kysely';
import type { MembershipsTable, UsersTable } from '../store/tables';

/** Who is calling: resolved once per request from the bearer token or API key. */
export interface Caller {
  user: Selectable<UsersTable>;
  memberships: Selectable<MembershipsTable>[];
  orgIds: string[];
  isAdmin: boolean;
  via: 'session' | 'api-key';
  credentialId: string;
}

/** The organization a new record lands in: the user's default, else their first membership. */
export const homeOrgId = (caller: Caller): string | null =>
  caller.user.default_org_id ?? caller.memberships[0]?.organization_id ?? null;
