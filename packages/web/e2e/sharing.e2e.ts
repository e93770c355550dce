import { describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi, rowAction } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

describe('sharing a map', () => {
  it('A shares with B by email as viewer; B sees it under "Shared with me", C does not', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Share team ${unique()}`);
    const other = await admin.admin.createOrganization(`Other team ${unique()}`);
    const a = await createUser(admin, team.id, 'Ada Owner', `ada.${unique()}@e2e.studio.test`);
    const b = await createUser(admin, team.id, 'Ben Viewer', `ben.${unique()}@e2e.studio.test`);
    const c = await createUser(admin, other.id, 'Cy Outsider', `cy.${unique()}@e2e.studio.test`);
    const mapName = `Store footprint ${unique()}`;
    const map = await a.client.records('maps').save({ name: mapName });

    // A shares through the UI.
    const sa = await openStudio(browser(), baseUrl());
    await signInThroughUi(sa.page, baseUrl(), a.email, a.password);
    await rowAction(sa.page, mapName, `Share ${mapName}`);
    const dialog = sa.page.getByRole('dialog', { name: `Share “${mapName}”` });
    await dialog.getByLabel('Email').fill(b.email);
    await dialog.getByLabel('Role', { exact: true }).selectOption('viewer');
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    await dialog.getByRole('status').filter({ hasText: `Shared with ${b.email} as viewer.` }).waitFor();
    const access = dialog.getByRole('list', { name: 'Who has access' });
    await access.getByText(b.email).waitFor();
    await sa.page.screenshot({ path: '/tmp/studio-share.png' });
    const perms = await a.client.permissions.of('map', map.id);
    expect([...perms.emails, ...perms.users].map((p) => p.role)).toEqual(['viewer']);
    expect(sa.foreign).toEqual([]);
    await sa.context.close();

    // B, in a fresh context, finds it under "Shared with me" and may not share or delete it.
    const sb = await openStudio(browser(), baseUrl());
    await signInThroughUi(sb.page, baseUrl(), b.email, b.password);
    await sb.page.getByRole('tab', { name: 'Shared with me' }).click();
    const row = sb.page.getByRole('table', { name: 'Maps' }).getByRole('row', { name: new RegExp(mapName) });
    await row.waitFor();
    await row.getByRole('button', { name: `Actions for ${mapName}` }).click();
    const menu = sb.page.getByRole('menu', { name: `Actions for ${mapName}` });
    await menu.getByRole('menuitem', { name: `Edit tags of ${mapName}` }).waitFor();
    expect(await menu.getByRole('menuitem', { name: `Delete ${mapName}` }).count()).toBe(0);
    expect(await menu.getByRole('menuitem', { name: `Share ${mapName}` }).count()).toBe(0);
    expect(sb.foreign).toEqual([]);
    await sb.context.close();

    // C does not see it.
    const sc = await openStudio(browser(), baseUrl());
    await signInThroughUi(sc.page, baseUrl(), c.email, c.password);
    await sc.page.getByRole('tab', { name: 'Shared with me' }).click();
    await sc.page.getByRole('status').filter({ hasText: 'Nothing shared with you yet' }).waitFor();
    expect(await sc.page.getByText(mapName).count()).toBe(0);
    expect(sc.foreign).toEqual([]);
    await sc.context.close();
  });

  it('an administrator shares with a looked-up account and revokes it again', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Revoke team ${unique()}`);
    const d = await createUser(admin, team.id, 'Dee Reader', `dee.${unique()}@e2e.studio.test`);
    const mapName = `Admin survey ${unique()}`;
    const map = await admin.records('maps').save({ name: mapName });

    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await rowAction(s.page, mapName, `Share ${mapName}`);
    const dialog = s.page.getByRole('dialog', { name: `Share “${mapName}”` });
    await dialog.getByLabel('Email').fill(d.email);
    await dialog.getByLabel('Role', { exact: true }).selectOption('editor');
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    // Found by email, shared with the account: listed with the person's name.
    const who = `Dee Reader (${d.email})`;
    await dialog.getByRole('list', { name: 'Who has access' }).getByText(who).waitFor();
    expect((await admin.permissions.of('map', map.id)).users.map((u) => [u.userId, u.role])).toEqual([[d.user.id, 'editor']]);
    expect((await d.client.records('maps').sharedWithUser()).items.map((m) => m.name)).toContain(mapName);

    await dialog.getByRole('button', { name: `Revoke access of ${who}` }).click();
    await dialog.getByRole('list', { name: 'Who has access' }).getByText(who).waitFor({ state: 'detached' });
    expect((await d.client.records('maps').sharedWithUser()).items.map((m) => m.name)).not.toContain(mapName);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });
});
