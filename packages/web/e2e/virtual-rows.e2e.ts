import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, makerInNewTeam } from './api';

const browser = useBrowser();
const MAPS = 1_050;
const nameOf = (n: number) => `Route ${String(n).padStart(4, '0')}`;
/** The rows the table has drawn (not the two spacers that stand for the others). */
const drawnRows = (page: Page) => page.locator('table[aria-label="Maps"] tbody tr:not(.virtual-spacer)').count();

describe('long lists', () => {
  it('a list of 1,050 maps loads page after page as the user scrolls, draws only the rows near the window, and reaches the last and the first', async () => {
    const rio = await makerInNewTeam('Long lists', 'Rio Router');
    await (await asAdmin()).admin.setQuota(rio.user.id, 2_000);
    for (let start = 1; start <= MAPS; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, MAPS - start + 1) }, (_, i) => rio.client.records('maps').save({ name: nameOf(start + i) })));
    }

    const { page, context, foreign } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), rio.email, rio.password);
    await page.goto(`${baseUrl()}/workspace/maps?sort=name-asc`);
    const table = page.getByRole('table', { name: 'Maps' });
    await table.getByRole('link', { name: nameOf(1), exact: true }).waitFor();
    expect(await table.getAttribute('aria-rowcount')).toBe(String(MAPS + 1));
    await page.getByRole('status').filter({ hasText: `200 of ${MAPS.toLocaleString('en-US')} maps: scroll on for the rest.` }).waitFor();

    // Scrolling to the end asks for the next page each time, until every map is loaded.
    const last = table.getByRole('link', { name: nameOf(MAPS), exact: true });
    await expect
      .poll(async () => {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        return last.isVisible();
      }, { timeout: 90_000, interval: 250 })
      .toBe(true);
    expect(await page.getByText('scroll on for the rest').count()).toBe(0);
    const drawnAtEnd = await drawnRows(page);
    expect(drawnAtEnd).toBeGreaterThan(10);
    expect(drawnAtEnd).toBeLessThan(120);
    expect(await table.getByRole('row').last().getAttribute('aria-rowindex')).toBe(String(MAPS + 1));

    // And back to the top: the first maps are drawn again, the last no longer.
    await page.evaluate(() => window.scrollTo(0, 0));
    await table.getByRole('link', { name: nameOf(1), exact: true }).waitFor();
    expect(await last.count()).toBe(0);
    expect(await drawnRows(page)).toBeLessThan(120);
    expect(foreign).toEqual([]);
    await context.close();
  }, 240_000);
});
