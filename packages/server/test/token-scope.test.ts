import { describe, expect, it } from 'vitest';
import { PASSWORD, STORES, useStudio } from './harness';

/**
 * What each credential reaches (#45, "tokens with a scope"): a Data SDK access token calls the /sdk routes
 * only; keys are minted from a signed-in session only, so none outlives the revocation of the key that made
 * it; a refresh token presented a second time ends its whole sign-in session, the rightful holder's too.
 */
type Session = { accessToken: string; refreshToken: string };

describe.each(STORES)('credential scopes, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const call = (method: string, url: string, authorization: string, payload?: object) =>
    ctx.s.app.inject({ method: method as 'GET', url, payload, headers: { authorization } });
  const signIn = async (): Promise<Session> =>
    (await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'owner@acme.test', password: PASSWORD } })).json().item;
  const refresh = (refreshToken: string) => ctx.s.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refreshToken } });
  const me = (accessToken: string) => call('GET', '/v1/users/me', `Bearer ${accessToken}`);
  const apiKey = async (kind: 'api' | 'sdk' = 'api') => {
    const res = await as('owner', 'POST', '/v1/api-key', { name: `Script ${kind}`, kind });
    expect(res.statusCode).toBe(201);
    return res.json().item as { id: string; key: string };
  };
  const sdkAccessToken = async () => {
    const { key } = await apiKey('sdk');
    const res = await ctx.s.app.inject({ method: 'POST', url: '/sdk/oauth/token', payload: { grant_type: 'refresh_token', client_id: 'x', refresh_token: key } });
    return `Bearer ${res.json().access_token as string}`;
  };

  it.each([
    ['GET', '/v1/users/me', undefined],
    ['GET', '/v1/datasets', undefined],
    ['GET', '/v1/api-key', undefined],
    ['POST', '/v1/api-key', { name: 'Minted by the SDK' }],
    ['POST', '/v1/api-key', { name: 'Minted by the SDK', kind: 'sdk' }],
  ])('a Data SDK access token is refused on %s %s, accepted on /sdk', async (method, url, body) => {
    const token = await sdkAccessToken();
    const res = await call(method, url, token, body);
    expect([res.statusCode, res.json().message]).toEqual([403, 'A Data SDK access token works only on the /sdk routes']);
    expect((await as('owner', 'GET', '/v1/api-key')).json().items.map((k: { name: string }) => k.name)).not.toContain('Minted by the SDK');
    // The same token still does the SDK's own calls.
    expect((await call('GET', '/sdk/v1/datasets', token)).statusCode).toBe(200);
  });

  it.each(['api', 'sdk'] as const)('an API key cannot mint a key (kind %s) that would outlive it; a session can', async (minted) => {
    const parent = await apiKey('api');
    const bearer = `Bearer ${parent.key}`;
    expect((await me(parent.key)).statusCode).toBe(200);
    const refused = await call('POST', '/v1/api-key', bearer, { name: 'Child', kind: minted });
    expect([refused.statusCode, refused.json().message]).toEqual([403, 'API keys can be generated only from a signed-in session, not with another API key']);
    expect((await as('owner', 'GET', '/v1/api-key')).json().items.map((k: { name: string }) => k.name)).not.toContain('Child');
    // The key still manages what exists: renaming and revoking mint nothing.
    expect((await call('PUT', '/v1/api-key', bearer, { id: parent.id, name: 'Renamed by itself' })).statusCode).toBe(200);
    expect((await as('owner', 'POST', '/v1/api-key', { name: 'From the session', kind: minted })).statusCode).toBe(201);
  });

  it('a reused refresh token ends its whole sign-in session, and only that one', async () => {
    const first = await signIn();
    const elsewhere = await signIn();
    const second = (await refresh(first.refreshToken)).json().item as Session;
    const third = (await refresh(second.refreshToken)).json().item as Session;
    // Resolved once, so the cache holds it: the family's end must not wait for the cache.
    expect((await me(third.accessToken)).statusCode).toBe(200);

    const reused = await refresh(first.refreshToken);
    expect([reused.statusCode, reused.json().message]).toEqual([401, 'Refresh token was already used: this sign-in session has ended']);
    expect((await me(third.accessToken)).json().message).toBe('Session is invalid or expired');
    const latest = await refresh(third.refreshToken);
    expect([latest.statusCode, latest.json().message]).toEqual([401, 'Refresh token is invalid or expired']);
    expect((await refresh(second.refreshToken)).statusCode).toBe(401);
    // Another sign-in of the same user is another family.
    expect((await me(elsewhere.accessToken)).statusCode).toBe(200);
    expect((await refresh(elsewhere.refreshToken)).statusCode).toBe(200);
  });
});
