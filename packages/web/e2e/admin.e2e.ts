import fs from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, signedIn, unique } from './api';

const browser = useBrowser();

describe('administration', () => {
  it('creates an organization, invites a person who accepts through the link, and shows the audit log', async () => {
    const admin = await openStudio(browser(), baseUrl());
    const { page } = admin;
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    const nav = page.getByRole('navigation', { name: 'Workspace' });

    const orgName = `Field research ${unique()}`;
    await nav.getByRole('link', { name: 'Organizations' }).click();
    await page.getByLabel('Organization name').fill(orgName);
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('table', { name: 'Organizations' }).getByRole('row', { name: new RegExp(orgName) }).waitFor();

    const email = `fern.${unique()}@e2e.studio.test`;
    await nav.getByRole('link', { name: 'Invite people' }).click();
    await page.getByLabel('Organization', { exact: true }).selectOption({ label: orgName });
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Organization role').selectOption('viewer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const first = await page.getByLabel('Invitation link').inputValue();
    expect(first).toMatch(new RegExp(`^${baseUrl()}/accept-invitation\\?token=`));
    const pendingRows = (address: string) => page.getByRole('table', { name: 'Pending invitations' }).getByRole('row', { name: new RegExp(address) });
    await pendingRows(email).waitFor();
    // Sent again (the person lost the link): a new link, the old one stops working, still one pending invitation.
    await page.getByRole('button', { name: `Actions for ${email}`, exact: true }).click();
    await page.getByRole('menuitem', { name: `Send the invitation for ${email} again` }).click();
    await page.getByRole('status').filter({ hasText: 'the link sent before no longer works' }).waitFor();
    const link = await page.getByLabel('Invitation link').inputValue();
    expect(link).not.toBe(first);
    expect(await pendingRows(email).count()).toBe(1);
    // An invitation made by mistake is deleted after a confirmation.
    const mistaken = `mistaken.${unique()}@e2e.studio.test`;
    await page.getByLabel('Email').fill(mistaken);
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await pendingRows(mistaken).waitFor();
    await page.getByRole('button', { name: `Actions for ${mistaken}`, exact: true }).click();
    await page.getByRole('menuitem', { name: `Delete the invitation for ${mistaken}` }).click();
    await page.getByRole('dialog', { name: 'Delete invitation' }).getByRole('button', { name: 'Delete invitation' }).click();
    await expect.poll(() => pendingRows(mistaken).count()).toBe(0);
    await expect.poll(() => page.getByLabel('Invitation link').count()).toBe(0);

    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('table', { name: 'Audit log' }).getByRole('row', { name: /invitation\.resend/ }).first().waitFor();
    await page.getByRole('table', { name: 'Audit log' }).getByRole('row', { name: /invitation\.delete/ }).first().waitFor();
    // Narrowed to the invitation family and to this administrator, then downloaded as the spreadsheet shows it.
    await page.getByLabel('Action').fill('invitation');
    await page.getByLabel('Who (email)').fill(inject('adminEmail'));
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const auditRows = page.getByRole('table', { name: 'Audit log' }).getByRole('row');
    await expect.poll(async () => (await auditRows.allInnerTexts()).slice(1).every((r) => /invitation\./.test(r))).toBe(true);
    const shownRows = (await auditRows.count()) - 1;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = (await fs.readFile((await download.path())!, 'utf8')).trimEnd().split('\n');
    expect(csv[0]).toBe('When (UTC),Who,Action,Resource type,Resource id,Details');
    // The table's page holds up to 50; the file holds every match.
    expect(csv.length - 1).toBeGreaterThanOrEqual(shownRows);
    expect(csv.slice(1).every((l) => l.split(',')[2]!.startsWith('invitation.'))).toBe(true);
    expect(csv.some((l) => l.includes('invitation.resend'))).toBe(true);
    expect(admin.foreign).toEqual([]);
    await admin.context.close();

    // The invitee opens the link in a fresh browser; the first link, replaced, is refused.
    const invitee = await openStudio(browser(), baseUrl());
    await invitee.page.goto(first);
    await invitee.page.getByLabel('Your name').fill('Fern Fieldworker');
    await invitee.page.getByLabel('Password').fill('fern-password-1');
    await invitee.page.getByRole('button', { name: 'Create account' }).click();
    await invitee.page.getByRole('alert').filter({ hasText: 'Invitation not found or already used' }).waitFor();
    await invitee.page.goto(link);
    await invitee.page.getByLabel('Your name').fill('Fern Fieldworker');
    await invitee.page.getByLabel('Password').fill('short');
    await invitee.page.getByRole('button', { name: 'Create account' }).click();
    // The browser's own check refuses a short password before any call.
    expect(new URL(invitee.page.url()).pathname).toBe('/accept-invitation');
    await invitee.page.getByLabel('Password').fill('fern-password-1');
    await invitee.page.getByRole('button', { name: 'Create account' }).click();
    await invitee.page.waitForURL(/\/workspace\/maps$/);
    await invitee.page.getByRole('button', { name: 'Account of Fern Fieldworker' }).waitFor();
    // Not an administrator: no Admin section.
    expect(await invitee.page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    const me = await (await signedIn(email, 'fern-password-1')).me();
    expect(me.memberships.map((m) => [m.organizationName, m.role])).toEqual([[orgName, 'viewer']]);

    // The link works once.
    await invitee.context.clearCookies();
    await invitee.page.evaluate(() => localStorage.clear());
    await invitee.page.goto(link);
    await invitee.page.getByLabel('Your name').fill('Someone else');
    await invitee.page.getByLabel('Password').fill('another-password-1');
    await invitee.page.getByRole('button', { name: 'Create account' }).click();
    await invitee.page.getByRole('alert').filter({ hasText: 'Invitation not found or already used' }).waitFor();
    await invitee.page.screenshot({ path: '/tmp/studio-invitation.png' });
    expect(invitee.foreign).toEqual([]);
    await invitee.context.close();
  });

  it("reports an error a user's browser meets to the administrators' Client errors page, with the user and the page", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Errors ${unique()}`);
    const eli = await createUser(admin, team.id, 'Eli Error', `eli.${unique()}@e2e.studio.test`);
    const user = await openStudio(browser(), baseUrl());
    await signInThroughUi(user.page, baseUrl(), eli.email, eli.password);
    const message = `Layer config broke ${unique()}`;
    // An error nothing catches, as a bug in a click handler would throw it.
    await user.page.evaluate((m) => setTimeout(() => {
      throw new TypeError(m);
    }), message);

    const { page, context } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Client errors' }).click();
    const table = page.getByRole('table', { name: 'Client errors' });
    // The report may land after the page first loaded: reload until its row is there.
    await expect.poll(async () => {
      await page.reload();
      await table.waitFor();
      return table.locator('tbody tr', { hasText: message }).count();
    }).toBe(1);
    const row = (await table.locator('tbody tr', { hasText: message }).innerText()).replace(/\s+/g, ' ');
    expect(row).toContain(`Error TypeError: ${message} /workspace/maps ${eli.email}`);
    expect(user.foreign).toEqual([]);
    await user.context.close();
    await context.close();
  });

  it("merges two accounts after a preview of what moves: the kept account owns both people's maps, the other cannot sign in", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Merge ${unique()}`);
    const other = await admin.admin.createOrganization(`Merged-in ${unique()}`);
    const kept = await createUser(admin, team.id, `Kim Kept ${unique()}`, `kim.${unique()}@e2e.studio.test`);
    const gone = await createUser(admin, other.id, `Gus Gone ${unique()}`, `gus.${unique()}@e2e.studio.test`);
    await kept.client.records('maps').save({ name: `Kim's stores ${unique()}` });
    const gusMap = await gone.client.records('maps').save({ name: `Gus's routes ${unique()}` });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Merge accounts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge accounts' });
    await dialog.getByLabel('Account to keep').selectOption({ label: `${kept.user.name} <${kept.email}>` });
    await dialog.getByLabel('Account to merge into it').selectOption({ label: `${gone.user.name} <${gone.email}>` });
    await dialog.getByRole('button', { name: 'Show what moves' }).click();
    const preview = dialog.getByRole('status', { name: 'What the merge moves' });
    expect((await preview.innerText()).replace(/\s+/g, ' ')).toBe(
      `1 map and 0 tags move to ${kept.user.name}, who joins ${other.name}. ${gone.email} is deleted and can no longer sign in. This cannot be undone.`,
    );
    await dialog.getByRole('button', { name: 'Merge accounts' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The list reloads: the merged account's row goes, the kept one stays.
    const users = page.getByRole('table', { name: 'Users' });
    await expect.poll(() => users.getByRole('row', { name: new RegExp(gone.email) }).count()).toBe(0);
    expect(await users.getByRole('row', { name: new RegExp(kept.email) }).count()).toBe(1);

    // The kept account now lists both maps as its own; the merged one cannot sign in.
    const mine = await (await signedIn(kept.email, kept.password)).records('maps').list();
    expect(mine.items.map((m) => m.id)).toContain(gusMap.id);
    expect(mine.items.length).toBe(2);
    await expect(signedIn(gone.email, gone.password)).rejects.toThrow();
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('Quotas and seats: counts users on each policy and seat; a check lists a user over quota, raising it is confirmed; an organization is provisioned with its default tags', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Quota team ${unique()}`);
    const ivy = await createUser(admin, team.id, 'Ivy Over', `ivy.${unique()}@e2e.studio.test`);
    for (const n of [1, 2, 3]) await ivy.client.records('maps').save({ name: `Ivy map ${n}` });
    await admin.admin.setQuota(ivy.user.id, 2);

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Quotas and seats' }).click();
    const users = (await admin.admin.users()).items;
    const cell = (table: string, row: string, column: number) => page.getByRole('table', { name: table }).getByRole('row', { name: new RegExp(`^${row}\\b`) }).getByRole('cell').nth(column).innerText();
    await expect.poll(() => cell('Quota policies', 'Maker', 2)).toBe(users.filter((u) => u.quotaPolicy === 100).length.toLocaleString('en-US'));
    expect(await cell('Seat types', 'viewer', 1)).toBe('Viewer: opens what is shared with them, creates nothing');

    await page.getByRole('button', { name: 'Check quotas' }).click();
    const overRow = page.getByRole('table', { name: 'Users over their quota' }).getByRole('row', { name: new RegExp(ivy.email) });
    await overRow.waitFor();
    expect(await overRow.getByRole('cell').allInnerTexts()).toEqual([ivy.email, '2', '3']);
    await page.getByRole('status').filter({ hasText: 'dry run: nothing changed' }).waitFor();
    expect((await admin.admin.users()).items.find((u) => u.id === ivy.user.id)?.quotaPolicy).toBe(2);
    await page.getByRole('button', { name: 'Raise their quotas to their usage' }).click();
    await page.getByRole('dialog', { name: 'Raise quotas' }).getByRole('button', { name: 'Raise quotas' }).click();
    await page.getByRole('status').filter({ hasText: 'quotas raised to usage' }).waitFor();
    expect((await admin.admin.users()).items.find((u) => u.id === ivy.user.id)?.quotaPolicy).toBe(3);
    expect((await admin.admin.auditLogs({ action: 'admin.reconcile-quota' })).items.length).toBeGreaterThan(0);

    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('button', { name: `Provision ${team.name}` }).click();
    await page.getByRole('status').filter({ hasText: `${team.name} now has the tags “Needs review” and “Published”.` }).waitFor();
    expect((await ivy.client.tags.forOrganization()).items.map((t) => t.name).sort()).toEqual(['Needs review', 'Published']);
    await page.getByRole('button', { name: `Provision ${team.name}` }).click();
    await page.getByRole('status').filter({ hasText: `${team.name} already has its default tags.` }).waitFor();
    expect(foreign).toEqual([]);
    await context.close();
  });
});
