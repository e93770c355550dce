import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi, rowAction } from './browser';
import { asAdmin, baseUrl, createUser, makerInNewTeam, unique } from './api';

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
      await rowAction(page, name, `Add ${name} to a project`);
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

  it('a project gets a picture from an image file or from one of its maps: refused when not an image, shown on the project page and in the projects list after a reload', async () => {
    const noa = await makerInNewTeam('Pictures', 'Noa Painter');
    const project = await noa.client.projects.save({ name: `Coastline ${unique()}` });
    const drawn = await noa.client.records('maps').save({ name: `Drawn map ${unique()}` });
    const blank = await noa.client.records('maps').save({ name: `Blank map ${unique()}` });
    for (const m of [drawn, blank]) await noa.client.projects.addResource(project.id, { type: 'map', id: m.id });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), noa.email, noa.password);
    // Two real, different PNGs: pieces of the page, of different sizes so that they differ even when the page has
    // not drawn anything there yet (on a loaded machine two same-sized clips of a blank page were the same bytes).
    const filePng = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 40 } });
    const mapPng = await page.screenshot({ clip: { x: 300, y: 100, width: 48, height: 30 } });
    expect(filePng.equals(mapPng)).toBe(false);
    await noa.client.raw('PUT', `/v1/maps/${drawn.id}/thumbnail`, { rawBody: new Uint8Array(mapPng), contentType: 'image/png' });
    const projectPicture = async () => Buffer.from(await (await noa.client.raw('GET', `/v1/projects/${project.id}/thumbnail`)).arrayBuffer());

    await page.goto(`${baseUrl()}/workspace/projects/${project.id}`);
    await page.getByRole('button', { name: 'Picture', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Project picture' });
    const fileInput = dialog.getByLabel('An image file (PNG, JPEG or WebP, up to 10 MB)');
    await fileInput.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
    await dialog.getByRole('alert').filter({ hasText: 'Choose a PNG, JPEG or WebP image.' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Use this picture' }).isDisabled()).toBe(true);
    await fileInput.setInputFiles({ name: 'coast.png', mimeType: 'image/png', buffer: filePng });
    await dialog.getByRole('img', { name: 'The picture to use' }).waitFor();
    await dialog.getByRole('button', { name: 'Use this picture' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('img.project-picture[data-picture="loaded"]').waitFor();
    expect((await projectPicture()).equals(filePng)).toBe(true);

    // From a map: one without a picture says so; the drawn one replaces the file's.
    await page.getByRole('button', { name: 'Picture', exact: true }).click();
    const records = dialog.getByLabel("Or the picture of one of the project's records");
    await records.selectOption({ label: `${blank.name} (Map)` });
    await dialog.getByRole('alert').filter({ hasText: `“${blank.name}” has no picture yet` }).waitFor();
    await records.selectOption({ label: `${drawn.name} (Map)` });
    await dialog.getByRole('img', { name: 'The picture to use' }).waitFor();
    await dialog.getByRole('button', { name: 'Use this picture' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await projectPicture()).equals(mapPng)).toBe(true);

    await page.reload();
    await page.locator('img.project-picture[data-picture="loaded"]').waitFor();
    await page.goto(`${baseUrl()}/workspace/projects`);
    await page.getByRole('row').filter({ hasText: project.name }).locator('[data-thumbnail="loaded"]').waitFor();
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('adds a dataset and a dashboard to a project from their own pages', async () => {
    const kai = await makerInNewTeam('Record pages', 'Kai Keeper');
    const project = await kai.client.projects.save({ name: `Field study ${unique()}` });
    const folder = await kai.client.projects.createFolder(project.id, 'Evidence');
    const dataset = await kai.client.datasets.upload('name,lat,lng\nWell,52.1,5.1\n', { contentType: 'text/csv', name: `Wells ${unique()}` });
    const dashboard = await kai.client.records('dashboards').save({ name: `Well board ${unique()}` });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), kai.email, kai.password);
    const addHere = async (folderLabel: string) => {
      await page.getByRole('button', { name: 'Add to project' }).click();
      const dialog = page.getByRole('dialog', { name: /^Add .* to a project$/ });
      await dialog.getByLabel('Project').selectOption({ label: project.name });
      await dialog.getByLabel('Folder').selectOption({ label: folderLabel });
      await dialog.getByRole('button', { name: 'Add to project' }).click();
      await page.getByRole('status').filter({ hasText: `Added to ${project.name}.` }).waitFor();
    };
    await page.goto(`${baseUrl()}/workspace/datasets/${dataset.id}`);
    await page.getByRole('heading', { name: dataset.name, level: 1 }).waitFor();
    await addHere('Evidence');
    await page.goto(`${baseUrl()}/dashboard/${dashboard.id}`);
    await page.getByLabel('Dashboard name').waitFor();
    await addHere('Project root');

    const entries = (await kai.client.projects.resources(project.id)).items.map((e) => [e.resource.type, e.resource.name, e.folderId]);
    expect(entries).toEqual(expect.arrayContaining([['dataset', dataset.name, folder.id], ['insight', dashboard.name, null]]));
    expect(entries).toHaveLength(2);
    expect(foreign).toEqual([]);
    await context.close();
  });
});
