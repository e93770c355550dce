import { beforeAll, describe, expect, it } from 'vitest';
import type { StudioClient } from '@studio/client';
import { useBrowser, openStudio, signInThroughUi, type StudioPage, rowAction } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();
let studio: StudioPage;
let owner: StudioClient;

beforeAll(async () => {
  const admin = await asAdmin();
  const org = await admin.admin.createOrganization(`List team ${unique()}`);
  const a = await createUser(admin, org.id, 'Lena Lister', `lena.${unique()}@e2e.studio.test`);
  owner = a.client;
  studio = await openStudio(browser(), baseUrl());
  await signInThroughUi(studio.page, baseUrl(), a.email, a.password);
});

describe('a workspace list over real records', () => {
  it('lists, searches, sorts, renames, tags and deletes maps', async () => {
    const { page } = studio;
    await page.getByRole('status').filter({ hasText: 'No maps yet' }).waitFor();

    const maps = owner.records('maps');
    await maps.save({ name: 'Harbor traffic 2024', description: 'Vessel positions by hour' });
    await maps.save({ name: 'Coffee shops' });
    await page.reload();
    const table = page.getByRole('table', { name: 'Maps' });
    await table.getByRole('row', { name: /Harbor traffic 2024/ }).waitFor();
    await table.getByRole('row', { name: /Coffee shops/ }).waitFor();

    // Sort by name: Coffee shops first.
    await page.getByLabel('Sort by').selectOption('name-asc');
    await page.waitForURL(/sort=name-asc/);
    await page.waitForFunction(() => document.querySelector('tbody tr')?.textContent?.includes('Coffee shops'));

    // Server-side search.
    await page.getByRole('searchbox', { name: 'Search maps' }).fill('harbor');
    await page.waitForURL(/q=harbor/);
    await table.getByRole('row', { name: /Coffee shops/ }).waitFor({ state: 'detached' });
    // The search's page replaces the table once it has arrived: header + Harbor.
    await table.getByRole('row', { name: /Harbor traffic 2024/ }).waitFor();
    await expect.poll(() => table.getByRole('row').count()).toBe(2);

    // Rename through PUT.
    await rowAction(page, 'Harbor traffic 2024', 'Rename Harbor traffic 2024');
    const rename = page.getByRole('dialog', { name: 'Rename map' });
    await rename.getByLabel('Name').fill('Harbor traffic 2025');
    await rename.getByRole('button', { name: 'Save' }).click();
    await rename.waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /Harbor traffic 2025/ }).waitFor();
    expect((await maps.list({ search: 'harbor' })).items.map((m) => m.name)).toEqual(['Harbor traffic 2025']);

    // Tag it, then filter by the tag.
    await rowAction(page, 'Harbor traffic 2025', 'Edit tags of Harbor traffic 2025');
    const tags = page.getByRole('dialog', { name: /Tags of/ });
    await tags.getByLabel('New tag').fill('Ports');
    await tags.getByRole('button', { name: 'Create tag' }).click();
    await tags.getByRole('checkbox', { name: 'Ports' }).waitFor();
    expect(await tags.getByRole('checkbox', { name: 'Ports' }).isChecked()).toBe(true);
    await tags.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('list', { name: 'Tags of Harbor traffic 2025' }).getByText('Ports').waitFor();
    await page.getByRole('searchbox', { name: 'Search maps' }).fill('');
    await page.waitForURL((u) => !u.searchParams.has('q'));
    await table.getByRole('row', { name: /Coffee shops/ }).waitFor();
    await page.getByLabel('Filter by tag').selectOption({ label: 'Ports' });
    await table.getByRole('row', { name: /Coffee shops/ }).waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /Harbor traffic 2025/ }).waitFor();
    await page.screenshot({ path: '/tmp/studio-maps.png', fullPage: true });
    await page.getByLabel('Filter by tag').selectOption('');

    // Duplicate: a copy owned by the caller appears in "Mine".
    await rowAction(page, 'Coffee shops', 'Duplicate Coffee shops');
    await table.getByRole('row', { name: /Copy of Coffee shops/ }).waitFor();

    // Delete with confirmation.
    await rowAction(page, 'Harbor traffic 2025', 'Delete Harbor traffic 2025');
    const confirm = page.getByRole('dialog', { name: 'Delete map' });
    await confirm.getByText('Delete “Harbor traffic 2025”?').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm.waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /Harbor traffic/ }).waitFor({ state: 'detached' });
    expect((await maps.list()).items.map((m) => m.name).sort()).toEqual(['Coffee shops', 'Copy of Coffee shops']);
    expect(studio.foreign).toEqual([]);
  });

  it('has readable empty states per tab and collection', async () => {
    const { page } = studio;
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Dashboards' }).click();
    await page.getByRole('heading', { name: 'Dashboards', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'No dashboards yet —' }).waitFor();
    await page.getByRole('tab', { name: 'Shared with me' }).click();
    await page.getByRole('status').filter({ hasText: 'Nothing shared with you yet' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Shared with me' }).getAttribute('aria-selected')).toBe('true');
  });

  it('shows either records or a readable error on the collections the server is adding', async () => {
    const { page } = studio;
    for (const label of ['Datasets', 'Connectors', 'Saved queries', 'Basemaps', 'Colors']) {
      await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: label, exact: true }).click();
      await page.getByRole('heading', { name: label, level: 1 }).waitFor();
      const answer = page.getByRole('alert').or(page.getByRole('status').filter({ hasText: /yet|available/ })).or(page.getByRole('table', { name: label }));
      await answer.first().waitFor();
      const alert = page.getByRole('alert');
      if (await alert.count()) expect(await alert.textContent()).not.toMatch(/Unexpected token|JSON/);
      await page.screenshot({ path: `/tmp/studio-${label.toLowerCase().replace(' ', '-')}.png` });
    }
    expect(studio.foreign).toEqual([]);
  });
});
