import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/**
 * Colors the first layer by `field` through kepler's own layer panel (kepler's new point layer may already
 * have picked it when it is the one measure).
 */
export async function colorFirstLayerBy(page: Page, field: string): Promise<void> {
  await page.locator('.layer__enable-config').first().click();
  const colorBy = page.locator('.layer-panel .channel-by-value-selector').first();
  await colorBy.waitFor();
  if (!(await colorBy.innerText()).includes(field)) {
    await colorBy.locator('.item-selector__dropdown').first().click();
    // kepler's field list opens in a portal (react-modal) over the page.
    await page.locator('.ReactModalPortal .list__item__anchor').filter({ hasText: new RegExp(`^${field}$`) }).click();
  }
  await expect.poll(() => colorBy.innerText()).toContain(field);
}

/** Opens the first layer's color range picker and picks the palette whose swatches show every one of `colors` (CSS rgb() text). */
export async function pickPaletteWith(page: Page, colors: string[]): Promise<void> {
  await page.locator('.layer-panel .color-selector__selector').first().click();
  const palettes = page.locator('.color-palette-outer');
  await palettes.first().waitFor();
  const swatchColors = await palettes.evaluateAll((items) =>
    items.map((item) => [...item.querySelectorAll('div')].map((d) => getComputedStyle(d).backgroundColor).filter((c) => c.startsWith('rgb(') && c !== 'rgb(0, 0, 0)')),
  );
  const ours = swatchColors.findIndex((shown) => colors.every((c) => shown.includes(c)));
  expect(ours, `palettes shown: ${JSON.stringify(swatchColors.slice(0, 5))}`).toBeGreaterThanOrEqual(0);
  await palettes.nth(ours).click();
  await closeKeplerPopovers(page);
}

/**
 * Closes kepler's open picker by a click outside it: on the map toolbar's empty right end (its middle holds the
 * builder's buttons — Export image, Spatial tools — which a click there would open).
 */
export async function closeKeplerPopovers(page: Page): Promise<void> {
  const toolbar = page.locator('.map-toolbar');
  const box = (await toolbar.boundingBox())!;
  await toolbar.click({ position: { x: box.width - 4, y: box.height / 2 } });
}

/**
 * Hovers the middle of the map (where kepler centred a one-point dataset) until kepler's tooltip opens; answers
 * its text with the white space collapsed. The small move first: deck picks on a pointer move, not a position.
 */
export async function tooltipAtCentre(page: Page): Promise<string> {
  const box = (await page.locator('.kepler-box').boundingBox())!;
  const popover = page.locator('.map-popover');
  await expect
    .poll(async () => {
      await page.mouse.move(box.x + box.width / 2 + 1, box.y + box.height / 2 + 1);
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      return popover.count();
    }, { timeout: 30_000 })
    .toBeGreaterThan(0);
  return (await popover.innerText()).replace(/\s+/g, ' ');
}

/**
 * The one-point `seen_at` 2024-03-05 14:30 UTC map in a browser in Asia/Tokyo: the tooltip reads 23:30 JST, then,
 * America/Los_Angeles picked in "Time zone", 06:30 PST (before the switch on the 10th).
 */
export async function expectTooltipInPickedZone(page: Page): Promise<void> {
  const chooser = page.getByLabel('Time zone');
  expect(await chooser.inputValue()).toBe('Asia/Tokyo');
  expect(await tooltipAtCentre(page)).toContain('seen_at 2024-03-05 23:30:00 JST');
  await chooser.selectOption('America/Los_Angeles');
  await page.mouse.move(5, 5); // off the point: the tooltip is drawn again on the next hover
  await expect.poll(() => tooltipAtCentre(page)).toContain('seen_at 2024-03-05 06:30:00 PST');
}
