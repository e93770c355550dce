import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

// Two areas and three places (WKT columns, as a CSV upload keeps them): north holds p1 and p2, south holds p3.
const AREAS = [
  'area,kind,wkt',
  'north,x,"POLYGON((-122.5 37.7, -122.38 37.7, -122.38 37.85, -122.5 37.85, -122.5 37.7))"',
  'south,x,"POLYGON((-122.35 37.55, -122.25 37.55, -122.25 37.65, -122.35 37.65, -122.35 37.55))"',
].join('\n');
const PLACES = 'place,wkt\np1,POINT(-122.41 37.77)\np2,POINT(-122.42 37.78)\np3,POINT(-122.30 37.60)\n';

const cell = (page: Page, name: string) => page.getByRole('region', { name: `Cell ${name}`, exact: true });
const summary = (page: Page, name: string) => cell(page, name).getByRole('status', { name: `Result of ${name}` });
const rowsText = (page: Page, name: string) => cell(page, name).getByRole('table', { name: `Rows of ${name}` }).locator('tbody tr').allInnerTexts();
/** Each joined row as area:place (the first and last columns). */
const pairs = async (page: Page, name: string) => (await rowsText(page, name)).map((r) => { const c = r.split('\t'); return `${c[0]}:${c[c.length - 1]}`; }).sort();

async function addCell(page: Page, kind: string, step?: string) {
  const form = page.getByRole('form', { name: 'Add a cell' });
  await form.getByLabel('Cell kind').selectOption(kind);
  if (step) await form.getByLabel('Step type').selectOption(step);
  await form.getByRole('button', { name: 'Add cell' }).click();
}

/** A column field is a picker once its input has run, a text box before. */
async function column(field: Locator, name: string) {
  if ((await field.evaluate((e) => e.tagName)) === 'SELECT') await field.selectOption(name);
  else await field.fill(name);
}

describe('workbooks: spatial steps', () => {
  it('a workbook with a spatial-join step (areas contain places) runs, is saved and reopens with the step and its rows', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Spatial workbooks ${unique()}`);
    const sam = await createUser(admin, team.id, 'Sam Spatial', `sam.${unique()}@e2e.studio.test`);
    const areas = await sam.client.datasets.upload(AREAS, { contentType: 'text/csv', name: `areas_${unique()}` });
    const places = await sam.client.datasets.upload(PLACES, { contentType: 'text/csv', name: `places_${unique()}` });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), sam.email, sam.password);
    await page.goto(`${baseUrl()}/workspace/datasets/${areas.id}`);
    await page.getByRole('link', { name: 'New workbook' }).click();
    await page.waitForURL(/\/workbook\/new\?datasetId=/);
    const first = areas.name.toLowerCase();
    await expect.poll(() => summary(page, first).textContent()).toMatch(/^2 rows/);

    await addCell(page, 'step', 'dataset');
    await cell(page, 'data').getByLabel('Dataset', { exact: true }).selectOption({ label: places.name });
    await cell(page, 'data').getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => summary(page, 'data').textContent()).toMatch(/^3 rows/);

    await addCell(page, 'step', 'spatialJoin');
    const join = cell(page, 'spatial_joined');
    await join.getByLabel('Input 1', { exact: true }).selectOption(first);
    await join.getByLabel('Input 2', { exact: true }).selectOption('data');
    await join.getByLabel('Relation', { exact: true }).selectOption('contains');
    await column(join.getByLabel('Geometry of the first cell'), 'wkt');
    await join.getByLabel('Geometry of the second cell').fill('wkt');
    await join.getByLabel('Columns of the second input to add').fill('place');
    await join.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => summary(page, 'spatial_joined').textContent(), { timeout: 60_000 }).toMatch(/^3 rows/);
    expect(await pairs(page, 'spatial_joined')).toEqual(['north:p1', 'north:p2', 'south:p3']);

    await page.getByLabel('Workbook name').fill('Places in areas');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/workbook\/[0-9a-f-]{36}$/);
    await page.reload();
    await expect.poll(() => pairs(page, 'spatial_joined'), { timeout: 60_000 }).toEqual(['north:p1', 'north:p2', 'south:p3']);
    const reopened = cell(page, 'spatial_joined');
    expect(await reopened.getByLabel('Relation', { exact: true }).inputValue()).toBe('contains');
    expect(await reopened.getByLabel('Input 2', { exact: true }).inputValue()).toBe('data');
    expect(await reopened.getByLabel('Columns of the second input to add').inputValue()).toBe('place');
    expect(s.foreign).toEqual([]);
  }, 180_000);
});
