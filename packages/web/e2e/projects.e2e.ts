import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

const folderButton = (page: Page, name: string) => page.getByRole('navigation', { name: 'Folders' }).getByRole('button', { name: new RegExp(`^${name}\\s*\\d+$`) });
const rowNames = (page: Page) => page.getByRole('table', { name: 'Project resources' }).locator('tbody tr td:first-child').allInnerTexts();

describe('projects', () => {
  it('a user makes a project with two folders, adds a map and a dataset, drags the map to the other folder; after a reload all is where it was put', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Projects ${unique()}`);
    const pat = await createUser(admin, team.id, 'Pat Planner', `pat.${unique()}@e2e.studio.test`);
    const dataset = await pat.client.datasets.upload('name,lat,lng\nA,40.7,-74\n', { contentType: 'text/csv', name: `Stores ${unique()}` });
    const map = await pat.client.records('maps').save({ name: `Store map ${unique()}` });

    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), pat.email, pat.password);
    await page.goto(`${baseUrl()}/workspace/projects`);
    await page.getByRole('link', { name: 'New project' }).click();
    await page.getByLabel('Project name').fill('Store openings');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Store openings', level: 1 }).waitFor();
    const projectUrl = page.url();

    for (const name of ['Retail', 'Archive']) {
      await folderButton(page, 'Project root').click();
      await page.getByRole('button', { name: 'New folder' }).click();
      await page.getByRole('dialog').getByLabel('Folder name').fill(name);
      await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
      await folderButton(page, name).waitFor();
    }

    // The map into Retail, the dataset at the root.
    await folderButton(page, 'Retail').click();
    await page.getByRole('button', { name: 'Add to project' }).click();
    let dialog = page.getByRole('dialog', { name: 'Add to project' });
    await dialog.getByLabel('Resource').selectOption({ label: map.name });
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => rowNames(page)).toEqual([map.name]);
    await folderButton(page, 'Project root').click();
    await page.getByRole('button', { name: 'Add to project' }).click();
    dialog = page.getByRole('dialog', { name: 'Add to project' });
    await dialog.getByLabel('Kind').selectOption('dataset');
    await dialog.getByLabel('Filter').fill('stores');
    await dialog.getByLabel('Resource').selectOption({ label: dataset.name });
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => rowNames(page)).toEqual([dataset.name]);

    // Drag the map from Retail onto Archive.
    await folderButton(page, 'Retail').click();
    await expect.poll(() => rowNames(page)).toEqual([map.name]);
    // Held by its kind cell (plain text: the name is a link and the folder a picker, which drag on their own).
    await page.getByRole('table', { name: 'Project resources' }).locator('tbody tr td:nth-child(2)').first().dragTo(folderButton(page, 'Archive'));
    await page.getByText('Nothing here yet').waitFor();

    await page.goto(projectUrl);
    await folderButton(page, 'Archive').click();
    await expect.poll(() => rowNames(page)).toEqual([map.name]);
    await folderButton(page, 'Retail').click();
    await page.getByText('Nothing here yet').waitFor();
    await folderButton(page, 'Project root').click();
    await expect.poll(() => rowNames(page)).toEqual([dataset.name]);
    // The folder counts say the same.
    expect(await page.getByRole('navigation', { name: 'Folders' }).getByRole('button').allInnerTexts()).toEqual(['Project root\n1', 'Archive\n1', 'Retail\n0']);
  });

  it('adds a map and a dataset to a project folder from their lists ("Add to project"); a second time the server says it is there already', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Projects ${unique()}`);
    const lia = await createUser(admin, team.id, 'Lia Lister', `lia.${unique()}@e2e.studio.test`);
    const project = await lia.client.projects.save({ name: `Harbour study ${unique()}` });
    const folder = await lia.client.projects.createFolder(project.id, 'Sources');
    const map = await lia.client.records('maps').save({ name: `Harbour map ${unique()}` });
    const dataset = await lia.client.datasets.upload('name,lat,lng\nPier,37.8,-122.4\n', { contentType: 'text/csv', name: `Harbour piers ${unique()}` });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), lia.email, lia.password);
    const addFromList = async (slug: string, name: string, folderLabel: string) => {
      await page.goto(`${baseUrl()}/workspace/${slug}`);
      await page.getByRole('button', { name: `Add ${name} to a project` }).click();
      const dialog = page.getByRole('dialog', { name: `Add ${name} to a project` });
      await dialog.getByLabel('Project').selectOption({ label: project.name });
      await dialog.getByLabel('Folder').selectOption({ label: folderLabel });
      await dialog.getByRole('button', { name: 'Add to project' }).click();
      return dialog;
    };
    await addFromList('maps', map.name, 'Sources');
    await page.getByRole('status').filter({ hasText: `Added “${map.name}” to ${project.name}.` }).waitFor();
    await addFromList('datasets', dataset.name, 'Project root');
    await page.getByRole('status').filter({ hasText: `Added “${dataset.name}” to ${project.name}.` }).waitFor();

    const entries = (await lia.client.projects.resources(project.id)).items.map((e) => [e.resource.name, e.folderId]);
    expect(entries).toEqual(expect.arrayContaining([[map.name, folder.id], [dataset.name, null]]));
    expect(entries).toHaveLength(2);

    // The same map again: the dialog stays open with the server's reason, and nothing is added twice.
    const again = await addFromList('maps', map.name, 'Project root');
    await again.getByRole('alert').filter({ hasText: 'The resource is already in this project' }).waitFor();
    expect((await lia.client.projects.resources(project.id)).items).toHaveLength(2);
    expect(foreign).toEqual([]);
    await context.close();
  });
});
