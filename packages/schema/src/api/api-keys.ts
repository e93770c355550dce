import { itemOf, itemsOf } from '../common';
import { ApiKey, ApiKeyCreate, ApiKeyRevoke, ApiKeyUpdate } from '../identity';
import { contract } from './contract';

/** API keys work as bearer tokens; the key itself is answered once, at generation, and stored hashed. */
export const apiKeyCalls = {
  list: contract({ spec: ['CAT-004'], method: 'GET', url: '/v1/api-key', response: itemsOf(ApiKey), summary: "The caller's API keys (never the keys themselves)", tag: 'api-keys', auth: 'user' }),
  generate: contract({
    spec: ['CAT-005'],
    method: 'POST',
    url: '/v1/api-key',
    response: itemOf(ApiKey),
    summary:
      'Generate an API key; the answer is the only time the key is shown. kind "sdk": a Studio Data SDK refresh token (v1.…), exchanged at /sdk/oauth/token. Only a signed-in session may generate keys: with an API key or an SDK access token, 403 (a key minted by a key would outlive its revocation)',
    tag: 'api-keys',
    auth: 'user',
    body: ApiKeyCreate,
    status: 201,
  }),
  update: contract({ spec: ['CAT-006'], method: 'PUT', url: '/v1/api-key', response: itemOf(ApiKey), summary: 'Rename an API key', tag: 'api-keys', auth: 'user', body: ApiKeyUpdate }),
  revoke: contract({ spec: ['CAT-007'], method: 'DELETE', url: '/v1/api-key', summary: 'Revoke an API key (body {id}); it stops working at once', tag: 'api-keys', auth: 'user', body: ApiKeyRevoke, status: 204 }),
};
