import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useBrowser } from './browser';
import { makerInNewTeam, unique } from './api';
import { countPixels, countPngPixels, waitMapReady } from './pixels';
import { newMapOf } from './new-map';

const browser = useBrowser();

// Twenty points around San Francisco: software WebGL stays fast.
const CSV = ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.72 + (i % 5) * 0.02).toFixed(4)},${(-122.48 + Math.floor(i / 5) * 0.03).toFixed(4)}`)].join('\n');
/** The layer's colour in version 1 and in version 2: far apart, and from the basemap. */
const FIRST: [number, number, number] = [0, 200, 90];
const SECOND: [number, number, number] = [230, 30, 210];

/** Sets the first layer's colour as kepler's colour picker does, and waits until the map draws it. */
async function restyle(page: Page, rgb: [number, number, number]) {
  await page.evaluate((c) => window.__studioMap!.setLayerColor(0, c), rgb);
  await expect.poll(() => countPixels(page, rgb)).toBeGreaterThan(50);
}

async function save(page: Page) {
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
}

/** Pixels of `rgb` in one of the History panel's two renders (each an iframe with its own map). */
async function renderPixels(page: Page, frame: Locator, rgb: [number, number, number]) {
  return countPngPixels(page, await frame.screenshot(), rgb);
}

describe('the history of a map', () => {
  it('restyle, save, see the change and both renders in History, restore: the old colour is on the map again', async () => {
    const t0 = Date.now();
    const step = (what: string) => console.log(`history e2e: ${what} after ${Date.now() - t0} ms`);
    const maker = await makerInNewTeam('History', 'Hedy Historian');
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `History points ${unique()}` });

    const s = await newMapOf(browser(), maker, dataset.id);
    const { page } = s;

    step('map ready');
    // Version 1: the first save of the new map, its points in FIRST; version 2: restyled to SECOND.
    await restyle(page, FIRST);
    await page.getByLabel('Map name').fill('Harbour history');
    await save(page);
    await page.waitForURL((u) => /^\/[0-9a-f-]{36}$/.test(u.pathname));
    const mapId = new URL(page.url()).pathname.slice(1);
    // The map stays as it was saved when the address moves from /new to the map's own (it once went blank here).
    expect(await page.evaluate(() => window.__studioMap!.layers())).toMatchObject([{ type: 'point', dataId: dataset.id, color: FIRST }]);
    await restyle(page, SECOND);
    await page.getByLabel('Save message').fill('Points in pink');
    await save(page);
    expect((await maker.client.records('maps').get(mapId)).version).toBe(2);

    step('two versions saved');
    // History: both versions listed, the latest change compared first — the layer's colour, before → after.
    await page.getByRole('button', { name: 'History', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'History of Harbour history' });
    await expect.poll(() => panel.getByRole('list', { name: 'Versions' }).getByRole('listitem').count()).toBe(2);
    await panel.getByText('Points in pink').waitFor();
    const change = panel.getByRole('list', { name: 'Changes' }).getByRole('listitem');
    await expect.poll(() => change.count()).toBe(1);
    expect(await change.innerText()).toMatch(/layer[\s\S]*changed[\s\S]*color/i);
    await change.getByLabel(`Before: rgb(${FIRST.join(', ')})`).waitFor();
    await change.getByLabel(`After: rgb(${SECOND.join(', ')})`).waitFor();

    step('diff shown');
    // The two renders, side by side: version 1 drawn in FIRST, version 2 in SECOND.
    const from = panel.locator('iframe[title="Version 1"]');
    const to = panel.locator('iframe[title="Version 2"]');
    for (const frame of [from, to]) {
      const inner = (await (await frame.elementHandle())!.contentFrame())!;
      await inner.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 60_000 }).catch(async (e: unknown) => {
        await page.screenshot({ path: '/tmp/studio-history-renders.png' });
        throw e;
      });
    }
    step('renders ready');
    await expect.poll(() => renderPixels(page, from, FIRST)).toBeGreaterThan(20);
    await expect.poll(() => renderPixels(page, to, SECOND)).toBeGreaterThan(20);
    expect(await renderPixels(page, from, SECOND), 'version 1 is not drawn in the new colour').toBeLessThan(await renderPixels(page, from, FIRST));
    expect(await renderPixels(page, to, FIRST), 'version 2 is not drawn in the old colour').toBeLessThan(await renderPixels(page, to, SECOND));

    step('renders checked');
    // Restore version 1: a new version 3, and the editor shows it — the points in FIRST again.
    const v1 = panel.getByRole('list', { name: 'Versions' }).getByRole('listitem').filter({ hasText: 'Version 1 ·' });
    await v1.getByRole('button', { name: 'Restore…' }).click();
    await v1.getByRole('button', { name: 'Restore version 1' }).click();
    await panel.waitFor({ state: 'detached' });
    await waitMapReady(page);
    await expect.poll(() => page.evaluate(() => window.__studioMap?.layers()[0]?.color)).toEqual(FIRST);
    await expect.poll(() => countPixels(page, FIRST)).toBeGreaterThan(50);
    expect(await countPixels(page, SECOND)).toBeLessThan(10);
    step('restored on screen');
    const restored = await maker.client.records('maps').get(mapId);
    expect(restored.version).toBe(3);

    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
