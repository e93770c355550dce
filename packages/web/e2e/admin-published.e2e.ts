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
});
