import { describe, expect, it } from 'vitest';
import { STORES, useStudio } from './harness';

/**
 * Legal agreements: the built-in texts bind everyone without asking; a version an administrator publishes —
 * for everyone or one organization — is pending for each user it binds until they consent, and consent is
 * recorded per user and version.
 */
describe.each(STORES)('legal agreements on %s', (kind) => {
  const { as, ctx } = useStudio(kind);

  it('asks nothing for the built-in texts, and answers them with their consent state', async () => {
    expect((await as('owner', 'GET', '/v1/legal/pending')).json().items).toEqual([]);
    expect((await as('owner', 'GET', '/v1/legal/studio-tos')).json().item).toMatchObject({ id: 'studio-tos', version: '2026-01', title: 'Studio terms of use' });
    expect((await as('owner', 'GET', '/v1/legal/latest/fsq-bi/consent')).json().item).toEqual({ agreementId: 'fsq-bi', version: '2026-01', consentedAt: null });
  });

  it("binds one organization's members to a version published for it, until each consents; others are not asked", async () => {
    const published = await as('admin', 'POST', '/v1/admin/legal/studio-tos', { title: 'Acme terms', text: 'Acme data stays in Acme.', organizationId: ctx.cast.org.id });
    expect(published.statusCode, published.body).toBe(201);
    const { version } = published.json().item;
    // The owner is in Acme; the outsider is in Globex.
    expect((await as('owner', 'GET', '/v1/legal/pending')).json().items).toEqual([{ id: 'studio-tos', version, title: 'Acme terms', text: 'Acme data stays in Acme.' }]);
    expect((await as('outsider', 'GET', '/v1/legal/pending')).json().items).toEqual([]);
    expect((await as('outsider', 'GET', '/v1/legal/studio-tos')).json().item.version).toBe('2026-01');

    const consent = await as('owner', 'POST', '/v1/legal/studio-tos/consent');
    expect(consent.json().item).toMatchObject({ agreementId: 'studio-tos', version, consentedAt: expect.any(String) });
    expect((await as('owner', 'GET', '/v1/legal/pending')).json().items).toEqual([]);
    expect((await as('owner', 'GET', '/v1/legal/latest/studio-tos/consent')).json().item.consentedAt).toBe(consent.json().item.consentedAt);
    const audit = (await as('admin', 'GET', '/v1/admin/audit-logs?limit=20')).json().items.map((e: { action: string }) => e.action);
    expect(audit).toEqual(expect.arrayContaining(['legal.publish', 'legal.consent']));

    // A newer version for everyone asks again, the owner included.
    const everyone = await as('admin', 'POST', '/v1/admin/legal/studio-tos', { title: 'Terms, 2027', text: 'New terms for all.' });
    expect((await as('owner', 'GET', '/v1/legal/pending')).json().items.map((a: { version: string }) => a.version)).toEqual([everyone.json().item.version]);
    expect((await as('outsider', 'GET', '/v1/legal/pending')).json().items.map((a: { title: string }) => a.title)).toEqual(['Terms, 2027']);
  });

  it.each([
    ['a non-administrator', 'owner', '/v1/admin/legal/studio-tos', { title: 'x', text: 'y' }, 403],
    ['an unknown agreement', 'admin', '/v1/admin/legal/not-an-agreement', { title: 'x', text: 'y' }, 422],
    ['an empty text', 'admin', '/v1/admin/legal/fsq-bi', { title: 'x', text: '  ' }, 422],
    ['an unknown organization', 'admin', '/v1/admin/legal/fsq-bi', { title: 'x', text: 'y', organizationId: '00000000-0000-4000-8000-000000000000' }, 404],
  ] as const)('refuses a version from %s', async (_label, who, url, body, status) => {
    const before = (await as('outsider', 'GET', '/v1/legal/fsq-bi')).json().item.version;
    expect((await as(who, 'POST', url, body)).statusCode).toBe(status);
    expect((await as('outsider', 'GET', '/v1/legal/fsq-bi')).json().item.version).toBe(before);
  });
});
