import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/auth/passwords';
import { PASSWORD, STORES, useStudio } from './harness';

/**
 * Identity and sessions as the person signing in meets them (#12, the `identity-sessions` mutation
 * module): how long a session lasts, what a refresh does, what an expired or foreign credential gets,
 * and what the catalog keeps of passwords and tokens (never the secret itself).
 */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const HOUR = 60 * 60 * 1000;

describe.each(STORES)('identity and sessions, on %s', (kind) => {
  const { ctx } = useStudio(kind);
  const signIn = async (email = 'owner@acme.test', password = PASSWORD) =>
    ctx.s.app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email, password } });
  const me = (authorization?: string) => ctx.s.app.inject({ method: 'GET', url: '/v1/users/me', headers: authorization === undefined ? {} : { authorization } });
  const refresh = (refreshToken: string) => ctx.s.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refreshToken } });
  const sessionRow = (accessToken: string) => ctx.s.services.db.selectFrom('sessions').selectAll().where('access_hash', '=', sha256(accessToken)).executeTakeFirstOrThrow();

  it('signs in whatever the case and spacing of the email; the session lasts 12 hours, its refresh 30 days', async () => {
    const before = Date.now();
    const res = await signIn('  Owner@ACME.test ');
    const { accessToken, refreshToken, expiresAt } = res.json().item as { accessToken: string; refreshToken: string; expiresAt: string };
    expect([accessToken.startsWith('sat_'), refreshToken.startsWith('srt_')]).toEqual([true, true]);
    expect(new Date(expiresAt).getTime() - before).toBeGreaterThanOrEqual(12 * HOUR - 1000);
    expect(new Date(expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(12 * HOUR);
    const row = await sessionRow(accessToken);
    // Only hashes are kept: the catalog cannot give the tokens away.
    expect([row.access_hash, row.refresh_hash]).toEqual([sha256(accessToken), sha256(refreshToken)]);
    expect(JSON.stringify(row)).not.toContain(accessToken.slice(4));
    expect(row.refresh_expires_at.getTime() - before).toBeGreaterThanOrEqual(30 * 24 * HOUR - 1000);
    expect(row.refresh_expires_at.getTime() - Date.now()).toBeLessThanOrEqual(30 * 24 * HOUR);
    expect((await me(`Bearer ${accessToken}`)).json().item.email).toBe('owner@acme.test');
  });

  it('refuses a wrong password and an unknown email alike', async () => {
    for (const [email, password] of [['owner@acme.test', 'wrong password'], ['nobody@acme.test', PASSWORD]]) {
      const res = await signIn(email, password);
      expect([res.statusCode, res.json().message]).toEqual([401, 'Invalid email or password']);
    }
  });

  it('a refresh token is single-use and replaces the session it came with', async () => {
    const first = (await signIn()).json().item as { accessToken: string; refreshToken: string };
    const next = await refresh(first.refreshToken);
    expect(next.statusCode).toBe(200);
    const second = next.json().item as { accessToken: string; refreshToken: string };
    expect((await me(`Bearer ${second.accessToken}`)).statusCode).toBe(200);
    expect((await me(`Bearer ${first.accessToken}`)).json().message).toBe('Session is invalid or expired');
    const again = await refresh(first.refreshToken);
    expect([again.statusCode, again.json().message]).toEqual([401, 'Refresh token is invalid or expired']);
  });

  it('an access token past its time stops working; a refresh token past its time cannot renew it', async () => {
    const { accessToken, refreshToken } = (await signIn()).json().item as { accessToken: string; refreshToken: string };
    const { id } = await sessionRow(accessToken);
    await ctx.s.services.db.updateTable('sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', id).execute();
    ctx.s.services.auth.forget();
    const expired = await me(`Bearer ${accessToken}`);
    expect([expired.statusCode, expired.json().message]).toEqual([401, 'Session is invalid or expired']);
    await ctx.s.services.db.updateTable('sessions').set({ refresh_expires_at: new Date(Date.now() - 1000) }).where('id', '=', id).execute();
    const late = await refresh(refreshToken);
    expect([late.statusCode, late.json().message]).toEqual([401, 'Refresh token is invalid or expired']);
  });

  it.each([
    ['no header', undefined, 'Not signed in'],
    ["the client's placeholder before sign-in", 'Bearer not-signed-in', 'Not signed in'],
    ['another scheme', `Basic ${Buffer.from('owner@acme.test:x').toString('base64')}`, 'Not signed in'],
    ['a made-up token', 'Bearer sat_made-up', 'Session is invalid or expired'],
    ['a made-up API key', 'Bearer sk_made-up', 'API key is invalid or revoked'],
  ])('answers %s with 401 and why', async (_, header, message) => {
    const res = await me(header);
    expect([res.statusCode, res.json().message]).toEqual([401, message]);
  });

  it('takes the scheme in any case, with spaces around the token', async () => {
    const { accessToken } = (await signIn()).json().item as { accessToken: string };
    expect((await me(`bearer   ${accessToken}  `)).statusCode).toBe(200);
  });

  it('an API key records when it was last used', async () => {
    const made = await ctx.s.app.inject({ method: 'POST', url: '/v1/api-key', payload: { name: 'Used' }, headers: { authorization: ctx.cast.tokens.owner } });
    const { id, key } = made.json().item as { id: string; key: string };
    const listed = async () => (await ctx.s.app.inject({ method: 'GET', url: '/v1/api-key', headers: { authorization: ctx.cast.tokens.owner } })).json().items.find((k: { id: string }) => k.id === id);
    expect((await listed()).lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await me(`Bearer ${key}`)).statusCode).toBe(200);
    expect(new Date((await listed()).lastUsedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe('password hashes', () => {
  it('are scrypt (N=2^15, r=8, p=1) with a 16-byte salt and a 32-byte key, salted differently each time', async () => {
    const [a, b] = [await hashPassword('hunter2 hunter2'), await hashPassword('hunter2 hunter2')];
    const [scheme, n, r, p, salt, key] = a.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect([Buffer.from(salt!, 'base64').length, Buffer.from(key!, 'base64').length]).toEqual([16, 32]);
    expect(a).not.toBe(b);
    expect([await verifyPassword('hunter2 hunter2', a), await verifyPassword('hunter2 hunter2', b)]).toEqual([true, true]);
  });

  it.each([
    ['a wrong password', 'hunter3 hunter3', true],
    ['no stored hash (an invited account)', 'hunter2 hunter2', false],
  ])('refuses %s', async (_, password, stored) => {
    expect(await verifyPassword(password, stored ? await hashPassword('hunter2 hunter2') : null)).toBe(false);
  });

  it('refuses a hash of another scheme, or one missing its salt or key', async () => {
    const good = await hashPassword('x');
    const [, n, r, p, salt, key] = good.split('$');
    for (const stored of [`bcrypt$${n}$${r}$${p}$${salt}$${key}`, `scrypt$${n}$${r}$${p}$$${key}`, `scrypt$${n}$${r}$${p}$${salt}$`]) {
      expect(await verifyPassword('x', stored)).toBe(false);
    }
  });
});
