// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { client, readSession, sessionFetch, setSignedOutHandler, storeSession } from '../src/app/api';
import { PASSWORD } from '../../server/test/harness';
import { useRealStudio } from './real-studio';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('sessionFetch against a real studio', () => {
  const { ctx, serve } = useRealStudio();
  const signIn = async () => {
    const res = await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: 'owner@acme.test', password: PASSWORD } });
    return res.json().item as { accessToken: string; refreshToken: string; expiresAt: string };
  };

  it('refreshes once on 401 and retries with the new token', async () => {
    const signedIn = await signIn();
    // The access token has run out (a token the server no longer knows); the refresh token still holds.
    storeSession({ ...signedIn, accessToken: 'access-expired' });
    client.token = 'access-expired';
    const calls = serve();
    const r = await sessionFetch('/v1/users/me', { headers: { authorization: 'Bearer access-expired' } });
    expect([r.status, ((await r.json()) as { item: { email: string } }).item.email]).toEqual([200, 'owner@acme.test']);
    expect(calls).toEqual(['/v1/users/me', '/v1/auth/refresh', '/v1/users/me']);
    const stored = readSession()!;
    // Refresh tokens are single-use: the stored one is the new one, and the client calls with the new access token.
    expect(stored.refreshToken).not.toBe(signedIn.refreshToken);
    expect(client.token).toBe(stored.accessToken);
    expect((await fetch('/v1/users/me', { headers: { authorization: `Bearer ${client.token}` } })).status).toBe(200);
  });

  it('drops the session and signs out when the refresh is refused', async () => {
    const signedIn = await signIn();
    // Signed out elsewhere: both tokens are gone on the server.
    await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-out', headers: { authorization: `Bearer ${signedIn.accessToken}` } });
    storeSession(signedIn);
    client.token = signedIn.accessToken;
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    const calls = serve();
    const r = await sessionFetch('/v1/maps', { headers: { authorization: `Bearer ${signedIn.accessToken}` } });
    expect(r.status).toBe(401);
    expect(calls).toEqual(['/v1/maps', '/v1/auth/refresh']);
    expect(signedOut).toHaveBeenCalledOnce();
    expect(readSession()).toBeNull();
  });

  it('takes the session another instance of the app stored (a tab, a map frame) instead of refreshing again', async () => {
    const first = await signIn();
    // Another instance refreshed: the server dropped `first`, and the newer session is stored.
    const newer = (await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refreshToken: first.refreshToken } })).json().item;
    storeSession(newer);
    client.token = first.accessToken;
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    const calls = serve();
    const r = await sessionFetch('/v1/users/me', { headers: { authorization: `Bearer ${first.accessToken}` } });
    expect(r.status).toBe(200);
    expect(calls).toEqual(['/v1/users/me', '/v1/users/me']);
    expect([client.token, readSession()!.refreshToken, signedOut.mock.calls.length]).toEqual([newer.accessToken, newer.refreshToken, 0]);
  });

  it('refreshes one instance at a time: one that waited for another instance to refresh takes its session', async () => {
    const first = await signIn();
    storeSession({ ...first, accessToken: 'access-expired' });
    client.token = 'access-expired';
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    const calls = serve();
    // Another instance (a tab) holds the refresh lock first and refreshes with the same single-use token. Were this
    // instance to present that token again, the server would end the whole sign-in, the other tab's session too.
    const request = async (_name: string, work: () => Promise<unknown>) => {
      storeSession((await ctx.s.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refreshToken: first.refreshToken } })).json().item);
      return work();
    };
    vi.stubGlobal('navigator', { ...navigator, locks: { request } });
    const r = await sessionFetch('/v1/users/me', { headers: { authorization: 'Bearer access-expired' } });
    expect(r.status).toBe(200);
    expect(calls).toEqual(['/v1/users/me', '/v1/users/me']);
    expect(signedOut).not.toHaveBeenCalled();
    expect(client.token).toBe(readSession()!.accessToken);
    expect((await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me', headers: { authorization: `Bearer ${client.token}` } })).statusCode).toBe(200);
  });

  it('never refreshes for a failed sign-in', async () => {
    storeSession(await signIn());
    client.token = 'access-1';
    const calls = serve();
    const body = JSON.stringify({ email: 'owner@acme.test', password: 'not the password' });
    const r = await sessionFetch('/v1/auth/sign-in', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect([r.status, ((await r.json()) as { message: string }).message]).toEqual([401, 'Invalid email or password']);
    expect(calls).toEqual(['/v1/auth/sign-in']);
  });
});

describe('sessionFetch, what a studio does not answer', () => {
  it('turns the HTML fallback page of an API path the server lacks into a 404', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } })));
    const r = await sessionFetch('/v1/data-connections');
    expect(r.status).toBe(404);
    expect(((await r.json()) as { message: string }).message).toMatch(/not available/);
  });
});
