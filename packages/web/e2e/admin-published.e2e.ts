import { describe, expect, inject, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, makerInNewTeam, unique } from './api';

const browser = useBrowser();
const EMPTY_MAP = { studioVersion: 1, kepler: { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.79, longitude: -122.41, zoom: 11 }, mapStyle: { styleType: 'blank' } } } };

describe('published maps, for administrators', () => {
  it('lists them by views or date; an administrator hands one to another owner and opens it to everyone signed in', async () => {
    const pat = await makerInNewTeam('Publishers', 'Pat Publisher');
    const admin = await asAdmin();
    const orgId = (await pat.client.me()).memberships[0]!.organizationId;
    const cora = await createUser(admin, orgId, 'Cora Colleague', `cora.${unique()}@e2e.studio.test`);
    const outsider = await makerInNewTeam('Outsiders', 'Otto Outsider');
    const publish = async (name: string, views: number) => {
      const map = await pat.client.records('maps').save({ name, latestState: EMPTY_MAP });
      await pat.client.maps.publish(map.id);
      // Readers on the web: each opening is a view.
      const reader = new StudioClient({ baseUrl: baseUrl() });
      for (let i = 0; i < views; i++) await reader.maps.publishedMap(map.id);
      return map;
    };
    const busy = await publish(`Ferry crowds ${unique()}`, 3);
    const quiet = await publish(`Quiet pier ${unique()}`, 1);

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Published maps' }).click();
    const table = page.getByRole('table', { name: 'Published maps' });
    const row = (name: string) => table.getByRole('row', { name: new RegExp(name) });
    await row(busy.name).waitFor();
    await expect.poll(() => row(busy.name).getByRole('cell').nth(1).innerText()).toBe('3');
    expect(await row(quiet.name).getByRole('cell').nth(1).innerText()).toBe('1');
    const order = async () => {
      const names = await table.getByRole('row').allInnerTexts();
      return [names.findIndex((n) => n.includes(busy.name)), names.findIndex((n) => n.includes(quiet.name))];
    };
    const [busyAt, quietAt] = await order();
    expect(busyAt).toBeLessThan(quietAt!);
    await page.getByLabel('Order').selectOption('date');
    await expect.poll(async () => { const [b, q] = await order(); return q! < b!; }).toBe(true);

    // Handed to a colleague: the table and the colleague's own list say so.
    await page.getByRole('button', { name: `Change the owner of ${busy.name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Change the owner of ${busy.name}` });
    await dialog.getByLabel('New owner').selectOption({ label: `Cora Colleague — ${cora.email}` });
    await dialog.getByRole('button', { name: 'Change owner' }).click();
    await expect.poll(() => row(busy.name).innerText()).toContain(cora.email);
    expect((await cora.client.records('maps').list()).items.map((m) => m.id)).toContain(busy.id);

    // Opened to everyone signed in: someone of another organization can now read the map in the studio.
    await expect(outsider.client.records('maps').get(quiet.id)).rejects.toThrow();
    await page.getByRole('button', { name: `Open ${quiet.name} to everyone signed in` }).click();
    await expect.poll(() => row(quiet.name).innerText()).toContain('All signed in');
    expect((await outsider.client.records('maps').get(quiet.id)).id).toBe(quiet.id);
    await page.getByRole('button', { name: `Close ${quiet.name} for everyone signed in` }).click();
    await expect.poll(() => row(quiet.name).innerText()).toContain('Shared only');
    await expect(outsider.client.records('maps').get(quiet.id)).rejects.toThrow();

    const actions = (await admin.admin.auditLogs({ resourceId: busy.id })).items.map((e) => e.action);
    expect(actions).toContain('map.transfer');
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('Ownership: an administrator finds a dashboard by a word of its name and hands it over, and opens a dataset to everyone signed in', async () => {
    const pia = await makerInNewTeam('Owners', 'Pia Owner');
    const admin = await asAdmin();
    const orgId = (await pia.client.me()).memberships[0]!.organizationId;
    const ben = await createUser(admin, orgId, 'Ben Heir', `ben.${unique()}@e2e.studio.test`);
    const outsider = await makerInNewTeam('Outsiders', 'Olga Outsider');
    const word = `Lighthouse${unique()}`;
    const board = await pia.client.records('dashboards').save({ name: `${word} visits` });
    const dataset = await pia.client.datasets.upload('name,lat,lng\nBeacon,54.3,10.1\n', { contentType: 'text/csv', name: `${word} beacons` });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Ownership' }).click();
    await page.getByLabel('Kind').selectOption('insights');
    await page.getByLabel('Name').fill(word);
    const dashboards = page.getByRole('table', { name: 'Dashboards' });
    await expect.poll(() => dashboards.getByRole('row').count()).toBe(2);
    const boardRow = dashboards.getByRole('row', { name: new RegExp(board.name) });
    expect(await boardRow.innerText()).toContain(pia.email);
    await page.getByRole('button', { name: `Change the owner of ${board.name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Change the owner of ${board.name}` });
    await dialog.getByLabel('New owner').selectOption({ label: `Ben Heir — ${ben.email}` });
    await dialog.getByRole('button', { name: 'Change owner' }).click();
    await expect.poll(() => boardRow.innerText()).toContain(ben.email);
    expect((await ben.client.records('dashboards').list()).items.map((d) => d.id)).toContain(board.id);

    await page.getByLabel('Kind').selectOption('datasets');
    const datasets = page.getByRole('table', { name: 'Datasets' });
    const datasetRow = datasets.getByRole('row', { name: new RegExp(dataset.name) });
    await datasetRow.waitFor();
    await expect(outsider.client.datasets.get(dataset.id)).rejects.toThrow();
    await page.getByRole('button', { name: `Open ${dataset.name} to everyone signed in` }).click();
    await expect.poll(() => datasetRow.innerText()).toContain('All signed in');
    expect((await outsider.client.datasets.get(dataset.id)).id).toBe(dataset.id);

    const actions = (await admin.admin.auditLogs({ resourceId: board.id })).items.map((e) => e.action);
    expect(actions).toContain('insight.transfer');
    expect((await admin.admin.auditLogs({ resourceId: dataset.id })).items.map((e) => e.action)).toContain('resource.visibility');
    expect(foreign).toEqual([]);
    await context.close();
  });
});
