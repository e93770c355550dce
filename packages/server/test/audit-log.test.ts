import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * The audit log as an administrator reads it (ADM-004): narrowed by who, an action or its family, resource and
 * days, and downloaded as CSV with exactly the entries the same filter shows.
 */
describe.each(STORES)('audit log filters and CSV export, on %s', (kind) => {
  const { ctx, as } = useStudio(kind);
  const entries = async (query: string) => {
    const res = await as('admin', 'GET', `/v1/admin/audit-logs?limit=1000&${query}`);
    expect(res.statusCode).toBe(200);
    return res.json().items as { action: string; actorEmail: string | null; resourceType: string; resourceId: string | null }[];
  };
  const today = () => new Date().toISOString().slice(0, 10);
  const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

  it('narrows by an action family, one action, who did it, the resource and the days', async () => {
    const org = ctx.cast.org.id;
    await as('admin', 'POST', `/v1/organizations/${org}/invitations/${encodeURIComponent(`audit.one.${kind}@acme.test`)}`);
    await as('admin', 'POST', `/v1/organizations/${org}/invitations/${encodeURIComponent(`audit.one.${kind}@acme.test`)}`);
    const renamed = await as('admin', 'PUT', `/v1/organizations/${org}`, { name: 'Acme' });
    expect(renamed.statusCode).toBe(200);

    const family = await entries('action=invitation');
    expect(family.length).toBeGreaterThanOrEqual(2);
    expect(new Set(family.map((e) => e.action))).toEqual(new Set(['invitation.create', 'invitation.resend']));
    expect((await entries('action=invitation.resend')).every((e) => e.action === 'invitation.resend')).toBe(true);
    // What is typed is matched as itself: a LIKE wildcard is no wildcard.
    expect(await entries('action=invit%25')).toEqual([]);
    expect(await entries('action=invitation.%25')).toEqual([]);

    const byAdmin = await entries(`actorEmail=${encodeURIComponent('ADMIN@acme.test')}`);
    expect(byAdmin.length).toBeGreaterThanOrEqual(3);
    expect(byAdmin.every((e) => e.actorEmail === 'admin@acme.test')).toBe(true);
    expect(await entries(`actorEmail=${encodeURIComponent('owner@acme.test')}&action=invitation`)).toEqual([]);

    const onOrg = await entries(`resourceType=organization&resourceId=${org}&action=organization.update`);
    expect(onOrg.map((e) => e.action)).toEqual(['organization.update']);
    expect((await entries(`from=${today()}&to=${today()}&action=organization.update`)).length).toBe(1);
    expect(await entries(`to=${dayOffset(-1)}&action=organization.update`)).toEqual([]);
    expect(await entries(`from=${dayOffset(1)}`)).toEqual([]);
  });

  it('downloads as CSV every entry the filter shows, with a header, for administrators only', async () => {
    const filter = 'action=invitation';
    const shown = await entries(filter);
    const res = await as('admin', 'GET', `/v1/admin/audit-logs?format=csv&${filter}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = res.body.trimEnd().split('\n');
    expect(lines[0]).toBe('When (UTC),Who,Action,Resource type,Resource id,Details');
    expect(lines.length - 1).toBe(shown.length);
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(shown.map((e) => e.action));
    // Accept: text/csv asks for the same file.
    const accepted = await as('admin', 'GET', `/v1/admin/audit-logs?${filter}`, undefined, { accept: 'text/csv' });
    expect(accepted.body).toBe(res.body);
    expect((await as('owner', 'GET', '/v1/admin/audit-logs?format=csv')).statusCode).toBe(403);
  });

  it('refuses a day that is not a date and an unknown format with 422', async () => {
    const bad = await as('admin', 'GET', '/v1/admin/audit-logs?from=27/11/2026');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('From must be a date (YYYY-MM-DD)');
    expect((await as('admin', 'GET', '/v1/admin/audit-logs?format=xlsx')).statusCode).toBe(422);
  });
});
