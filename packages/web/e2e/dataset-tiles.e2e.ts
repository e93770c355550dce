import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';

const browser = useBrowser();

/**
 * Points on a 200 × 100 grid 0.05° apart over the western United States: few enough to upload at once, spread
 * enough that cutting them to zoom 14 (a tile of their own each from zoom 10) takes the job a few seconds, so its
 * progress shows on the page before the tiles are built.
 */
const grid = (n: number) => ['name,lat,lng,score', ...Array.from({ length: n }, (_, i) => `p${i},${(30 + (i % 200) * 0.05).toFixed(4)},${(-120 + Math.floor(i / 200) * 0.05).toFixed(4)},${i % 97}`)].join('\n');
const CSV = grid(20_000);

describe("a dataset's own tiles from its page", () => {
  it('Build tiles shows the job’s progress, then the tiles built and drawn as a layer from the studio’s tile links', async () => {
    const maker = await makerInNewTeam('Tiles team', 'Tess Tiles');
    const source = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Grid points ${unique()}` });
    const s = await openStudio(browser(), baseUrl());
    const tiles: { path: string; status: number }[] = [];
    s.page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (new RegExp(`^/v1/vector-tiles/${source.id}/\\d+/\\d+/\\d+$`).test(path)) tiles.push({ path, status: r.status() });
    });
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/workspace/datasets/${source.id}`);
    const { page } = s;
    await page.getByRole('heading', { name: source.name, level: 1 }).waitFor();
    expect(await page.getByRole('region', { name: 'Vector tiles' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Build tiles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Build tiles' });
    expect(await dialog.getByLabel('Highest zoom').inputValue()).toBe('');
    await dialog.getByLabel('Lowest zoom').selectOption('2');
    await dialog.getByLabel('Highest zoom').selectOption('1');
    expect(await dialog.getByRole('button', { name: 'Build', exact: true }).isDisabled()).toBe(true);
    await dialog.getByLabel('Highest zoom').selectOption('14');
    await dialog.getByRole('button', { name: 'Build', exact: true }).click();

    // The job's progress while it runs (the dataset stays ready), with its Cancel.
    const progress = page.getByRole('status', { name: "Building a dataset's tiles" });
    await progress.waitFor();
    expect(await progress.getByRole('button', { name: 'Cancel' }).count()).toBe(1);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByText('Ready', { exact: true }).count()).toBe(1);
    // No second cut of the same data while this one runs.
    expect(await page.getByRole('button', { name: 'Build tiles' }).isDisabled()).toBe(true);

    // Then the tiles, built: what they hold, and drawn on the basemap through the signed tile links.
    const built = page.getByRole('region', { name: 'Vector tiles' });
    // (Its low zooms may show first, while the rest is cut: the whole pyramid is what the page ends on.)
    await expect.poll(() => built.getByLabel('Tiles built').textContent().catch(() => ''), { timeout: 60_000 }).toContain('Built: zooms 2–14, 20,000 features');
    await progress.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByRole('button', { name: 'Build tiles' }).isEnabled()).toBe(true);
    const preview = built.getByRole('img', { name: `${source.name}'s tiles` });
    await expect.poll(() => preview.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
    expect(Number(await preview.getAttribute('data-features'))).toBeGreaterThan(100);
    expect(tiles.length).toBeGreaterThan(0);
    expect(tiles.filter((t) => t.status >= 300)).toEqual([]);

    const job = (await maker.client.jobs.list({ resourceId: source.id, limit: 1 })).items[0]!;
    expect([job.kind, job.status]).toEqual(['dataset-tiles', 'succeeded']);
    await built.screenshot({ path: '/tmp/studio-dataset-tiles.png' });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000);

  it('a cut started elsewhere (the API, another page, another editor) shows on the page, and Build tiles waits for it', async () => {
    const maker = await makerInNewTeam('Tiles elsewhere team', 'Elsa Elsewhere');
    const source = await maker.client.datasets.upload(grid(60_000), { contentType: 'text/csv', name: `Grid points ${unique()}` });
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    // Zooms to 14 of three times the first test's points (the grid goes on eastwards): it runs while the page opens.
    const job = await maker.client.datasets.buildTiles(source.id, { maxZoom: 14 });
    await page.goto(`${baseUrl()}/workspace/datasets/${source.id}`);
    await page.getByRole('heading', { name: source.name, level: 1 }).waitFor();
    const progress = page.getByRole('status', { name: "Building a dataset's tiles" });
    await progress.waitFor();
    expect(await page.getByRole('button', { name: 'Build tiles' }).isDisabled()).toBe(true);
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await progress.waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => page.getByRole('button', { name: 'Build tiles' }).isEnabled()).toBe(true);
    expect((await maker.client.jobs.get(job.id)).status).toBe('cancelled');
    await s.context.close();
  }, 120_000);
});
