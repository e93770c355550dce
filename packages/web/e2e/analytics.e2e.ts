import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi, type StudioPage } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

/** The charts each view draws (data-chart ids) and its grid columns (analytics-and-admin §2, §9). */
const VIEWS: { slug: string; title: string; charts: string[]; columns: number; tables?: string[] }[] = [
  { slug: 'audience-insight', title: 'Audience Insight', charts: ['visit-share-age', 'fsi-age', 'visit-share-gender', 'fsi-gender'], columns: 14 },
  { slug: 'change-in-visits', title: 'Change in Visits', charts: ['change'], columns: 1 },
  { slug: 'cross-visitation', title: 'Cross-Visitation', charts: ['heatmap', 'overlap'], columns: 6 },
  { slug: 'customer-journey', title: 'Customer Journey', charts: [], tables: ['Visited before', 'Visited after'], columns: 1 },
  { slug: 'indexed-foot-traffic', title: 'Indexed Foot Traffic', charts: ['by-place', 'by-geography'], columns: 1 },
  { slug: 'movement-pivot', title: 'Movement Pivot', charts: [], tables: ['Movement pivot'], columns: 1 },
  { slug: 'visitation-trends', title: 'Visitation Trends', charts: ['trend-index', 'trend-daypart', 'trend-dwell'], columns: 1 },
];

/** Distinct colours and the share of non-white pixels on a chart's canvas: a blank canvas has 1 and 0. */
async function canvasInk(page: Page, chartId: string): Promise<{ colors: number; ink: number }> {
  const sel = `[data-chart="${chartId}"][data-state="ready"] .echart[data-rendered="true"] canvas`;
  try {
    await page.locator(sel).first().waitFor();
  } catch (e) {
    await page.screenshot({ path: `/tmp/studio-analytics-fail-${chartId}.png`, fullPage: true });
    const card = page.locator(`[data-chart="${chartId}"]`);
    const state = (await card.count()) ? `${await card.getAttribute('data-state')}: ${await card.innerText()}` : 'no card';
    throw new Error(`${chartId} not drawn (${state.slice(0, 300)})`, { cause: e });
  }
  return page.evaluate((s) => {
    const canvas = document.querySelector(s) as HTMLCanvasElement;
    const ctx = canvas.getContext('2d')!;
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const colors = new Set<number>();
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
      colors.add((r << 24) | (g << 16) | (b << 8) | a);
      if (a > 0 && (r < 245 || g < 245 || b < 245)) ink++;
    }
    return { colors: colors.size, ink: ink / (data.length / 4) };
  }, sel);
}

/** A maker of a fresh organization (no analytic-set config: the built-in sample answers). */
async function maker() {
  const admin = await asAdmin();
  const team = await admin.admin.createOrganization(`Foot traffic ${unique()}`);
  const u = await createUser(admin, team.id, 'Ana Lytics', `ana.${unique()}@e2e.studio.test`);
  return { ...u, orgId: team.id };
}

async function open(s: StudioPage, slug: string) {
  await s.page.goto(`${baseUrl()}/analytics/foot-traffic/${slug}`);
  await s.page.getByRole('heading', { level: 1, name: VIEWS.find((v) => v.slug === slug)!.title }).waitFor();
}

describe('foot-traffic analytic sets', () => {
  let user: Awaited<ReturnType<typeof maker>>;
  beforeAll(async () => {
    user = await maker();
    // The server generates the sample panel right after it starts: wait until the sets answer.
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await user.client.analytics.sets('foot-traffic');
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }, 180_000);

  it('opens every view with default parameters, its side menu, query bar and charts drawn', async () => {
    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), user.email, user.password);
    await s.page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Analytics' }).click();
    await s.page.waitForURL(/\/analytics\/foot-traffic\/audience-insight$/);
    for (const view of VIEWS) {
      await s.page.getByRole('navigation', { name: 'Analytic sets' }).getByRole('link', { name: view.title, exact: true }).click();
      await s.page.getByRole('heading', { level: 1, name: view.title }).waitFor();
      expect(await s.page.getByRole('navigation', { name: 'Analytic sets' }).getByRole('link').count()).toBe(7);
      const bar = s.page.getByRole('form', { name: 'Query' });
      await bar.getByRole('group', { name: 'Period' }).waitFor();
      expect(await s.page.locator('.chart-grid').first().getAttribute('data-grid-columns')).toBe(String(view.columns));
      for (const id of view.charts) {
        const ink = await canvasInk(s.page, id);
        expect(ink.colors, `${view.slug}/${id} colours`).toBeGreaterThan(8);
        expect(ink.ink, `${view.slug}/${id} ink`).toBeGreaterThan(0.01);
      }
      for (const name of view.tables ?? []) {
        const table = s.page.getByRole('table', { name });
        await table.locator('tbody tr').first().waitFor();
        expect(await table.locator('tbody tr').count()).toBeGreaterThan(0);
      }
      await s.page.screenshot({ path: `/tmp/studio-analytics-${view.slug}.png`, fullPage: true });
    }
    // Audience: ages in their natural order on the axis.
    await open(s, 'audience-insight');
    await canvasInk(s.page, 'visit-share-age');
    const ages = await s.page.evaluate(() => {
      const el = document.querySelector('[data-chart="visit-share-age"] .echart') as unknown as { echartsInstance: { getOption(): { xAxis: { data: string[] }[] } } };
      return el.echartsInstance.getOption().xAxis[0]!.data;
    });
    expect(ages).toEqual(['18-24', '25-34', '35-44', '45-54', '55-64', 'Over 65']);
    // Customer Journey switches to charts.
    await open(s, 'customer-journey');
    await s.page.getByRole('table', { name: 'Visited before' }).locator('tbody tr').first().waitFor();
    await s.page.getByRole('button', { name: 'Chart' }).click();
    await s.page.getByRole('img', { name: 'Top places visited before' }).locator('canvas').waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });

  it('changes the query from the query bar: period type and stickers', async () => {
    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), user.email, user.password);
    await open(s, 'visitation-trends');
    await canvasInk(s.page, 'trend-index');
    const queries: string[] = [];
    s.page.on('request', (r) => r.url().includes('/template/trends-indexed') && queries.push(r.postData() ?? ''));
    await s.page.getByRole('combobox', { name: 'Period type' }).selectOption('QUARTERLY');
    await s.page.waitForFunction(() => document.querySelector('[data-chart="trend-index"]')?.getAttribute('data-state') === 'ready');
    await expect.poll(() => queries.some((q) => /"periodType":"QUARTERLY","start":"\d{4}-Q[1-4]","end":"\d{4}-Q[1-4]"/.test(q))).toBe(true);
    const places = s.page.getByRole('group', { name: 'Chains or categories' });
    const before = await places.locator('.sticker').count();
    await places.getByRole('button', { name: /^Remove / }).first().click();
    expect(await places.locator('.sticker').count()).toBe(before - 1);
    await canvasInk(s.page, 'trend-index');

    // DROPDOWN_GROUP: one value, options grouped (geography: country and market area).
    await open(s, 'customer-journey');
    await s.page.getByRole('table', { name: 'Visited before' }).locator('tbody tr').first().waitFor();
    const geography = s.page.getByRole('combobox', { name: 'Geography' });
    expect(await geography.locator('optgroup').evaluateAll((gs) => gs.map((g) => g.getAttribute('label')))).toEqual(['Country', 'Market area']);
    const market = await geography.locator('optgroup[label="Market area"] option').first().getAttribute('value');
    const sent = s.page.waitForRequest((r) => r.url().includes('/template/customer-journey') && (r.postData() ?? '').includes(`"geographies":["${market}"]`));
    await geography.selectOption(market!);
    await sent;

    // DROPDOWN (cohorts) and PIVOT_TABLE on the Movement Pivot.
    await open(s, 'movement-pivot');
    await s.page.getByRole('table', { name: 'Movement pivot' }).locator('tbody tr').first().waitFor();
    const pivotSent = s.page.waitForRequest((r) => r.url().includes('/template/movement-pivot') && /"age":\["25-34"\]/.test(r.postData() ?? '') && /"rows":\["geography","place","age"\]/.test(r.postData() ?? ''));
    await s.page.getByText('Age: All').click();
    await s.page.getByRole('group', { name: 'Age', exact: true }).getByLabel('25-34').check();
    await s.page.getByRole('combobox', { name: 'Pivot age' }).selectOption('rows');
    await pivotSent;
    await s.page.getByRole('table', { name: 'Movement pivot' }).getByRole('rowheader', { name: '25-34' }).first().waitFor();
    await s.context.close();
  });

  it('focuses the overlap bar chart on the chain column clicked in the heatmap', async () => {
    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), user.email, user.password);
    await open(s, 'cross-visitation');
    await canvasInk(s.page, 'heatmap');
    await canvasInk(s.page, 'overlap');
    const focus = () => s.page.locator('[data-focus-chain]').getAttribute('data-focus-chain');
    const chains = await s.page.evaluate(() => {
      const el = document.querySelector('[data-chart="heatmap"] .echart') as unknown as { echartsInstance: { getOption(): { xAxis: { data: string[] }[] } } };
      return el.echartsInstance.getOption().xAxis[0]!.data;
    });
    expect(chains.length).toBeGreaterThan(1);
    expect(await focus()).toBe(chains[0]);
    // Click the cell of row 0, column 2 (or 1): a real mouse click on the canvas where ECharts drew it.
    const col = Math.min(2, chains.length - 1);
    const point = await s.page.evaluate((c) => {
      const el = document.querySelector('[data-chart="heatmap"] .echart') as unknown as HTMLElement & { echartsInstance: { convertToPixel(f: object, v: number[]): number[] } };
      const [x, y] = el.echartsInstance.convertToPixel({ seriesIndex: 0 }, [c, 0]);
      const box = el.getBoundingClientRect();
      return { x: box.left + x!, y: box.top + y! };
    }, col);
    await s.page.mouse.click(point.x, point.y);
    await expect.poll(focus).toBe(chains[col]);
    await s.page.getByRole('heading', { name: `Visitor Overlap: ${chains[col]}` }).waitFor();
    await canvasInk(s.page, 'overlap');
    await s.page.screenshot({ path: '/tmp/studio-analytics-cross-focus.png', fullPage: true });
    await s.context.close();
  });

  it('exports the pivot as CSV only when the set allows it', async () => {
    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), user.email, user.password);
    await open(s, 'movement-pivot');
    await s.page.getByRole('table', { name: 'Movement pivot' }).locator('tbody tr').first().waitFor().catch(async (e) => {
      await s.page.screenshot({ path: '/tmp/studio-analytics-fail-pivot.png', fullPage: true });
      throw new Error(`pivot not drawn: ${(await s.page.locator('[data-chart="pivot"]').innerText()).slice(0, 300)}`, { cause: e });
    });
    const exportButton = s.page.getByRole('button', { name: 'Export CSV' });
    expect(await exportButton.isDisabled()).toBe(true);

    // The organization's config switches export on (the sample keeps answering: no datasets bound).
    await user.client.analytics.saveConfig({ groupId: 'foot-traffic', orgId: user.orgId, datasets: null, templateParameters: { movement_pivot_canExport: true } });
    await s.page.reload();
    await s.page.getByRole('table', { name: 'Movement pivot' }).locator('tbody tr').first().waitFor();
    await expect.poll(() => exportButton.isEnabled()).toBe(true);
    const [download] = await Promise.all([s.page.waitForEvent('download'), exportButton.click()]);
    expect(download.suggestedFilename()).toBe('movement-pivot.csv');
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    const csv = readFileSync(path!, 'utf8').trim().split('\n');
    expect(csv[0]).toContain('normalized_visits');
    expect(csv.length).toBeGreaterThan(1);
    await s.context.close();
  });
});
