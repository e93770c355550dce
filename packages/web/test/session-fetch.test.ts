// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { client, readSession, sessionFetch, setSignedOutHandler, storeSession } from '../src/app/api';
import { json } from './dom';

const session = (n: number) => ({ accessToken: `access-${n}`, refreshToken: `refresh-${n}`, expiresAt: '2030-01-01T00:00:00Z' });

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('sessionFetch', () => {
  it('refreshes once on 401 and retries with the new token', async () => {
    storeSession(session(1));
    client.token = 'access-1';
    const seen: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const auth = new Headers(init?.headers).get('authorization') ?? '';
        seen.push(`${url} ${auth}`);
        if (url === '/v1/auth/refresh') return json(200, { item: { ...session(2), user: {} } });
        return auth === 'Bearer access-2' ? json(200, { item: { ok: true } }) : json(401, { appStatusCode: 401, message: 'Session is invalid or expired' });
      }),
    );
    const r = await sessionFetch('/v1/users/me', { headers: { authorization: 'Bearer access-1' } });
    expect(r.status).toBe(200);
    expect(seen).toEqual(['/v1/users/me Bearer access-1', '/v1/auth/refresh Bearer not-signed-in', '/v1/users/me Bearer access-2']);
    expect(readSession()?.refreshToken).toBe('refresh-2');
    expect(client.token).toBe('access-2');
  });

  it('drops the session and signs out when the refresh is refused', async () => {
    storeSession(session(1));
    client.token = 'access-1';
    const signedOut = vi.fn();
    setSignedOutHandler(signedOut);
    vi.stubGlobal('fetch', vi.fn(async () => json(401, { appStatusCode: 401, message: 'Refresh token is invalid or expired' })));
    const r = await sessionFetch('/v1/maps', { headers: { authorization: 'Bearer access-1' } });
    expect(r.status).toBe(401);
    expect(signedOut).toHaveBeenCalledOnce();
    expect(readSession()).toBeNull();
  });

  it('never refreshes for a failed sign-in', async () => {
    client.token = 'access-1';
    const f = vi.fn(async () => json(401, { appStatusCode: 401, message: 'Invalid email or password' }));
    vi.stubGlobal('fetch', f);
    expect((await sessionFetch('/v1/auth/sign-in', { method: 'POST' })).status).toBe(401);
    expect(f).toHaveBeenCalledOnce();
  });

  it('turns the HTML fallback page of an API path the server lacks into a 404', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } })));
    const r = await sessionFetch('/v1/data-connections');
    expect(r.status).toBe(404);
    expect(((await r.json()) as { message: string }).message).toMatch(/not available/);
  });
});
