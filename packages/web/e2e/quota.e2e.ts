import { describe, expect, it, inject } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

describe('roles and quota', () => {
  it("an administrator changes a user's seat and quota on the Users screen; the user's next upload over the quota shows the workspace's banner and creates nothing", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Quota ${unique()}`);
    const quinn = await createUser(admin, team.id, `Quinn Quota ${unique()}`, `quinn.${unique()}@e2e.studio.test`);
    await quinn.client.datasets.upload('a,b\n1,2\n', { contentType: 'text/csv', name: 'The one' });

    // The administrator: Users, filtered by the team; Edit makes Quinn a viewer, then a maker again with a quota of 1.
    const adminPage = (await openStudio(browser(), baseUrl())).page;
    await signInThroughUi(adminPage, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await adminPage.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Users', exact: true }).click();
    await adminPage.getByLabel('Organization', { exact: true }).selectOption({ label: team.name });
    const row = adminPage.getByRole('table', { name: 'Users' }).getByRole('row', { name: new RegExp(quinn.email) });
    await expect.poll(() => row.textContent()).toContain(`${team.name} (maker, standard seat)`);
    const edit = async (seat: string, quota: string) => {
      await row.getByRole('button', { name: `Actions for ${quinn.user.name}`, exact: true }).click();
      await adminPage.getByRole('menuitem', { name: `Edit ${quinn.user.name}` }).click();
      const dialog = adminPage.getByRole('dialog', { name: `Edit ${quinn.user.name}` });
      await dialog.getByLabel(`Seat in ${team.name}`).selectOption(seat);
      await dialog.getByLabel(/^Quota/).fill('70000');
      expect(await dialog.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      // A named preset fills the number in; a number of its own is "Custom".
      if (/^\d+$/.test(quota)) {
        await dialog.getByLabel(/^Quota/).fill(quota);
        expect(await dialog.getByLabel('Preset').inputValue()).toBe('');
      } else {
        await dialog.getByLabel('Preset').selectOption({ label: quota });
      }
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
    };
    await edit('viewer', 'Maker — 100 records');
    await expect.poll(() => row.textContent()).toContain(`${team.name} (viewer, viewer seat)100 records`);
    await edit('maker', '1');
    await expect.poll(() => row.textContent()).toContain(`${team.name} (maker, maker seat)1 records`);

    // The user: one more upload.
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), quinn.email, quinn.password);
    await page.goto(`${baseUrl()}/workspace/datasets`);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    const upload = page.getByRole('dialog', { name: 'Upload a dataset' });
    await upload.getByLabel('File').setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n3,4\n') });
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    const banner = page.getByRole('alert', { name: 'Quota reached' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Quota exceeded: your quota allows 1 records.');
    await page.screenshot({ path: '/tmp/studio-quota-banner.png' });
    expect((await quinn.client.records('datasets').list()).items.map((d) => d.name)).toEqual(['The one']);
    // The dialog says it too; once it is closed, the banner stays over the page with its way out.
    await upload.getByRole('button', { name: 'Cancel' }).click();
    await banner.getByRole('link', { name: 'See your quota' }).click();
    await page.waitForURL(/\/workspace\/account$/);

    // Both changes are in the audit log.
    const log = (await admin.admin.auditLogs({ limit: 50 })).items.filter((e) => e.resourceId === quinn.user.id).map((e) => e.action);
    expect(log).toEqual(expect.arrayContaining(['user.seat', 'user.quota']));
  });
});
