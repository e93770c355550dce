import type { Page } from 'playwright-core';

/**
 * Exports the map as a 1280 × 720 PNG and answers the most kepler legends showing `text` at once while it ran: the
 * screen's and the one kepler draws off-screen for the export (isExport), so 2 when the export's legend has it.
 */
export async function legendsWithTextDuringExport(page: Page, text: string): Promise<number> {
  await page.evaluate((t) => {
    const w = window as unknown as { labelledLegends: number };
    w.labelledLegends = 0;
    new MutationObserver(() => {
      const n = [...document.querySelectorAll('.map-legend')].filter((l) => l.textContent?.includes(t)).length;
      w.labelledLegends = Math.max(w.labelledLegends, n);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  }, text);
  await page.getByRole('button', { name: 'Export image' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export image' });
  await dialog.getByLabel('Size').selectOption('1280 × 720');
  await Promise.all([page.waitForEvent('download', { timeout: 90_000 }), dialog.getByRole('button', { name: 'Export', exact: true }).click()]);
  return page.evaluate(() => (window as unknown as { labelledLegends: number }).labelledLegends);
}
