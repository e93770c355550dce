import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, countPngPixels, waitMapReady } from './pixels';
import { colorFirstLayerBy, pickPaletteWith } from './kepler-panels';

/**
 * The palette's end colours colour the points of the grid's outer rows, which the map fits about 50 px from its edges;
 * once saved, the toolbar's buttons take a second line and the map is that much shorter, so the default 60 px margin
 * of the pixel count would leave those rows out.
 */
const EDGE_ROWS = 20;

const browser = useBrowser();

// A style whose whole drawing is one color no built-in basemap has, so its pixels are unmistakable.
const MAGENTA: [number, number, number] = [255, 0, 255];
const STYLE = { version: 8, name: 'Magenta night', sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#ff00ff' } }] };
// kepler draws points at 80% opacity: on this style a palette color shows blended with magenta. Its
// points are small (a few pixels each, fewer of them in exactly the blended color): more than 10
// pixels of a color that neither the style nor kepler's default layer color has is the palette drawn.
const onMagenta = (rgb: [number, number, number]) => rgb.map((v, i) => Math.round(0.8 * v + 0.2 * MAGENTA[i]!)) as [number, number, number];
const GREEN = onMagenta([0, 255, 0]);
const BLUE = onMagenta([0, 0, 255]);
// A 10 x 10 grid of points with values 0..99, as in map-palettes.e2e.ts: every class of a scale by value has points.
const CSV = ['lat,lng,value', ...Array.from({ length: 100 }, (_, i) => `${(37.70 + (i % 10) * 0.015).toFixed(4)},${(-122.50 + Math.floor(i / 10) * 0.02).toFixed(4)},${(i % 10) * 10 + Math.floor(i / 10)}`)].join('\n');

async function screenshotPixels(page: Page, selector: string, rgb: [number, number, number]): Promise<number> {
  return countPngPixels(page, await page.locator(selector).screenshot(), rgb);
}

describe('the map style and color palette editors', () => {
  it('make a style from an uploaded style file and a palette, both used by a saved map that reopens with them', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Asset editor team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Ada Artisan', `ada.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Graded points ${unique()}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    const nav = page.getByRole('navigation', { name: 'Workspace' });

    // --- the map style: New basemap, a file that is not a style is refused, then the real one.
    await nav.getByRole('link', { name: 'Basemaps' }).click();
    await page.getByRole('link', { name: 'New basemap' }).click();
    const styleName = `Magenta night ${unique()}`;
    const file = page.getByLabel('Style file (MapLibre style JSON)');
    await file.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"version": 8, "layers": []}') });
    await page.getByRole('alert').filter({ hasText: 'broken.json: Style file must be a MapLibre style' }).waitFor();
    await file.setInputFiles({ name: 'magenta.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(STYLE)) });
    await page.getByRole('status', { name: 'Style summary' }).filter({ hasText: 'magenta.json: 1 layer (1 background), 0 sources.' }).waitFor();
    await page.locator('.style-preview[data-state="ready"]').waitFor({ timeout: 20_000 });
    expect(await screenshotPixels(page, '.style-preview', MAGENTA)).toBeGreaterThan(10_000);
    await page.screenshot({ path: '/tmp/studio-style-editor.png' });
    await page.getByLabel('Name').fill(styleName);
    await page.getByRole('button', { name: 'Create map style' }).click();
    await page.waitForURL((u) => /^\/workspace\/basemaps\/[0-9a-f-]{36}$/.test(u.pathname));
    const styleId = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('heading', { name: styleName }).waitFor();
    // Stored as its file, with the preview as its thumbnail.
    const asset = await maker.client.mapAssets.get(styleId);
    expect(asset).toMatchObject({ assetType: 'map-style', readPath: `/v1/map-assets/${styleId}/files/asset`, thumbnailUrl: expect.any(String) });
    const thumb = Buffer.from(await (await maker.client.raw('GET', asset.thumbnailUrl!)).arrayBuffer());
    expect(await countPngPixels(page, thumb, MAGENTA)).toBeGreaterThan(20_000);

    // --- the palette: New color palette, two colors; the colorblind check reacts to the colors.
    await nav.getByRole('link', { name: 'Colors' }).click();
    await page.getByRole('link', { name: 'New color palette' }).click();
    const paletteName = `Green to blue ${unique()}`;
    await page.getByLabel('Name').fill(paletteName);
    await page.getByRole('button', { name: 'Remove color 3' }).click();
    await page.getByLabel('Color 1 hex').fill('#00ff00');
    await page.getByLabel('Color 2 hex').fill('#ffff00');
    const check = page.getByRole('status', { name: 'Colorblind check' });
    await check.filter({ hasText: 'Colors 1 and 2 are hard to tell apart with protanopia.' }).waitFor();
    await page.getByLabel('Color 2 hex').fill('#0000ff');
    await check.filter({ hasText: 'Colorblind-safe' }).waitFor();
    await page.screenshot({ path: '/tmp/studio-palette-editor.png' });
    await page.getByRole('button', { name: 'Create color palette' }).click();
    await page.waitForURL((u) => /^\/workspace\/colors\/[0-9a-f-]{36}$/.test(u.pathname));
    expect((await maker.client.mapAssets.list('color-palette')).items).toMatchObject([{ name: paletteName, palette: { type: 'sequential', colors: ['#00ff00', '#0000ff'] } }]);

    // --- a map on both: the style from kepler's Base map panel, the palette from the layer's color range.
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(page);
    await page.locator('[data-for="map-nav"]').click();
    await page.locator('.map-dropdown-option:not(.collapsed)').first().click();
    await page.locator('.map-dropdown-option .map-preview-name').getByText(styleName, { exact: true }).click();
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 30_000 }).toBeGreaterThan(20_000);

    await page.locator('[data-for="layer-nav"]').click();
    await colorFirstLayerBy(page, 'value');
    expect(await countPixels(page, GREEN)).toBe(0);
    await pickPaletteWith(page, ['rgb(0, 255, 0)', 'rgb(0, 0, 255)']);
    for (const rgb of [GREEN, BLUE]) await expect.poll(() => countPixels(page, rgb, EDGE_ROWS), { timeout: 10_000 }).toBeGreaterThan(10);

    await page.getByLabel('Map name').fill(`On magenta ${unique()}`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.waitForURL((u) => /^\/[0-9a-f-]{36}$/.test(u.pathname));

    // Reopened: the style and the palette's colors are on screen again.
    await page.reload();
    await waitMapReady(page);
    await expect.poll(() => countPixels(page, MAGENTA), { timeout: 30_000 }).toBeGreaterThan(20_000);
    for (const rgb of [GREEN, BLUE]) await expect.poll(() => countPixels(page, rgb, EDGE_ROWS), { timeout: 10_000 }).toBeGreaterThan(10);
    await page.screenshot({ path: '/tmp/studio-map-own-style.png' });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});
