import { describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, signedIn, unique } from './api';

const browser = useBrowser();

describe('legal agreements', () => {
  it("an administrator publishes new terms for an organization; its member accepts them at sign-in, once, and others are not asked", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Legal ${unique()}`);
    const lee = await createUser(admin, team.id, 'Lee Legal', `lee.${unique()}@e2e.studio.test`);
    const title = `Field data terms ${unique()}`;

    const a = await openStudio(browser(), baseUrl());
    await signInThroughUi(a.page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await a.page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Legal agreements' }).click();
    const form = a.page.getByRole('form', { name: 'Publish an agreement' });
    await form.getByLabel('Agreement').selectOption({ label: 'Terms of use' });
    await form.getByLabel('Who must accept it').selectOption({ label: `Members of ${team.name}` });
    await form.getByLabel('Title').fill(title);
    await form.getByLabel('Text').fill('Data collected in the field stays with the team.\nShare exports only inside it.');
    await form.getByRole('button', { name: 'Publish' }).click();
    await form.getByRole('status').filter({ hasText: `Published "${title}"` }).waitFor();
    await a.context.close();

    // Lee signs in: the terms come before the workspace.
    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), lee.email, lee.password);
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    expect(await page.getByRole('document', { name: title }).innerText()).toBe('Data collected in the field stays with the team.\nShare exports only inside it.');
    expect(await page.getByRole('navigation', { name: 'Workspace' }).count()).toBe(0);
    await page.getByRole('button', { name: 'I agree' }).click();
    await page.getByRole('heading', { name: 'Maps', level: 1 }).waitFor();
    const consent = await (await signedIn(lee.email, lee.password)).request<{ item: { consentedAt: string | null } }>('GET', '/v1/legal/latest/studio-tos/consent');
    expect(consent.item.consentedAt).not.toBeNull();
    // Accepted once: the next visit goes straight to the workspace.
    await page.reload();
    await page.getByRole('heading', { name: 'Maps', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { name: title }).count()).toBe(0);
    expect(foreign).toEqual([]);
    await context.close();

    // Someone in another organization is not bound by it.
    const admin2 = await signedIn(inject('adminEmail'), inject('adminPassword'));
    expect(await admin2.legal.pending()).toEqual([]);
  });
});
