import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { mapAreaPng, pngRegions } from './pixels';

const browser = useBrowser();

/**
 * The basemap canvas right of kepler's side panel, from a real screenshot: its mean color, and how many
 * pixels are darker than `dark` (0–255 brightness: text ink, which no border or land color comes near).
 */
async function pixelStats(page: Page, dark = 110): Promise<{ mean: [number, number, number]; darkPixels: number }> {
  const { regions } = await pngRegions(page, await mapAreaPng(page, 80), { all: null }, { dark });
  return { mean: regions.all.mean, darkPixels: regions.all.dark };
}
/** kepler's own picker: the Base map tab, open the list, pick one by its label. */
async function pickBasemap(page: Page, label: string): Promise<void> {
  await page.locator('[data-for="map-nav"]').click();
  await page.locator('.map-dropdown-option:not(.collapsed)').first().click();
  await page.locator('.map-dropdown-option .map-preview-name').getByText(label, { exact: true }).click();
}
const meanColor = async (page: Page) => (await pixelStats(page)).mean;
const brightness = (c: number[]) => (c[0]! + c[1]! + c[2]!) / 3;

describe('built-in basemaps', () => {
  it('opens /new on the labelled basemap drawn from the studio’s own tiles, switches to dark, and the next new map opens on dark', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Basemap team ${unique()}`);
    const user = await createUser(admin, team.id, 'Bea Basemap', `bea.${unique()}@e2e.studio.test`);
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    const tiles: string[] = [];
    page.on('response', (r) => r.url().includes('/v1/basemaps/tiles/') && r.status() === 200 && tiles.push(r.url()));
    await signInThroughUi(page, baseUrl(), user.email, user.password);
    await page.goto(`${baseUrl()}/new`);
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    await expect.poll(() => tiles.length, { timeout: 20_000 }).toBeGreaterThan(0);
    await expect.poll(async () => brightness(await meanColor(page)), { timeout: 15_000 }).toBeGreaterThan(180);
    await page.screenshot({ path: '/tmp/studio-basemap-light.png' });

    await pickBasemap(page, 'Dark');
    // Long enough for a slow machine running other browser tests alongside.
    await expect.poll(async () => brightness(await meanColor(page)), { timeout: 40_000 }).toBeLessThan(70);
    await page.screenshot({ path: '/tmp/studio-basemap-dark.png' });
    // The pick is the user's: their next new map opens on it.
    await page.goto(`${baseUrl()}/new`);
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    await expect.poll(async () => brightness(await meanColor(page)), { timeout: 40_000 }).toBeLessThan(70);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 150_000);

  it('opens new maps on the basemap with place names, with the browser able to reach only the studio', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Label team ${unique()}`);
    const user = await createUser(admin, team.id, 'Lou Labels', `lou.${unique()}@e2e.studio.test`);
    const s = await openStudio(browser(), baseUrl());
    const { page, context } = s;
    // The network as an offline install has it: anything but the studio's host fails.
    const host = new URL(baseUrl()).host;
    await context.route('**/*', (route) => (new URL(route.request().url()).host === host ? route.continue() : route.abort('addressunreachable')));
    const glyphs: string[] = [];
    page.on('response', (r) => r.url().includes('/v1/basemaps/glyphs/') && r.status() === 200 && glyphs.push(r.url()));
    await signInThroughUi(page, baseUrl(), user.email, user.password);
    await page.goto(`${baseUrl()}/new`);
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    // New maps open with place names: dozens around the Bay, thousands of dark pixels of ink.
    await expect.poll(async () => (await pixelStats(page)).darkPixels, { timeout: 30_000 }).toBeGreaterThan(1_000);
    await page.screenshot({ path: '/tmp/studio-basemap-labelled.png' });
    // The light style has no text: its darkest pixels are borders (brightness 154), lighter than the labels' ink.
    await pickBasemap(page, 'Light');
    await expect.poll(async () => (await pixelStats(page)).darkPixels, { timeout: 30_000 }).toBeLessThan(20);
    expect(glyphs.length).toBeGreaterThan(0);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
