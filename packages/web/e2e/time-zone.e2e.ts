import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';
import { expectTooltipInPickedZone, tooltipAtCentre } from './kepler-panels';

const browser = useBrowser();

describe('times in the viewer’s zone', () => {
  it('reads a tooltip’s time in the browser’s zone, then in the zone chosen, and remembers the choice', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Zone team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Zia Zone', `zia.${unique()}@e2e.studio.test`);
    // 14:30 UTC: 23:30 in Tokyo, 06:30 in Los Angeles (PST in March before the switch on the 10th).
    const visit = await maker.client.datasets.upload('name,lat,lng,seen_at\nFerry Building,37.7955,-122.3937,2024-03-05 14:30:00\n', { contentType: 'text/csv', name: `Zoned ${unique()}` });
    const s = await openStudio(browser(), baseUrl(), { timezoneId: 'Asia/Tokyo' });
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${visit.id}`);
    await waitMapReady(page);

    await expectTooltipInPickedZone(page);

    // Another map, the same user: the chosen zone, not the browser's.
    await page.goto(`${baseUrl()}/new?datasetUuid=${visit.id}`);
    await waitMapReady(page);
    expect(await page.getByLabel('Time zone').inputValue()).toBe('America/Los_Angeles');
    expect(await tooltipAtCentre(page)).toContain('2024-03-05 06:30:00 PST');

    // kepler's data table (the dataset's "Show data table"): its timestamp cell in the zone too, not in UTC.
    await page.mouse.move(5, 5);
    await page.locator('.dataset-action.show-data-table').first().click({ force: true });
    const cell = page.locator('#dataset-modal .cell[title^="2024-03-05"]');
    await cell.first().waitFor();
    expect(await cell.first().getAttribute('title')).toBe('2024-03-05 06:30:00 PST');
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
