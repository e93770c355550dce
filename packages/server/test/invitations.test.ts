import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';
import { bodyOf, useMailCatcher } from './mail-catcher';

/**
 * Pending invitations as administrators manage them (ADM-001…003) and as the invited person meets them: sent
 * again with a new link when the first was lost (the old one stops working), mailed when the studio has SMTP,
 * deleted so the link is refused.
 */
describe.each(STORES)('pending invitations, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const mail = useMailCatcher(() => ctx.s.services.config as { smtpUrl: string | null });

  const invite = (email: string, role = 'maker') => as('admin', 'POST', `/v1/organizations/${ctx.cast.org.id}/invitations/${encodeURIComponent(email)}?role=${role}`);
  const pending = async (email: string) => (await as('admin', 'GET', `/v1/organizations/invitations?email=${encodeURIComponent(email)}`)).json().items as { id: string; email: string; role: string; organizationName: string; invitedBy: string | null }[];
  const accept = (token: string, name = 'New Person') =>
    ctx.s.app.inject({ method: 'POST', url: '/v1/auth/accept-invitation', payload: { token, name, password: 'new-person-1' } });
  const audited = async (action: string) => (await ctx.s.services.db.selectFrom('audit_log').select('id').where('action', '=', action).execute()).length;

  it('lists a pending invitation with its organization and inviter; inviting again sends a new link and the old one stops working', async () => {
    const email = `lost.link.${kind}@acme.test`;
    const made = await invite(email, 'viewer');
    expect(made.statusCode).toBe(201);
    expect(made.json().item).toMatchObject({ email, role: 'viewer', emailed: false, resent: false });
    const [listed] = await pending(email);
    expect(listed).toMatchObject({ id: made.json().item.id, email, role: 'viewer', organizationName: 'Acme', invitedBy: ctx.cast.users.admin.email });

    const resends = await audited('invitation.resend');
    const again = await invite(email, 'maker');
    expect(again.json().item).toMatchObject({ id: made.json().item.id, role: 'maker', resent: true });
    expect(again.json().item.token).not.toBe(made.json().item.token);
    expect((await pending(email)).map((i) => i.role)).toEqual(['maker']);
    expect(await audited('invitation.resend')).toBe(resends + 1);

    const old = await accept(made.json().item.token);
    expect([old.statusCode, old.json().message]).toEqual([404, 'Invitation not found or already used']);
    expect((await accept(again.json().item.token)).statusCode).toBe(201);
    expect(await pending(email)).toEqual([]);
  });

  it('keeps one pending invitation per person when two are sent at once: the link that works is the one answered last', async () => {
    const email = `twice.at.once.${kind}@acme.test`;
    const answers = await Promise.all([invite(email, 'viewer'), invite(email, 'viewer'), invite(email, 'viewer')]);
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.json().item.id)).size).toBe(1);
    expect(await pending(email)).toHaveLength(1);
    // One was sent, the others sent it again, whichever way they raced (both finding none to resend and meeting
    // at the unique index included): the answers and the audit log say so.
    expect(answers.map((a) => a.json().item.resent).sort()).toEqual([false, true, true]);
    const actions = await ctx.s.services.db.selectFrom('audit_log').select('action').where('action', 'like', 'invitation.%').where(sql<string>`details->>'email'`, '=', email).execute();
    expect(actions.map((a) => a.action).sort()).toEqual(['invitation.create', 'invitation.resend', 'invitation.resend']);
    const accepted = await Promise.all(answers.map((a) => accept(a.json().item.token)));
    expect(accepted.filter((r) => r.statusCode === 201)).toHaveLength(1);
  });

  it('mails the link when SMTP is set, and the mailed link creates the account', () =>
    mail.withSmtp(async () => {
      const email = `mailed.${kind}@acme.test`;
      const before = mail.received.length;
      const made = await invite(email);
      expect(made.json().item.emailed).toBe(true);
      expect(mail.received.length - before).toBe(1);
      const sent = mail.received.at(-1)!;
      expect(sent.to).toEqual([email]);
      expect(bodyOf(sent)).toContain('join Acme');
      const link = /(http\S+\/accept-invitation\?token=\S+)/.exec(bodyOf(sent))![1]!;
      const created = await accept(new URL(link).searchParams.get('token')!, 'Mailed Person');
      expect(created.statusCode).toBe(201);
    }));

  // A loopback port nothing listens on: the connection is refused at once.
  it('fails with 502 and keeps no invitation when the mail server cannot be reached', () =>
    mail.withSmtp(async () => {
      const email = `unsent.${kind}@acme.test`;
      const res = await invite(email);
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toMatch(/^The invitation email could not be sent/);
      expect(await pending(email)).toEqual([]);
    }, 'smtp://127.0.0.1:1'));

  it('deletes a pending invitation so its link is refused; an unknown id is 404; others may neither list nor delete', async () => {
    const email = `mistaken.${kind}@acme.test`;
    const made = (await invite(email)).json().item as { id: string; token: string };
    expect((await as('owner', 'GET', '/v1/organizations/invitations')).statusCode).toBe(403);
    expect((await as('owner', 'DELETE', `/v1/organizations/invitations/${made.id}`)).statusCode).toBe(403);
    expect(await pending(email)).toHaveLength(1);

    expect((await as('admin', 'DELETE', `/v1/organizations/invitations/${made.id}`)).statusCode).toBe(204);
    expect(await pending(email)).toEqual([]);
    expect((await accept(made.token)).statusCode).toBe(404);
    const again = await as('admin', 'DELETE', `/v1/organizations/invitations/${made.id}`);
    expect([again.statusCode, again.json().message]).toEqual([404, 'Invitation not found']);
  });
});
