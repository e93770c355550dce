import type { Selectable } from 'kysely';
import { StudioError } from '@studio/schema';
import type { MembershipsTable, UsersTable } from '../store/tables';

/** Who is calling: resolved once per request from the bearer token or API key. */
export interface Caller {
  user: Selectable<UsersTable>;
  memberships: Selectable<MembershipsTable>[];
  orgIds: string[];
  isAdmin: boolean;
  /**
   * The credential: a sign-in session, an API key used as a bearer token, or a Data SDK access token (a JWT
   * exchanged for an SDK key at /sdk/oauth/token), which reaches the /sdk routes only (`assertReaches`).
   */
  via: 'session' | 'api-key' | 'sdk';
  credentialId: string;
}

/**
 * What a credential may call. A Data SDK access token is for the SDK's own calls: refused on /v1 (and every
 * other route), so a token left in a notebook cannot administer the account, mint API keys or reach the
 * routes the SDK never uses.
 */
export function assertReaches(caller: Caller | null, url: string): void {
  if (caller?.via === 'sdk' && !url.startsWith('/sdk/')) {
    throw new StudioError(403, 'A Data SDK access token works only on the /sdk routes', 'Call /v1 with an API key or a signed-in session');
  }
}

/**
 * Who may generate API keys: a signed-in session only. A key minted with another key (or an SDK token derived
 * from one) would outlive its parent's revocation, so revoking a leaked key would not end what it gave.
 */
export function assertMayMintKeys(caller: Caller): void {
  if (caller.via !== 'session') {
    throw new StudioError(403, 'API keys can be generated only from a signed-in session, not with another API key', 'Sign in and generate the key under Account → API keys');
  }
}

/** The organization a new record lands in: the user's default, else their first membership. */
export const homeOrgId = (caller: Caller): string | null =>
  caller.user.default_org_id ?? caller.memberships[0]?.organization_id ?? null;
