import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';

const browser = useBrowser();
const CSV = ['name,lat,lng', ...Array.from({ length: 20 }, (_, i) => `p${i},${(37.74 + (i % 5) * 0.01).toFixed(4)},${(-122.45 + Math.floor(i / 5) * 0.02).toFixed(4)}`)].join('\n');

describe('publishing a map', () => {
  it('publishes from a dialog drawn above the builder, opens the link signed out, and unpublishes it', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Publish team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Pia Publisher', `pia.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Piers ${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/new?datasetUuid=${dataset.id}`);
    await waitMapReady(page);
    await page.getByLabel('Map name').fill('Piers of the bay');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const mapId = new URL(page.url()).pathname.slice(1);

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish map' });
    await dialog.waitFor();
    // Above kepler's side panel and map: every point of the dialog's box hits the dialog itself.
    const covered = await dialog.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const probes = [0.02, 0.25, 0.5, 0.75, 0.98].flatMap((fx) => [0.05, 0.5, 0.95].map((fy) => [r.left + fx * r.width, r.top + fy * r.height] as const));
      return probes.filter(([x, y]) => !el.contains(document.elementFromPoint(x, y))).length;
    });
    expect(covered).toBe(0);
    expect(await page.locator('.side-panel, .side-bar').count()).toBeGreaterThan(0);
    expect(await dialog.getByLabel('Title').inputValue()).toBe('Piers of the bay');
    await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
    const status = dialog.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Published .* · 0 views/);
    const link = `${baseUrl()}/public/${mapId}`;
    expect(await dialog.getByRole('link', { name: link }).count()).toBe(1);
    expect(await dialog.getByLabel('Embed code').inputValue()).toBe(`<iframe src="${link}?embed=1" width="800" height="600" style="border:0" allowfullscreen title="Published map"></iframe>`);
    await dialog.getByLabel('Width').fill('640');
    expect(await dialog.getByLabel('Embed code').inputValue()).toContain('width="640" height="600"');
    await page.screenshot({ path: '/tmp/studio-publish-dialog.png' });

    const anon = await openStudio(browser(), baseUrl());
    await anon.page.goto(link);
    await waitMapReady(anon.page);
    expect(await anon.page.getByRole('heading', { name: 'Piers of the bay' }).count()).toBe(1);
    expect(await anon.page.evaluate(() => window.__studioMap!.layers().map((l) => l.dataId))).toEqual([dataset.id]);

    // The view is counted: the dialog opened again shows it; then the map is withdrawn.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await expect.poll(() => dialog.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/· 1 view$/);
    await dialog.getByRole('button', { name: 'Unpublish' }).click();
    await dialog.getByRole('button', { name: 'Publish', exact: true }).waitFor();
    expect(await dialog.getByRole('status').count()).toBe(0);

    await anon.page.reload();
    await anon.page.getByRole('heading', { name: 'This map is not published' }).waitFor();
    expect(anon.foreign).toEqual([]);
    expect(s.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 180_000);
});
