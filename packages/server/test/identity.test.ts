import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword, verifyPassword } from '../src/auth/passwords';
import { AuthService } from '../src/services/auth';
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
    expect([again.statusCode, again.json().message]).toEqual([401, 'Refresh token was already used: this sign-in session has ended']);
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

  it('takes the scheme in any case, with spaces around the token, and nothing else around it', async () => {
    const { accessToken } = (await signIn()).json().item as { accessToken: string };
    expect((await me(`bearer   ${accessToken}  `)).statusCode).toBe(200);
    expect((await me(`Token Bearer ${accessToken}`)).statusCode).toBe(401);
    expect((await me(`Bearer ${accessToken} ${accessToken}`)).statusCode).toBe(401);
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

  it("an API key sees its user's change at once on the node that made it (remembered callers are dropped)", async () => {
    const made = await ctx.s.app.inject({ method: 'POST', url: '/v1/api-key', payload: { name: 'Fresh' }, headers: { authorization: ctx.cast.tokens.owner } });
    const key = `Bearer ${(made.json().item as { key: string }).key}`;
    const quota = async () => (await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me/quota', headers: { authorization: key } })).json().item.quotaPolicy as number;
    const before = await quota();
    const set = await ctx.s.app.inject({ method: 'PUT', url: `/v1/users/${ctx.cast.users.owner.id}/quotapolicy/${before + 7}`, headers: { authorization: ctx.cast.tokens.admin } });
    expect(set.statusCode).toBe(200);
    expect(await quota()).toBe(before + 7);
  });

  it("changes a password given the current one: a wrong one is refused and changes nothing; the other sessions end, this one stays", async () => {
    const colleague = 'colleague@acme.test';
    const [here, elsewhere] = [(await signIn(colleague)).json().item.accessToken as string, (await signIn(colleague)).json().item.accessToken as string];
    const change = (authorization: string, currentPassword: string, newPassword: string) =>
      ctx.s.app.inject({ method: 'POST', url: '/v1/auth/password', payload: { currentPassword, newPassword }, headers: { authorization: `Bearer ${authorization}` } });

    const wrong = await change(here, 'not my password', 'a-new-password-1');
    expect([wrong.statusCode, wrong.json().message]).toEqual([403, 'Current password is incorrect']);
    const short = await change(here, PASSWORD, 'short');
    expect([short.statusCode, short.json().message]).toEqual([422, 'Invalid request body: newPassword: Password must have at least 8 characters']);
    expect((await me(`Bearer ${elsewhere}`)).statusCode).toBe(200);
    expect((await signIn(colleague)).statusCode).toBe(200);

    expect((await change(here, PASSWORD, 'a-new-password-1')).statusCode).toBe(204);
    expect((await me(`Bearer ${here}`)).statusCode).toBe(200);
    expect((await me(`Bearer ${elsewhere}`)).statusCode).toBe(401);
    expect((await signIn(colleague)).statusCode).toBe(401);
    expect((await signIn(colleague, 'a-new-password-1')).statusCode).toBe(200);
    const audit = await ctx.s.services.db.selectFrom('audit_log').select('action').where('action', '=', 'auth.password-change').execute();
    expect(audit).toHaveLength(1);
    // Back as it was for the tests after this one.
    expect((await change(here, 'a-new-password-1', PASSWORD)).statusCode).toBe(204);
  });

  describe('credentials remembered for a moment (another API node)', () => {
    afterEach(() => vi.useRealTimers());
    // A second node over the same catalog: it learns of a sign-out elsewhere only when its memory runs out.
    const node = (cacheMs: number) => new AuthService(ctx.s.services.db, ctx.s.services.limits.signIn, cacheMs);
    const session = async (email: string) => (await signIn(email)).json().item.accessToken as string;
    const dropSession = async (token: string) => ctx.s.services.db.deleteFrom('sessions').where('access_hash', '=', sha256(token)).execute();
    const resolves = (n: AuthService, token: string) => n.authenticate(`Bearer ${token}`).then((c) => c?.user.email, (e: Error) => e.message);

    it('keeps a credential for cacheMs, then asks the catalog again', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const other = node(2000);
      const token = await session('owner@acme.test');
      expect(await resolves(other, token)).toBe('owner@acme.test');
      await dropSession(token);
      vi.setSystemTime(Date.now() + 1500);
      expect(await resolves(other, token)).toBe('owner@acme.test');
      vi.setSystemTime(Date.now() + 1000);
      expect(await resolves(other, token)).toBe('Session is invalid or expired');
    });

    it('with cacheMs 0 a sign-out elsewhere takes effect at once', async () => {
      const other = node(0);
      const token = await session('owner@acme.test');
      expect(await resolves(other, token)).toBe('owner@acme.test');
      await dropSession(token);
      expect(await resolves(other, token)).toBe('Session is invalid or expired');
    });

    it("forgets one user's credentials without forgetting everyone's", async () => {
      const other = node(60_000);
      const [mine, theirs] = [await session('owner@acme.test'), await session('editor@globex.test')];
      expect([await resolves(other, mine), await resolves(other, theirs)]).toEqual(['owner@acme.test', 'editor@globex.test']);
      await Promise.all([dropSession(mine), dropSession(theirs)]);
      other.forget(ctx.cast.users.owner.id);
      expect([await resolves(other, mine), await resolves(other, theirs)]).toEqual(['Session is invalid or expired', 'editor@globex.test']);
      other.forget();
      expect(await resolves(other, theirs)).toBe('Session is invalid or expired');
    });

    it('signing out on a node forgets the credential there at once', async () => {
      const other = node(60_000);
      const token = await session('owner@acme.test');
      const caller = (await other.authenticate(`Bearer ${token}`))!;
      await other.signOut(caller);
      expect(await resolves(other, token)).toBe('Session is invalid or expired');
    });

    it('records the use of an API key at most once a minute', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const made = await ctx.s.app.inject({ method: 'POST', url: '/v1/api-key', payload: { name: 'Minutely' }, headers: { authorization: ctx.cast.tokens.owner } });
      const { id, key } = made.json().item as { id: string; key: string };
      const lastUsed = async () => (await ctx.s.services.db.selectFrom('api_keys').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at?.getTime();
      const other = node(0);
      await resolves(other, key);
      const first = await lastUsed();
      vi.setSystemTime(Date.now() + 30_000);
      await resolves(other, key);
      expect(await lastUsed()).toBe(first);
      vi.setSystemTime(Date.now() + 31_000);
      await resolves(other, key);
      expect(await lastUsed()).toBeGreaterThan(first! + 60_000);
    });

    it('refuses a user who no longer exists', async () => {
      await expect(ctx.s.services.auth.callerOf('00000000-0000-4000-8000-000000000000', 'session', '')).rejects.toThrow('User no longer exists');
    });
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
