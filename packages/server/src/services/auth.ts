import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { MembershipsTable, UsersTable } from '../store/tables';
import { StudioError, unauthorized } from '@studio/schema';
import type { Db } from '../store/db';
import { atomically } from '../store/unit-of-work';
import type { Caller } from '../http/caller';
import { hashPassword, verifyPassword } from '../auth/passwords';
import type { FailureThrottle } from './rate-limits';
import { ExpiringCache } from './expiring-cache';
import { SDK_REFRESH_PREFIX, looksLikeJwt, type SdkTokens } from '../auth/sdk-tokens';
import {
  ACCESS_PREFIX,
  ACCESS_TTL_MS,
  API_KEY_PREFIX,
  NOT_SIGNED_IN,
  REFRESH_PREFIX,
  REFRESH_TTL_MS,
  hashToken,
  newToken,
} from '../auth/tokens';

type UserWithMemberships = Selectable<UsersTable> & { credential_id: string; memberships: Selectable<MembershipsTable>[] };

function toCaller(row: UserWithMemberships, via: Caller['via']): Caller {
  const { credential_id, memberships, ...user } = row;
  const clean = Object.fromEntries(Object.entries(user).filter(([k]) => !k.startsWith('session_') && !k.startsWith('key_'))) as Selectable<UsersTable>;
  return { user: clean, memberships, orgIds: memberships.map((m) => m.organization_id), isAdmin: clean.is_admin, via, credentialId: credential_id };
}

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  userId: string;
}

/** Sign-in, sign-out, refresh, and resolving a bearer credential to a caller. */
/** Callers each cache holds at most. */
const CALLERS_KEPT = 10_000;

export class AuthService {
  /**
   * Resolved credentials, kept for a moment: a page load sends a burst of calls with one token, and
   * resolving it is a catalog round trip each. A sign-out or revocation on this node drops the entry
   * at once; on other API nodes it takes effect within `cacheMs` (2 s by default; 0 turns it off).
   */
  private readonly cache: ExpiringCache<Caller>;
  /** Users resolved by id (a dashboard's owner, whose access its readers' widgets run under), kept alike. */
  private readonly users: ExpiringCache<Caller>;

  constructor(
    private readonly db: Db,
    /** Failed sign-ins per (account, address) and per account, with growing back-off. */
    private readonly throttle: FailureThrottle,
    cacheMs = 2000,
    /** Signs and verifies the Data SDK's access tokens; without it, SDK tokens are refused. */
    private readonly sdkTokens?: SdkTokens,
  ) {
    this.cache = new ExpiringCache<Caller>({ ttlMs: cacheMs, limit: CALLERS_KEPT });
    this.users = new ExpiringCache<Caller>({ ttlMs: cacheMs, limit: CALLERS_KEPT });
  }

  /** Drops cached credentials: all of them, or those of one user. */
  forget(userId?: string): void {
    const theirs = userId === undefined ? undefined : (caller: Caller) => caller.user.id === userId;
    this.users.forget(theirs);
    this.cache.forget(theirs);
  }

  /**
   * One throttled attempt of `address` at the account: while it must wait, 429 with Retry-After and
   * no password is checked. Unknown emails are throttled alike, so answers do not reveal accounts.
   */
  async signIn(email: string, password: string, address: string): Promise<IssuedSession> {
    return this.issue(await this.checkPassword(email, password, address));
  }

  /** The user whose email and password these are (throttled per account and address), or 401. */
  async checkPassword(email: string, password: string, address: string): Promise<string> {
    const normalized = email.trim().toLowerCase();
    const user = await this.db.selectFrom('users').selectAll().where('email', '=', normalized).executeTakeFirst();
    // Verify even for an unknown email so response time does not reveal which emails exist.
    const ok = await this.throttle.attempt(normalized, address, () =>
      verifyPassword(password, user?.password_hash ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='),
    );
    if (!user || !ok) throw new StudioError(401, 'Invalid email or password');
    return user.id;
  }

  /** A new session: a sign-in starts a family of its own; a refresh continues its parent's (`familyId`). */
  async issue(userId: string, familyId?: string): Promise<IssuedSession> {
    const accessToken = newToken(ACCESS_PREFIX);
    const refreshToken = newToken(REFRESH_PREFIX);
    const now = Date.now();
    const expiresAt = new Date(now + ACCESS_TTL_MS);
    const id = randomUUID();
    await this.db
      .insertInto('sessions')
      .values({
        id,
        family_id: familyId ?? id,
        user_id: userId,
        access_hash: hashToken(accessToken),
        refresh_hash: hashToken(refreshToken),
        expires_at: expiresAt,
        refresh_expires_at: new Date(now + REFRESH_TTL_MS),
      })
      .execute();
    return { accessToken, refreshToken, expiresAt, userId };
  }

  /**
   * A refresh token is single-use: its session is rotated (kept, its access token no longer accepted) and a new
   * one of the same family issued. A rotated token presented again means it has two holders, and the catalog
   * cannot tell the thief from the user (OAuth 2.0 Security BCP §4.14): the whole family ends, the rightful
   * holder's session with it, and they sign in again. Call it outside a unit of work: the family's end must be
   * kept although the call answers 401.
   */
  async refresh(refreshToken: string): Promise<IssuedSession> {
    const hash = hashToken(refreshToken);
    const issued = await atomically(this.db, async () => {
      const now = new Date();
      // Only one of two concurrent refreshes with the same token rotates it: the other finds it rotated (reuse).
      const parent = await this.db
        .updateTable('sessions')
        .set({ rotated_at: now })
        .where('refresh_hash', '=', hash)
        .where('rotated_at', 'is', null)
        .returning(['user_id', 'family_id', 'refresh_expires_at'])
        .executeTakeFirst();
      if (!parent) return null;
      if (parent.refresh_expires_at.getTime() < now.getTime()) throw new StudioError(401, 'Refresh token is invalid or expired');
      // Rotated sessions are kept only to recognise reuse; past their refresh token's life they recognise nothing.
      await this.db.deleteFrom('sessions').where('family_id', '=', parent.family_id).where('rotated_at', 'is not', null).where('refresh_expires_at', '<', now).execute();
      return this.issue(parent.user_id, parent.family_id);
    });
    if (issued) return issued;
    const reused = await this.db.deleteFrom('sessions').where('family_id', '=', this.db.selectFrom('sessions').select('family_id').where('refresh_hash', '=', hash)).returning('user_id').execute();
    if (!reused.length) throw new StudioError(401, 'Refresh token is invalid or expired');
    // This node stops the family's access tokens at once; other nodes within the auth cache's time (STUDIO_AUTH_CACHE_MS).
    this.forget(reused[0]!.user_id);
    throw new StudioError(401, 'Refresh token was already used: this sign-in session has ended', 'Sign in again');
  }

  /**
   * A new password for the caller, given the current one (checked and throttled like a sign-in, but a wrong one
   * answers 403: the session itself is fine). Every other session of the user ends, the one making the change
   * stays; API keys are left (they are revoked on their own screen).
   */
  async changePassword(caller: Caller, currentPassword: string, newPassword: string, address: string): Promise<void> {
    try {
      await this.checkPassword(caller.user.email, currentPassword, address);
    } catch (e) {
      if (e instanceof StudioError && e.status === 401) throw new StudioError(403, 'Current password is incorrect');
      throw e;
    }
    await this.db.updateTable('users').set({ password_hash: await hashPassword(newPassword) }).where('id', '=', caller.user.id).execute();
    let others = this.db.deleteFrom('sessions').where('user_id', '=', caller.user.id);
    if (caller.via === 'session') others = others.where('id', '!=', caller.credentialId);
    await others.execute();
    this.forget(caller.user.id);
  }

  /** Ends the caller's sign-in session: its whole family, so no earlier refresh token of it is kept either. */
  async signOut(caller: Caller): Promise<void> {
    this.forget(caller.user.id);
    if (caller.via === 'session') {
      await this.db.deleteFrom('sessions').where('family_id', '=', this.db.selectFrom('sessions').select('family_id').where('id', '=', caller.credentialId)).execute();
    }
  }

  /**
   * The Data SDK's token refresh: an SDK key (its refresh token) for an access token of an hour. The refresh
   * token stays the same (the SDK writes back whatever it is answered) until its key is revoked.
   */
  async exchangeSdkKey(refreshToken: string): Promise<{ accessToken: string; expiresIn: number }> {
    const refused = new StudioError(401, 'Refresh token is invalid or revoked', 'Generate an SDK key under Account → API keys');
    if (!this.sdkTokens || !refreshToken.startsWith(SDK_REFRESH_PREFIX)) throw refused;
    const key = await this.db
      .selectFrom('api_keys')
      .select(['id', 'user_id'])
      .where('key_hash', '=', hashToken(refreshToken))
      .where('kind', '=', 'sdk')
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) throw refused;
    await this.db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', key.id).execute();
    const { token, expiresIn } = await this.sdkTokens.issue({ userId: key.user_id, keyId: key.id });
    return { accessToken: token, expiresIn };
  }

  /** `Authorization: Bearer <token>` to a caller, or null when absent or the default placeholder. */
  async authenticate(header: string | undefined): Promise<Caller | null> {
    if (!header) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1] || match[1] === NOT_SIGNED_IN) return null;
    const token = match[1];
    const hash = hashToken(token);
    return this.cache.getOrLoad(hash, () => this.resolve(token, hash));
  }

  private async resolve(token: string, hash: string): Promise<Caller> {
    const memberships = sql<Selectable<MembershipsTable>[]>`coalesce((select json_agg(m) from memberships m where m.user_id = u.id), '[]'::json)`.as('memberships');
    if (looksLikeJwt(token)) {
      // An SDK access token: our signature and expiry, then its key still in use (revoking the key stops it).
      const claims = await this.sdkTokens?.verify(token);
      if (!claims) throw unauthorized('Access token is invalid or expired');
      const row = await this.db
        .selectFrom('api_keys as k')
        .innerJoin('users as u', 'u.id', 'k.user_id')
        .selectAll('u')
        .select(['k.id as credential_id', memberships])
        .where('k.id', '=', claims.keyId)
        .where('k.user_id', '=', claims.userId)
        .where('k.kind', '=', 'sdk')
        .where('k.revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) throw unauthorized('API key is invalid or revoked');
      return toCaller(row, 'sdk');
    }
    if (token.startsWith(API_KEY_PREFIX)) {
      const row = await this.db
        .selectFrom('api_keys as k')
        .innerJoin('users as u', 'u.id', 'k.user_id')
        .selectAll('u')
        .select(['k.id as credential_id', 'k.last_used_at as key_last_used_at', memberships])
        .where('k.key_hash', '=', hash)
        .where('k.kind', '=', 'api')
        .where('k.revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) throw unauthorized('API key is invalid or revoked');
      // Recording use costs a write; once a minute per key is precise enough and keeps reads cheap.
      if (!row.key_last_used_at || Date.now() - row.key_last_used_at.getTime() > 60_000) {
        await this.db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', row.credential_id).execute();
      }
      return toCaller(row, 'api-key');
    }
    const row = await this.db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .selectAll('u')
      .select(['s.id as credential_id', 's.expires_at as session_expires_at', memberships])
      .where('s.access_hash', '=', hash)
      .where('s.rotated_at', 'is', null)
      .executeTakeFirst();
    if (!row || row.session_expires_at.getTime() < Date.now()) throw unauthorized('Session is invalid or expired');
    return toCaller(row, 'session');
  }

  /** The caller a user would be, to ask what they may do (a record's next lock owner, say); null when no such user exists. */
  async callerOfExisting(userId: string): Promise<Caller | null> {
    return this.loadCaller(userId, 'session', '');
  }

  async callerOf(userId: string, via: Caller['via'], credentialId: string): Promise<Caller> {
    const caller = await this.loadCaller(userId, via, credentialId);
    if (!caller) throw unauthorized('User no longer exists');
    return caller;
  }

  /** The user and their memberships as a caller (cached by user id); null when there is no such user. */
  private async loadCaller(userId: string, via: Caller['via'], credentialId: string): Promise<Caller | null> {
    const cached = this.users.get(userId);
    if (cached) return { ...cached, via, credentialId };
    const [user, memberships] = await Promise.all([
      this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst(),
      this.db.selectFrom('memberships').selectAll().where('user_id', '=', userId).execute(),
    ]);
    if (!user) return null;
    const caller: Caller = { user, memberships, orgIds: memberships.map((m) => m.organization_id), isAdmin: user.is_admin, via, credentialId };
    this.users.set(userId, caller);
    return caller;
  }
}
