import { apiKeyCalls, type ApiKeyKind } from '@studio/schema';
import type { HttpClient } from './http';

/** API keys: bearer tokens, and Studio Data SDK refresh tokens (kind 'sdk'). */
export function apiKeysClient(c: HttpClient) {
  return {
    list: () => c.call(apiKeyCalls.list, {}),
    /** kind 'sdk': a Studio Data SDK refresh token (v1.…) rather than a bearer token. */
    generate: (name: string, kind: ApiKeyKind = 'api') => c.call(apiKeyCalls.generate, { body: { name, kind } }).then((r) => r.item),
    update: (id: string, name: string) => c.call(apiKeyCalls.update, { body: { id, name } }).then((r) => r.item),
    revoke: (id: string) => c.call(apiKeyCalls.revoke, { body: { id } }),
  };
}
