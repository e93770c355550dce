import { describe, expect, it } from 'vitest';
import type { StudioRecord } from '@studio/schema';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, waitMapReady } from './pixels';
import { colorFirstLayerBy, pickPaletteWith } from './kepler-panels';

const browser = useBrowser();

// A 10 x 10 grid of points with values 0..99 growing by row, so that every color of a scale by value
// has a whole row of points across the map (the left columns sit under kepler's side panel).
const CSV = ['lat,lng,value', ...Array.from({ length: 100 }, (_, i) => `${(37.70 + (i % 10) * 0.015).toFixed(4)},${(-122.50 + Math.floor(i / 10) * 0.02).toFixed(4)},${(i % 10) * 10 + Math.floor(i / 10)}`)].join('\n');
// A sequential ramp between colors no kepler palette has, so its swatches and pixels are unmistakable
// (sequential palettes spread over any number of steps; a qualitative one shows only at its own count).
const COLORS = ['#FF00FF', '#00FFFF'];
const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

describe("the builder's color picker", () => {
  it("offers the user's own palette asset and colors the layer with it", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Palette map team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Cleo Colorist', `cleo.${unique()}@e2e.studio.test`);
    await maker.client.request<{ item: StudioRecord }>('POST', '/v1/map-assets', {
      body: { assetType: 'color-palette', name: `Neon ${unique()}`, palette: { type: 'sequential', colors: COLORS } },
    });
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Valued points ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    page.on('console', (m) => m.type() === 'error' && console.error('console', m.text().slice(0, 300)));
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(page);

    // Color based on `value`, through kepler's own layer panel. `value` is a BIGINT column: it used to
    // fail on BigInt values, leaving the layer with no field. Our palette is among the color range's
    // palettes, its swatches in its own colors.
    await colorFirstLayerBy(page, 'value');
    await pickPaletteWith(page, ['rgb(255, 0, 255)', 'rgb(0, 255, 255)']);
    // The points now wear the palette's colors.
    for (const hex of COLORS) await expect.poll(() => countPixels(page, rgbOf(hex)), { timeout: 10_000 }).toBeGreaterThan(20);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);
});
