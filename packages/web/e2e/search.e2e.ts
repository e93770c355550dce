import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

describe('workspace search', () => {
  it('finds a dashboard by a word of its name from the top bar ("/" then Enter) and opens it; a colleague elsewhere finds nothing', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Search ${unique()}`);
    const other = await admin.admin.createOrganization(`Elsewhere ${unique()}`);
    const sam = await createUser(admin, team.id, 'Sam Seeker', `sam.${unique()}@e2e.studio.test`);
    const eve = await createUser(admin, other.id, 'Eve Else', `eve.${unique()}@e2e.studio.test`);
    const word = `Harbor${unique()}`;
    const dashboard = await sam.client.records('dashboards').save({ name: `Weekly ${word} report` });
    await sam.client.records('maps').save({ name: `${word} traffic` });
    await sam.client.records('dashboards').save({ name: 'Rail freight' });

    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), sam.email, sam.password);
    await page.getByRole('heading', { name: 'Maps', level: 1 }).waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type(word.toLowerCase());
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: `Search: ${word.toLowerCase()}`, level: 1 }).waitFor();
    const dashboards = page.getByRole('region', { name: 'Dashboards' });
    expect(await dashboards.getByRole('heading').textContent()).toBe('Dashboards (1)');
    expect(await dashboards.getByRole('link').allInnerTexts()).toEqual([`Weekly ${word} report`]);
    expect(await page.getByRole('region', { name: 'Maps' }).getByRole('link').allInnerTexts()).toEqual([`${word} traffic`]);
    await dashboards.getByRole('link').click();
    await page.waitForURL(new RegExp(`/dashboard/${dashboard.id}$`));

    const elsewhere = await openStudio(browser(), baseUrl());
    await signInThroughUi(elsewhere.page, baseUrl(), eve.email, eve.password);
    await elsewhere.page.goto(`${baseUrl()}/workspace/search?q=${word}`);
    await elsewhere.page.getByRole('status').filter({ hasText: 'Nothing you can open' }).waitFor();
  });
});
