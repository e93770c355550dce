import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

describe('quota', () => {
  it("a maker at the quota an administrator set uploads once more: the workspace's banner says so and nothing is created", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Quota ${unique()}`);
    const quinn = await createUser(admin, team.id, 'Quinn Quota', `quinn.${unique()}@e2e.studio.test`);
    await quinn.client.datasets.upload('a,b\n1,2\n', { contentType: 'text/csv', name: 'The one' });
    await admin.admin.setQuota(quinn.user.id, 1);

    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), quinn.email, quinn.password);
    await page.goto(`${baseUrl()}/workspace/datasets`);
    await page.getByRole('button', { name: 'Upload dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
    await dialog.getByLabel('File').setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n3,4\n') });
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    const banner = page.getByRole('alert', { name: 'Quota reached' });
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Quota exceeded: your quota allows 1 records.');
    await page.screenshot({ path: '/tmp/studio-quota-banner.png' });
    expect((await quinn.client.records('datasets').list()).items.map((d) => d.name)).toEqual(['The one']);
    // The dialog says it too; once it is closed, the banner stays over the page with its way out.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await banner.getByRole('link', { name: 'See your quota' }).click();
    await page.waitForURL(/\/workspace\/account$/);
  });
});
