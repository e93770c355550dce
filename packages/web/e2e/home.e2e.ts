import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, makerInNewTeam, unique } from './api';

const browser = useBrowser();

describe('workspace home', () => {
  it('shows what the user worked on last, of every kind and shared with them, newest first, each a link to open it', async () => {
    const hana = await makerInNewTeam('Home', 'Hana Home');
    const orgId = (await hana.client.me()).memberships[0]!.organizationId;
    const colleague = await createUser(await asAdmin(), orgId, 'Kai Colleague', `kai.${unique()}@e2e.studio.test`);
    const c = hana.client;
    // One of each kind, a moment apart so "newest first" has an order to show.
    const dataset = await c.datasets.upload('name,lat,lng\nPier 39,37.8087,-122.4098\n', { contentType: 'text/csv', name: `Piers ${unique()}` });
    // Its ingestion ends (and touches the record) before the next one is made.
    await expect.poll(async () => (await c.datasets.get(dataset.id)).status).toBe('ready');
    const map = await c.records('maps').save({ name: `Pier map ${unique()}` });
    const shared = await colleague.client.records('workbooks').save({ name: `Kai's workbook ${unique()}` });
    await colleague.client.records('workbooks').share(shared.id, { users: [{ userId: hana.user.id, role: 'viewer' }] });
    const dashboard = await c.records('dashboards').save({ name: `Pier board ${unique()}` });

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), hana.email, hana.password);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Home', exact: true }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const rows = page.getByRole('table', { name: 'Recent' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(5);
    const texts = (await rows.allInnerTexts()).slice(1);
    expect(texts.map((t) => t.split('\t').slice(0, 2))).toEqual([
      [dashboard.name, 'Dashboard'],
      [shared.name, 'Workbook'],
      [map.name, 'Map'],
      [dataset.name, 'Dataset'],
    ]);
    expect(texts[1]).toContain('Kai Colleague');

    await page.getByRole('link', { name: dashboard.name }).click();
    await page.waitForURL(new RegExp(`/dashboard/${dashboard.id}$`));
    await page.goBack();
    await page.getByRole('link', { name: dataset.name }).click();
    await page.getByRole('heading', { name: dataset.name, level: 1 }).waitFor();
    expect(foreign).toEqual([]);
    await context.close();
  });
});
