import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

// Six sales: totals by hand — all 80; Cafe 60, Fuel 13, Toys 7; 2024-02-01..2024-03-31: 65 (Cafe 50, Fuel 8, Toys 7).
const CSV = [
  'store,category,day,amount,lat,lng',
  'A,Cafe,2024-01-05,10,37.77,-122.41',
  'B,Cafe,2024-02-10,20,37.78,-122.42',
  'C,Fuel,2024-01-15,5,37.79,-122.43',
  'D,Toys,2024-03-01,7,37.80,-122.44',
  'E,Cafe,2024-03-20,30,37.81,-122.45',
  'F,Fuel,2024-02-25,8,37.82,-122.46',
].join('\n');

const widget = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });
const kpi = (page: Page) => widget(page, 'Total amount').locator('.widget-kpi[data-state="ready"] .kpi-value');
const tableRows = (page: Page) => widget(page, 'Rows').locator('.widget-table[data-state="ready"] tbody tr');
const barCanvas = (page: Page) => widget(page, 'Sales by category').locator('.widget-chart[data-state="ready"] .echart[data-rendered="true"]');

async function addWidget(page: Page, fill: (dialog: Locator) => Promise<void>) {
  await page.getByRole('button', { name: 'Add widget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add widget' });
  await fill(dialog);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

async function addParameter(page: Page, type: string, column: string, label: string, name: string) {
  await page.getByRole('button', { name: 'Add parameter' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add parameter' });
  await dialog.getByLabel('Type').selectOption(type);
  await dialog.getByLabel(/^(Column|Date column)$/).selectOption(column);
  await dialog.getByLabel('Label').fill(label);
  await dialog.getByLabel(/^Name in links/).fill(name);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** Clicks the bar of one category, where ECharts drew it (its instance converts data to pixels). */
async function clickBar(page: Page, category: string, categories: string[]) {
  // The chart keeps its last drawing while new rows load: wait for the drawing of the current rows.
  await expect.poll(() => barCanvas(page).evaluate((el) => (el as HTMLElement & { echartsInstance: { getOption: () => { xAxis: { data: string[] }[] } } }).echartsInstance.getOption().xAxis[0]!.data)).toEqual(categories);
  await widget(page, 'Sales by category').locator('.widget-chart:not(.is-refreshing)').waitFor();
  await barCanvas(page).scrollIntoViewIfNeeded();
  await barCanvas(page).waitFor(); // its animation to the current rows has finished
  const box = (await barCanvas(page).boundingBox())!;
  const at = await barCanvas(page).evaluate((el, c) => {
    type Chart = { convertToPixel: (f: object, v: unknown[]) => number[]; getOption: () => { xAxis: { data: string[] }[] } };
    const chart = (el as HTMLElement & { echartsInstance: Chart }).echartsInstance;
    // Halfway up the smallest bar (1 sale): the category by its index on the axis.
    return chart.convertToPixel({ xAxisIndex: 0, yAxisIndex: 0 }, [chart.getOption().xAxis[0]!.data.indexOf(c), 0.5]);
  }, category);
  await page.mouse.click(box.x + at[0]!, box.y + at[1]!);
}

const shot = (l: Locator) => l.screenshot().then((b) => b.toString('base64'));

describe('dashboards', () => {
  it('an analyst builds a dashboard from a dataset; parameters, cross-filters, save, links, viewers and a password-protected publication hold', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Dashboards ${unique()}`);
    const dana = await createUser(admin, team.id, 'Dana Board', `dana.${unique()}@e2e.studio.test`);
    const vic = await createUser(admin, team.id, 'Vic Viewer', `vic.${unique()}@e2e.studio.test`);
    const dataset = await dana.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Store sales ${unique()}` });
    const kepler = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.79, longitude: -122.43, zoom: 11 }, mapStyle: { styleType: 'blank' } } };
    const map = await dana.client.records('maps').save({ name: `Stores ${unique()}`, datasets: [dataset.id], latestState: { studioVersion: 1, kepler } });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), dana.email, dana.password);
    // "New dashboard" on the dataset opens the report template with the dataset chosen for new widgets.
    await page.goto(`${baseUrl()}/workspace/datasets/${dataset.id}`);
    await page.getByRole('link', { name: 'New dashboard' }).click();
    await page.waitForURL(/\/dashboard\/new\?datasetId=/);
    await page.getByRole('heading', { name: 'Report', level: 1 }).waitFor();

    await addWidget(page, async (d) => {
      await d.getByLabel('Kind').selectOption('bar');
      await d.getByLabel('Title', { exact: true }).fill('Sales by category');
      await d.getByLabel('Group by').selectOption('category');
    });
    await addWidget(page, async (d) => {
      await d.getByLabel('Kind').selectOption('kpi');
      await d.getByLabel('Title', { exact: true }).fill('Total amount');
      await d.getByLabel('Measure').selectOption('sum');
      await d.getByLabel('Of column').selectOption('amount');
      await d.getByLabel(/^Date column/).selectOption('day');
    });
    await addWidget(page, async (d) => {
      await d.getByLabel('Kind').selectOption('map');
      await d.getByLabel('Title', { exact: true }).fill('Store map');
      await d.getByLabel('Map', { exact: true }).selectOption(map.id);
    });
    await addWidget(page, async (d) => {
      await d.getByLabel('Kind').selectOption('table');
      await d.getByLabel('Title', { exact: true }).fill('Rows');
      for (const c of ['store', 'category', 'amount']) await d.getByRole('checkbox', { name: c, exact: true }).check();
    });
    await addWidget(page, async (d) => {
      await d.getByLabel('Kind').selectOption('text');
      await d.getByLabel('Title', { exact: true }).fill('Notes');
      await d.getByLabel('Text (markdown)').fill('## Weekly sales\n\nFigures from the **store sales** dataset.');
    });
    await addParameter(page, 'DROPDOWN', 'category', 'Category', 'category');
    await addParameter(page, 'RANGE_PERIOD', 'day', 'Period', 'period');

    await expect.poll(() => kpi(page).textContent()).toBe('80');
    await expect.poll(() => tableRows(page).count()).toBe(6);
    await widget(page, 'Notes').getByRole('heading', { name: 'Weekly sales' }).waitFor();
    // The map widget shows the saved map alone: no workspace menu, no map toolbar inside its frame.
    const frame = widget(page, 'Store map').frameLocator('iframe');
    await frame.locator('.map-view-embedded').waitFor();
    expect(await frame.locator('.sidebar').count()).toBe(0);
    expect(await frame.locator('.map-toolbar').isVisible()).toBe(false);
    await barCanvas(page).waitFor();
    const before = { bar: await shot(widget(page, 'Sales by category')), kpi: await shot(widget(page, 'Total amount')) };

    // A parameter value: every bound widget changes.
    const bar = page.getByRole('group', { name: 'Parameters' });
    await bar.getByLabel('Category').selectOption('Cafe');
    await expect.poll(() => kpi(page).textContent()).toBe('60');
    await expect.poll(() => tableRows(page).count()).toBe(3);
    await barCanvas(page).waitFor();
    await expect.poll(async () => (await shot(widget(page, 'Sales by category'))) !== before.bar).toBe(true);
    expect(await shot(widget(page, 'Total amount'))).not.toBe(before.kpi);
    await bar.getByLabel('Period from').fill('2024-02-01');
    await bar.getByLabel('Period to').fill('2024-03-31');
    await expect.poll(() => kpi(page).textContent()).toBe('50');
    // The KPI compares with the previous period of the same length (2023-12-03..2024-01-31: Cafe 10).
    await expect.poll(() => widget(page, 'Total amount').locator('.kpi-change').textContent()).toBe('▲ 400.0% vs previous period');
    await bar.getByLabel('Category').selectOption('');
    await expect.poll(() => kpi(page).textContent()).toBe('65');

    // A click on the Fuel bar filters the other widgets, and says so in a chip that clears it.
    await barCanvas(page).waitFor();
    await clickBar(page, 'Fuel', ['Cafe', 'Fuel', 'Toys']);
    const chip = page.getByRole('button', { name: 'Filtered by category = Fuel ×' });
    await chip.waitFor();
    await expect.poll(() => kpi(page).textContent()).toBe('8');
    await expect.poll(() => tableRows(page).count()).toBe(1);
    await chip.click();
    await expect.poll(() => kpi(page).textContent()).toBe('65');

    // Save; the link keeps the parameter values; a reload shows the same.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/dashboard\/[0-9a-f-]{36}\?/);
    const id = /\/dashboard\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    expect(new URL(page.url()).searchParams.get('period')).toBe('2024-02-01..2024-03-31');
    await page.reload();
    await expect.poll(() => kpi(page).textContent()).toBe('65');
    await expect.poll(() => tableRows(page).count()).toBe(4);
    expect(await page.locator('[data-widget]').count()).toBe(6);

    // A link with a parameter opens preset.
    await page.goto(`${baseUrl()}/dashboard/${id}?category=Fuel`);
    await expect.poll(() => kpi(page).textContent(), { timeout: 45_000 }).toBe('13');
    await expect.poll(() => page.getByRole('group', { name: 'Parameters' }).getByLabel('Category').inputValue()).toBe('Fuel');

    // A viewer it is shared with sees it read-only, with the same numbers.
    await dana.client.records('dashboards').share(id, { users: [{ userId: vic.user.id, role: 'viewer' }] });
    const v = await openStudio(browser(), baseUrl());
    await signInThroughUi(v.page, baseUrl(), vic.email, vic.password);
    await v.page.goto(`${baseUrl()}/dashboard/${id}?category=Toys`);
    await v.page.getByText('Read only', { exact: true }).waitFor();
    await expect.poll(() => kpi(v.page).textContent()).toBe('7');
    expect(await v.page.getByRole('button', { name: 'Add widget' }).count()).toBe(0);
    expect(await v.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await v.context.close();

    // Published with a password: an anonymous reader is refused without it and sees the dashboard with it.
    await page.getByRole('button', { name: 'Publish' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish dashboard' });
    await dialog.getByLabel('Password (optional)').fill('open sesame 42');
    await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
    await dialog.getByText('Published with a password').waitFor();
    const anon = await openStudio(browser(), baseUrl());
    await anon.page.goto(`${baseUrl()}/public/dashboard/${id}`);
    await anon.page.getByText('This dashboard is protected by a password.').waitFor();
    expect(await anon.page.getByRole('region', { name: 'Total amount' }).count()).toBe(0);
    const form = anon.page.getByRole('form', { name: 'Password' });
    await form.getByLabel('Password').fill('wrong password');
    await form.getByRole('button', { name: 'Open' }).click();
    await anon.page.getByRole('alert').waitFor();
    expect(await anon.page.getByRole('region', { name: 'Total amount' }).count()).toBe(0);
    await form.getByLabel('Password').fill('open sesame 42');
    await form.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => kpi(anon.page).textContent()).toBe('80');
    // The map is not published: its widget says so instead of asking the reader to sign in.
    await widget(anon.page, 'Store map').getByText('This map is not published').waitFor();
    expect(await widget(anon.page, 'Store map').locator('iframe').count()).toBe(0);
    // Once the map is published, the same reader sees it through its publication.
    await dana.client.maps.publish(map.id);
    await anon.page.reload();
    await form.getByLabel('Password').fill('open sesame 42');
    await form.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => widget(anon.page, 'Store map').locator('iframe').getAttribute('src')).toBe(`/public/${map.id}?embed=1`);
    await widget(anon.page, 'Store map').frameLocator('iframe').locator('.map-view-embedded').waitFor();
    expect(s.foreign.concat(anon.foreign)).toEqual([]);
    await anon.context.close();

    // The dashboards list shows the saved dashboard's thumbnail, drawn from its grid on save.
    await page.goto(`${baseUrl()}/workspace/dashboards`);
    const thumb = page.locator('.thumb[data-thumbnail="loaded"]').first();
    await thumb.waitFor();
    const size = await thumb.evaluate((el) => new Promise<number[]>((resolve, reject) => {
      const img = new Image();
      img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
      img.onerror = () => reject(new Error('the thumbnail did not load'));
      img.src = /url\("?([^")]+)"?\)/.exec(getComputedStyle(el).backgroundImage)?.[1] ?? '';
    }));
    expect(size).toEqual([480, 300]);
    await s.context.close();
  }, 150_000);

  it('every template opens populated; "Save as dashboard" on an analytic-set view reproduces its charts, the pivot included', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Dashboard templates ${unique()}`);
    const ana = await createUser(admin, team.id, 'Ana Lytics', `ana.${unique()}@e2e.studio.test`);
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), ana.email, ana.password);

    await page.goto(`${baseUrl()}/dashboard/new`);
    await page.getByRole('heading', { name: 'Report', level: 1 }).waitFor();
    await page.goto(`${baseUrl()}/dashboard/new?templateId=blank`);
    await page.getByText('This dashboard has no widgets yet.').waitFor();

    await page.goto(`${baseUrl()}/analytics/foot-traffic/change-in-visits`);
    await page.getByRole('button', { name: 'Save as dashboard' }).click();
    await page.waitForURL(/\/dashboard\/new\?templateId=analytic:change-in-visits/);
    expect(await page.getByLabel('Dashboard name').inputValue()).toBe('Change in Visits');
    await widget(page, 'Percent Change by Geography').locator('.widget-chart[data-state="ready"] .echart[data-rendered="true"]').waitFor();

    const views = ['audience-insight', 'cross-visitation', 'customer-journey', 'indexed-foot-traffic', 'visitation-trends'];
    for (const view of views) {
      await page.goto(`${baseUrl()}/dashboard/new?templateId=analytic:${view}`);
      await page.locator('[data-widget]').first().waitFor();
      const all = await page.locator('[data-widget]').count();
      await expect.poll(async () => ((await page.locator('.widget-body [data-state="ready"]').count()) === all ? 'ready' : await page.locator('.dashboard-grid').innerText()), { message: view }).toBe('ready');
    }
    // The Movement Pivot as Perspective's pivot grid (loaded on first use, from this studio only).
    await page.goto(`${baseUrl()}/dashboard/new?templateId=analytic:movement-pivot`);
    await page.locator('.widget-pivot[data-state="ready"] perspective-viewer').waitFor({ timeout: 30_000 });
    type Viewer = HTMLElement & { getView(): Promise<{ num_rows(): Promise<number> }> };
    expect(await page.locator('perspective-viewer').evaluate(async (el) => (await (el as Viewer).getView()).num_rows())).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/dashboard\/[0-9a-f-]{36}/);
    await page.reload();
    await page.locator('.widget-pivot[data-state="ready"] perspective-viewer').waitFor({ timeout: 30_000 });
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });
});
