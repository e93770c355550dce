import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { notFound, type ApiKey, type ApiKeyKind } from '@studio/schema';
import { API_KEY_PREFIX, hashToken, newToken } from '../auth/tokens';
import { SDK_REFRESH_PREFIX } from '../auth/sdk-tokens';
import type { Db } from '../store/db';
import type { ApiKeysTable } from '../store/tables';

const toWire = (k: Selectable<ApiKeysTable>, key?: string): ApiKey => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  prefix: k.prefix,
  createdAt: new Date(k.created_at).toISOString(),
  lastUsedAt: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
  ...(key && { key }),
});

/**
 * A user's API keys: bearer tokens that act as the user (services/auth.ts accepts them). The key itself is
 * answered once, when generated, and stored only as its hash; its first characters stay as a label. A
 * revoked key is kept (the audit trail names it) but never listed or accepted again.
 */
export class ApiKeyService {
  constructor(private readonly db: Db) {}

  /** The user's keys in use, newest first, without the keys. */
  async list(userId: string): Promise<ApiKey[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).where('revoked_at', 'is', null).orderBy('created_at', 'desc').execute();
    return rows.map((r) => toWire(r));
  }

  /** A new key for the user: the only answer that holds the key. An `sdk` key is the Data SDK's refresh token. */
  async generate(userId: string, name: string, kind: ApiKeyKind = 'api'): Promise<ApiKey> {
    const key = newToken(kind === 'sdk' ? SDK_REFRESH_PREFIX : API_KEY_PREFIX);
    const row = await this.db
      .insertInto('api_keys')
      .values({ id: randomUUID(), user_id: userId, name, kind, prefix: key.slice(0, 10), key_hash: hashToken(key) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toWire(row, key);
  }

  /** Renames one of the user's keys in use; 404 for another's, a revoked or an unknown key. */
  async rename(userId: string, id: string, name: string): Promise<ApiKey> {
    const row = await this.db.updateTable('api_keys').set({ name }).where('id', '=', id).where('user_id', '=', userId).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
    if (!row) throw notFound('API key not found');
    return toWire(row);
  }

  /** Revokes one of the user's keys in use; 404 as for rename. */
  async revoke(userId: string, id: string): Promise<void> {
    const r = await this.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw notFound('API key not found');
  }
}
