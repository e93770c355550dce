import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';

const browser = useBrowser();

describe('edit locks from the interface', () => {
  it('a second user asks for the lock, the holder hands it over, the asker edits; an administrator takes over', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Ask team ${unique()}`);
    const holder = await createUser(admin, team.id, 'Hana Holder', `hana.${unique()}@e2e.studio.test`);
    const asker = await createUser(admin, team.id, 'Abel Asker', `abel.${unique()}@e2e.studio.test`);
    const map = await holder.client.records('maps').save({ name: 'Handed over' });
    await holder.client.permissions.grantMany([
      { resourceType: 'map', resourceId: map.id, role: 'editor', email: asker.email },
      { resourceType: 'map', resourceId: map.id, role: 'editor', email: (await admin.me()).email },
    ]);

    const open = async (email: string, password: string) => {
      const s = await openStudio(browser(), baseUrl());
      s.page.on('pageerror', (e) => console.error('pageerror', e.message));
      await signInThroughUi(s.page, baseUrl(), email, password);
      await s.page.goto(`${baseUrl()}/${map.id}`);
      await waitMapReady(s.page);
      return s;
    };
    const saveButton = (p: Page) => p.getByRole('button', { name: 'Save', exact: true });

    const a = await open(holder.email, holder.password);
    await saveButton(a.page).waitFor();
    const b = await open(asker.email, asker.password);
    const lockBar = b.page.getByRole('group', { name: 'Edit lock' });
    await lockBar.getByText(/Hana Holder has been editing this map since/).waitFor();
    expect(await saveButton(b.page).count()).toBe(0);
    expect(await lockBar.getByRole('button', { name: 'Take over' }).count()).toBe(0); // not an administrator
    await lockBar.getByRole('button', { name: 'Ask for edit' }).click();
    await lockBar.getByRole('status').filter({ hasText: 'waiting for an answer' }).waitFor();

    // The holder's page sees the request by polling (within 15 s) and hands the lock over.
    const requests = a.page.getByRole('group', { name: 'Edit requests' });
    await requests.getByText('Abel Asker asks to edit this map.').waitFor({ timeout: 15_000 });
    await requests.getByRole('button', { name: 'Hand over' }).click();
    await a.page.getByRole('note').filter({ hasText: 'Read only: Abel Asker is editing this map.' }).waitFor({ timeout: 30_000 });

    // The asker's page opens for editing on its next poll, and the asker saves.
    await saveButton(b.page).waitFor({ timeout: 30_000 });
    await waitMapReady(b.page);
    await b.page.getByLabel('Map name').fill('Abel’s map');
    await saveButton(b.page).click();
    await expect.poll(async () => (await asker.client.records('maps').get(map.id)).name, { timeout: 30_000 }).toBe('Abel’s map');
    expect((await asker.client.records('maps').get(map.id)).lock?.ownerId).toBe(asker.user.id);

    // An administrator opening it sees Abel editing and takes the lock over.
    const c = await open(inject('adminEmail'), inject('adminPassword'));
    const adminBar = c.page.getByRole('group', { name: 'Edit lock' });
    await adminBar.getByText(/Abel Asker has been editing this map since/).waitFor();
    await adminBar.getByRole('button', { name: 'Take over' }).click();
    await saveButton(c.page).waitFor({ timeout: 30_000 });
    expect((await admin.records('maps').get(map.id)).lock?.ownerId).toBe((await admin.me()).id);

    for (const s of [a, b, c]) {
      expect(s.foreign).toEqual([]);
      await s.context.close();
    }
  }, 300_000);
});
