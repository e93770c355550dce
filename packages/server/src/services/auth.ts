import { randomUUID } from 'node:crypto';
import { StudioError, unauthorized } from '@studio/schema';
import type { Db } from '../store/db';
import type { Caller } from '../http/caller';
import { verifyPassword } from '../auth/passwords';
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

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  userId: string;
}

/** Sign-in, sign-out, refresh, and resolving a bearer credential to a caller. */
export class AuthService {
  constructor(private readonly db: Db) {}

  async signIn(email: string, password: string): Promise<IssuedSession> {
    const user = await this.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
    // Verify even for an unknown email so response time does not reveal which emails exist.
    const ok = await verifyPassword(password, user?.password_hash ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    if (!user || !ok) throw new StudioError(401, 'Invalid email or password');
    return this.issue(user.id);
  }

  async issue(userId: string): Promise<IssuedSession> {
    const accessToken = newToken(ACCESS_PREFIX);
    const refreshToken = newToken(REFRESH_PREFIX);
    const now = Date.now();
    const expiresAt = new Date(now + ACCESS_TTL_MS);
    await this.db
      .insertInto('sessions')
      .values({
        id: randomUUID(),
        user_id: userId,
        access_hash: hashToken(accessToken),
        refresh_hash: hashToken(refreshToken),
        expires_at: expiresAt,
        refresh_expires_at: new Date(now + REFRESH_TTL_MS),
      })
      .execute();
    return { accessToken, refreshToken, expiresAt, userId };
  }

  /** A refresh token is single-use: the old session is replaced by a new one. */
  async refresh(refreshToken: string): Promise<IssuedSession> {
    const session = await this.db
      .deleteFrom('sessions')
      .where('refresh_hash', '=', hashToken(refreshToken))
      .returning(['user_id', 'refresh_expires_at'])
      .executeTakeFirst();
    if (!session || session.refresh_expires_at.getTime() < Date.now()) throw new StudioError(401, 'Refresh token is invalid or expired');
    return this.issue(session.user_id);
  }

  async signOut(caller: Caller): Promise<void> {
    if (caller.via === 'session') await this.db.deleteFrom('sessions').where('id', '=', caller.credentialId).execute();
  }

  /** `Authorization: Bearer <token>` to a caller, or null when absent or the default placeholder. */
  async authenticate(header: string | undefined): Promise<Caller | null> {
    if (!header) return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1] || match[1] === NOT_SIGNED_IN) return null;
    const token = match[1];
    const hash = hashToken(token);
    let userId: string;
    let credentialId: string;
    let via: Caller['via'];
    if (token.startsWith(API_KEY_PREFIX)) {
      const key = await this.db
        .updateTable('api_keys')
        .set({ last_used_at: new Date() })
        .where('key_hash', '=', hash)
        .where('revoked_at', 'is', null)
        .returning(['id', 'user_id'])
        .executeTakeFirst();
      if (!key) throw unauthorized('API key is invalid or revoked');
      [userId, credentialId, via] = [key.user_id, key.id, 'api-key'];
    } else {
      const session = await this.db
        .selectFrom('sessions')
        .select(['id', 'user_id', 'expires_at'])
        .where('access_hash', '=', hash)
        .executeTakeFirst();
      if (!session || session.expires_at.getTime() < Date.now()) throw unauthorized('Session is invalid or expired');
      [userId, credentialId, via] = [session.user_id, session.id, 'session'];
    }
    return this.callerOf(userId, via, credentialId);
  }

  async callerOf(userId: string, via: Caller['via'], credentialId: string): Promise<Caller> {
    const [user, memberships] = await Promise.all([
      this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst(),
      this.db.selectFrom('memberships').selectAll().where('user_id', '=', userId).execute(),
    ]);
    if (!user) throw unauthorized('User no longer exists');
    return { user, memberships, orgIds: memberships.map((m) => m.organization_id), isAdmin: user.is_admin, via, credentialId };
  }
}
