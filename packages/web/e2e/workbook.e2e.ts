import fs from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPngPixels } from './pixels';

const browser = useBrowser();

// Six sales; by hand: amount > 6 keeps A, B, D, E, F (Cafe 10+20+30 over 3, Toys 7, Fuel 8); amount > 8 drops D and F.
const CSV = [
  'store,category,amount,lat,lng',
  'A,Cafe,10,37.77,-122.41',
  'B,Cafe,20,37.78,-122.42',
  'C,Fuel,5,37.79,-122.43',
  'D,Toys,7,37.80,-122.44',
  'E,Cafe,30,37.81,-122.45',
  'F,Fuel,8,37.82,-122.46',
].join('\n');
const SHAPE = JSON.stringify({ type: 'Polygon', coordinates: [[[-122.46, 37.76], [-122.40, 37.76], [-122.40, 37.83], [-122.46, 37.83], [-122.46, 37.76]]] });

const cell = (page: Page, name: string) => page.getByRole('region', { name: `Cell ${name}`, exact: true });
const summary = (page: Page, name: string) => cell(page, name).getByRole('status', { name: `Result of ${name}` });
const runsOf = async (page: Page, names: string[]) => Object.fromEntries(await Promise.all(names.map(async (n) => [n, Number(await cell(page, n).getAttribute('data-runs'))])));
const rowsText = (page: Page, name: string) => cell(page, name).getByRole('table', { name: `Rows of ${name}` }).locator('tbody tr').allInnerTexts();

async function addCell(page: Page, kind: string, step?: string) {
  const form = page.getByRole('form', { name: 'Add a cell' });
  await form.getByLabel('Cell kind').selectOption(kind);
  if (step) await form.getByLabel('Step type').selectOption(step);
  await form.getByRole('button', { name: 'Add cell' }).click();
}

/** Pixels of an element's screenshot unlike its first pixel: something was drawn. */
async function drawnPixels(page: Page, l: Locator): Promise<number> {
  return countPngPixels(page, await l.screenshot(), null);
}

describe('workbooks', () => {
  // Every cell kind run, saved, reloaded and read again by a viewer: past a minute on a loaded 2-core machine.
  it('an analyst builds a workbook from a dataset: steps, SQL, chart and map; only dependent cells re-run; save, reload, save as dataset; a viewer reads it', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Workbooks ${unique()}`);
    const wendy = await createUser(admin, team.id, 'Wendy Book', `wendy.${unique()}@e2e.studio.test`);
    const vic = await createUser(admin, team.id, 'Vic Viewer', `vic.${unique()}@e2e.studio.test`);
    const dataset = await wendy.client.datasets.upload(CSV, { contentType: 'text/csv', name: `sales_${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), wendy.email, wendy.password);
    // "New workbook" on the dataset: its step, run at once.
    await page.goto(`${baseUrl()}/workspace/datasets/${dataset.id}`);
    await page.getByRole('link', { name: 'New workbook' }).click();
    await page.waitForURL(/\/workbook\/new\?datasetId=/);
    const data = dataset.name.toLowerCase();
    await expect.poll(() => summary(page, data).textContent()).toMatch(/^6 rows · \d+ ms · DuckDB/);
    await expect.poll(() => cell(page, data).locator('th').allInnerTexts()).toEqual(['store\nVARCHAR', 'category\nVARCHAR', 'amount\nBIGINT', 'lat\nDOUBLE', 'lng\nDOUBLE']);

    // A filter step reads the cell above; Shift+Enter runs it.
    await addCell(page, 'step', 'filter');
    await cell(page, 'filtered').getByLabel('Condition').fill('amount > 6');
    await cell(page, 'filtered').getByLabel('Condition').press('Shift+Enter');
    await expect.poll(() => summary(page, 'filtered').textContent()).toMatch(/^5 rows/);

    await addCell(page, 'step', 'group');
    await cell(page, 'grouped').getByRole('group', { name: 'Group by' }).getByLabel('category').check();
    await cell(page, 'grouped').getByLabel('Aggregates').fill('count(*) AS n\nsum(amount) AS total');
    await cell(page, 'grouped').getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => summary(page, 'grouped').textContent()).toMatch(/^3 rows/);

    await addCell(page, 'step', 'hexify');
    await cell(page, 'hexes').getByLabel('Shape').fill(SHAPE);
    await cell(page, 'hexes').getByLabel('Resolution').fill('7');
    await cell(page, 'hexes').getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => summary(page, 'hexes').textContent()).toMatch(/^\d+ rows/);

    // SQL over the cells above, by their names.
    await addCell(page, 'sql');
    const editor = cell(page, 'result').locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('select category, total, (select count(*) from hexes) > 0 as covered from grouped order by total desc');
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => rowsText(page, 'result')).toEqual(['Cafe\t60\ttrue', 'Fuel\t8\ttrue', 'Toys\t7\ttrue']);

    // A chart of the SQL cell and a map of the filter.
    await addCell(page, 'chart');
    await cell(page, 'chart').getByLabel('X column').selectOption('category');
    await cell(page, 'chart').getByLabel('Y column').selectOption('total');
    const canvas = cell(page, 'chart').locator('.echart[data-rendered="true"]');
    await canvas.waitFor();
    expect(await drawnPixels(page, canvas)).toBeGreaterThan(500);
    await addCell(page, 'map');
    await cell(page, 'map').getByLabel('Source cell').selectOption('filtered');
    // A kepler.gl view of the filter's rows, with the point layer kepler makes for their latitude and longitude.
    const map = cell(page, 'map').locator('.kepler-cell[data-state="ready"]');
    await map.locator('.kepler-box[data-map-ready="true"]').waitFor({ timeout: 45_000 });
    expect(await map.getAttribute('data-rows')).toBe('5');
    await map.screenshot({ path: '/tmp/studio-workbook-map.png' });
    // The points themselves: the map left of kepler's buttons and above its attribution, unlike the blank basemap.
    const box = (await map.boundingBox())!;
    const points = await page.screenshot({ clip: { x: box.x + 2, y: box.y + 2, width: box.width - 80, height: box.height - 40 } });
    expect(await countPngPixels(page, points, null)).toBeGreaterThan(30);

    // Editing the filter runs it and the cells below that read it; the dataset and the hexes stay as they were.
    const names = [data, 'filtered', 'grouped', 'hexes', 'result'];
    expect(await runsOf(page, names)).toEqual({ [data]: 1, filtered: 1, grouped: 1, hexes: 1, result: 1 });
    await cell(page, 'filtered').getByLabel('Condition').fill('amount > 8');
    await expect.poll(() => cell(page, 'grouped').getByRole('status').first().textContent()).toMatch(/Stale/);
    await cell(page, 'filtered').getByLabel('Condition').press('Shift+Enter');
    await expect.poll(() => rowsText(page, 'result')).toEqual(['Cafe\t60\ttrue']);
    expect(await runsOf(page, names)).toEqual({ [data]: 1, filtered: 2, grouped: 2, hexes: 1, result: 2 });
    await expect.poll(() => cell(page, 'map').locator('.kepler-cell').getAttribute('data-rows')).toBe('3');

    // Save, reload: the same cells, run again from the saved state.
    await page.getByLabel('Workbook name').fill('Cafe sales');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/workbook\/[0-9a-f-]{36}$/);
    const url = page.url();
    await page.reload();
    await expect.poll(() => rowsText(page, 'result')).toEqual(['Cafe\t60\ttrue']);
    expect(await page.getByLabel('Workbook name').inputValue()).toBe('Cafe sales');
    expect(await page.getByRole('region', { name: /^Cell / }).evaluateAll((cells) => cells.map((c) => c.getAttribute('aria-label')))).toEqual(
      [data, 'filtered', 'grouped', 'hexes', 'result', 'chart', 'map'].map((n) => `Cell ${n}`),
    );

    // A cell's result downloaded as GeoJSON: its points where the rows are.
    await cell(page, 'filtered').getByLabel('Download format of filtered').selectOption('geojson');
    const [download] = await Promise.all([page.waitForEvent('download'), cell(page, 'filtered').getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('filtered.geojson');
    const geojson = JSON.parse(await fs.readFile((await download.path())!, 'utf8')) as { features: { properties: { store: string } }[] };
    expect(geojson.features.map((f) => f.properties.store)).toEqual(['A', 'B', 'E']);

    // A cell's result as a dataset, opened on a new map.
    await cell(page, 'grouped').getByRole('button', { name: 'Save as dataset' }).click();
    await cell(page, 'grouped').getByRole('link', { name: 'Open on a new map' }).click();
    await page.waitForURL(/\/new\?datasetUuid=/);
    const savedId = new URL(page.url()).searchParams.get('datasetUuid')!;
    const saved = await wendy.client.datasets.get(savedId);
    expect([saved.name, saved.status, saved.metadata.rowCount]).toEqual(['grouped', 'ready', 1]);
    await page.locator('.kepler-box').waitFor({ timeout: 30_000 });

    // Shared with a viewer: the same workbook, read only.
    const workbookId = url.split('/').pop()!;
    await wendy.client.records('workbooks').share(workbookId, { users: [{ userId: vic.user.id, role: 'viewer' }] });
    const v = await openStudio(browser(), baseUrl());
    await signInThroughUi(v.page, baseUrl(), vic.email, vic.password);
    await v.page.goto(url);
    await v.page.getByText('Read only').waitFor();
    await expect.poll(() => rowsText(v.page, 'result')).toEqual(['Cafe\t60\ttrue']);
    expect(await v.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    expect(await v.page.getByLabel('Cell name').count()).toBe(0);
    expect(await cell(v.page, 'filtered').getByLabel('Condition').isDisabled()).toBe(true);
    expect([...s.foreign, ...v.foreign]).toEqual([]);
  }, 180_000);
});
