import { describe, expect, it, vi } from 'vitest';
import { PASSWORD, STORES, useStudio } from './harness';
import { bodyOf, useMailCatcher } from './mail-catcher';
import { RESET_TTL_MS } from '../src/services/password-resets';

/**
 * A forgotten password, as the person who forgot it and an administrator meet it: a link by email when the
 * studio has SMTP, else from an administrator; it works once, for an hour, and ends every session.
 */
describe.each(STORES)('password reset, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const mail = useMailCatcher(() => ctx.s.services.config as { smtpUrl: string | null });

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => ctx.s.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const signIn = (email: string, password: string) => post('/v1/auth/sign-in', { email, password });
  const reset = (token: string, newPassword: string) => post('/v1/auth/password-reset', { token, newPassword });
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

  it('mails a link to an account when SMTP is set, and answers an unknown address the same while sending nothing', () =>
    mail.withSmtp(async () => {
      const before = mail.received.length;
      const known = await post('/v1/auth/password-reset/request', { email: ' Colleague@ACME.test ' });
      const unknown = await post('/v1/auth/password-reset/request', { email: 'nobody@acme.test' });
      expect([known.statusCode, unknown.statusCode]).toEqual([202, 202]);
      expect(known.body).toBe(unknown.body);
      expect(known.json().item).toEqual({ emailed: true });
      expect(mail.received.length - before).toBe(1);
      const sent = mail.received.at(-1)!;
      expect(sent.to).toEqual(['colleague@acme.test']);
      const link = /(http\S+\/reset-password\?token=\S+)/.exec(bodyOf(sent))![1]!;
      expect((await reset(tokenOf(link), 'colleague-new-1')).statusCode).toBe(204);
      expect((await signIn('colleague@acme.test', PASSWORD)).statusCode).toBe(401);
      expect((await signIn('colleague@acme.test', 'colleague-new-1')).statusCode).toBe(200);
      // The catalog keeps only the token's hash.
      const rows = await ctx.s.services.db.selectFrom('password_resets').select('token_hash').execute();
      expect(rows.some((r) => r.token_hash === tokenOf(link))).toBe(false);
    }));

  it("without SMTP nothing is mailed, and an administrator's link sets the password once; the account's sessions end", async () => {
    const before = mail.received.length;
    const asked = await post('/v1/auth/password-reset/request', { email: 'editor@globex.test' });
    expect([asked.statusCode, asked.json().item]).toEqual([202, { emailed: false }]);
    expect(mail.received.length).toBe(before);

    const editor = ctx.cast.users.editor.id;
    expect((await as('owner', 'POST', `/v1/admin/users/${editor}/password-reset`)).statusCode).toBe(403);
    const issued = await as('admin', 'POST', `/v1/admin/users/${editor}/password-reset`);
    expect(issued.statusCode).toBe(201);
    const { url, expiresAt } = issued.json().item as { url: string; expiresAt: string };
    expect(new Date(expiresAt).getTime() - Date.now()).toBeGreaterThan(RESET_TTL_MS - 60_000);
    expect((await as('admin', 'POST', `/v1/admin/users/00000000-0000-4000-8000-000000000000/password-reset`)).statusCode).toBe(404);

    const short = await reset(tokenOf(url), 'short');
    expect(short.statusCode).toBe(422);
    expect((await as('editor', 'GET', '/v1/users/me')).statusCode).toBe(200);
    expect((await reset(tokenOf(url), 'editor-new-pass-1')).statusCode).toBe(204);
    // Signed out everywhere; the new password signs in, and the link does not work twice.
    expect((await as('editor', 'GET', '/v1/users/me')).statusCode).toBe(401);
    const again = await reset(tokenOf(url), 'editor-new-pass-2');
    expect([again.statusCode, again.json().message]).toEqual([404, 'Reset link is invalid, used or expired']);
    const fresh = await signIn('editor@globex.test', 'editor-new-pass-1');
    expect(fresh.statusCode).toBe(200);
    ctx.cast.tokens.editor = `Bearer ${fresh.json().item.accessToken}`;
    const audit = await ctx.s.services.db.selectFrom('audit_log').select('action').where('action', 'in', ['user.password-reset-link', 'auth.password-reset']).where('resource_id', '=', editor).execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['auth.password-reset', 'user.password-reset-link']);
  });

  it('a link past its hour, or superseded by a reset through another link, is refused', async () => {
    const viewer = ctx.cast.users.viewer.id;
    const first = tokenOf((await as('admin', 'POST', `/v1/admin/users/${viewer}/password-reset`)).json().item.url);
    const second = tokenOf((await as('admin', 'POST', `/v1/admin/users/${viewer}/password-reset`)).json().item.url);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + RESET_TTL_MS + 1000);
      expect((await reset(first, 'viewer-new-pass-1')).statusCode).toBe(404);
    } finally {
      vi.useRealTimers();
    }
    expect((await reset(second, 'viewer-new-pass-1')).statusCode).toBe(204);
    expect((await reset(first, 'viewer-new-pass-2')).statusCode).toBe(404);
    const fresh = await signIn('viewer@globex.test', 'viewer-new-pass-1');
    ctx.cast.tokens.viewer = `Bearer ${fresh.json().item.accessToken}`;
  });

  it('refuses a flood of requests from one address with 429', async () => {
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push((await post('/v1/auth/password-reset/request', { email: `flood${i}@acme.test` }, { 'x-forwarded-for': '127.0.0.9' })).statusCode);
    expect(answers.slice(-2)).toContain(429);
  });
});
