import { randomUUID } from 'node:crypto';
import { notFound } from '@studio/schema';
import type { Db } from '../store/db';
import { sendMail, type MailConfig } from './mail';
import type { Caller } from '../http/caller';
import { hashPassword } from '../auth/passwords';
import { hashToken, newToken } from '../auth/tokens';
import type { AuthService } from './auth';

/** How long a reset link works. */
export const RESET_TTL_MS = 60 * 60 * 1000;
const RESET_PREFIX = 'spr_';
const INVALID_LINK = 'Reset link is invalid, used or expired';

export interface ResetLink {
  url: string;
  expiresAt: Date;
}

/**
 * Forgotten passwords. With SMTP (SMTP_URL) a user asks for a link by email; without it an administrator issues
 * one from the Users screen and hands it over. Either way the link holds a random token (only its hash is kept)
 * that sets a new password once within an hour, ends every session of the account and every other link.
 */
export class PasswordResetService {
  constructor(
    private readonly db: Db,
    private readonly config: MailConfig,
    private readonly auth: AuthService,
  ) {}

  /** Whether a user asking for a link gets it by email here. */
  get mails(): boolean {
    return Boolean(this.config.smtpUrl);
  }

  /**
   * A user's request by email address: mailed when the address is an account's and SMTP is set. The caller
   * answers the same in every case, so the answer does not tell which addresses have accounts.
   */
  async request(email: string): Promise<void> {
    if (!this.config.smtpUrl) return;
    const user = await this.db.selectFrom('users').select(['id', 'email', 'name']).where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
    if (!user) return;
    const link = await this.issue(user.id, null);
    await sendMail(this.config, [
      {
        to: user.email,
        subject: 'Reset your Studio password',
        text: [
          `Hello ${user.name || user.email},`,
          `Someone (we hope you) asked to reset the password of this Studio account. Set a new one here within an hour: ${link.url}`,
          'If it was not you, ignore this message: your password stays as it is.',
        ].join('\n\n'),
      },
    ]);
  }

  /** An administrator's link for a user; 404 for no such user. */
  async issueFor(userId: string, by: Caller): Promise<ResetLink> {
    const user = await this.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!user) throw notFound('User not found');
    return this.issue(user.id, by);
  }

  /** A new link for `userId` (issued by an administrator, or null for the user's own request). */
  private async issue(userId: string, by: Caller | null): Promise<ResetLink> {
    const token = newToken(RESET_PREFIX);
    const expiresAt = new Date(Date.now() + RESET_TTL_MS);
    await this.db
      .insertInto('password_resets')
      .values({ id: randomUUID(), user_id: userId, token_hash: hashToken(token), expires_at: expiresAt, issued_by: by?.user.id ?? null })
      .execute();
    return { url: `${this.config.publicUrl.replace(/\/$/, '')}/reset-password?token=${encodeURIComponent(token)}`, expiresAt };
  }

  /** Sets the new password of the link's account; the link, the account's other links and its sessions end. Answers the user id. */
  async complete(token: string, newPassword: string): Promise<string> {
    const hash = await hashPassword(newPassword);
    // Claimed by one statement: of two uses at once, only one finds the link unused.
    const row = await this.db
      .updateTable('password_resets')
      .set({ used_at: new Date() })
      .where('token_hash', '=', hashToken(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning('user_id')
      .executeTakeFirst();
    if (!row) throw notFound(INVALID_LINK);
    await this.db.updateTable('users').set({ password_hash: hash }).where('id', '=', row.user_id).execute();
    await this.db.updateTable('password_resets').set({ used_at: new Date() }).where('user_id', '=', row.user_id).where('used_at', 'is', null).execute();
    await this.db.deleteFrom('sessions').where('user_id', '=', row.user_id).execute();
    this.auth.forget(row.user_id);
    return row.user_id;
  }
}
