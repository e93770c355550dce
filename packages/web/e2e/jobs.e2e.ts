import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import type { StudioClient } from '@studio/client';
import { asAdmin, baseUrl, createUser, makerInNewTeam, unique } from './api';

const browser = useBrowser();
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** Visits over a city, on 90 days. */
function visitsCsv(n = 20_000): string {
  const lines = ['lat,lng,amount,ts'];
  for (let i = 0; i < n; i++) {
    lines.push(`${(40.70 + ((i * 7919) % 10_000) / 100_000).toFixed(6)},${(-74.02 + ((i * 104_729) % 10_000) / 80_000).toFixed(6)},${i % 50},2026-0${1 + (i % 9)}-1${i % 10}T08:00:00`);
  }
  return lines.join('\n');
}

describe('background jobs', () => {
  it('builds hex tiles from a dataset page: the new dataset opens at once and becomes ready, and the Jobs page lists it done', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Tiles team ${unique()}`);
    const u = await createUser(admin, team.id, 'Tia Tiles', `tia.${unique()}@e2e.studio.test`);
    const source = await u.client.datasets.upload(visitsCsv(), { contentType: 'text/csv', name: `Visits ${unique()}` });
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), u.email, u.password);
    await page.goto(`${baseUrl()}/workspace/datasets/${source.id}`);

    await page.getByRole('button', { name: 'Build hex tiles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Build hex tiles' });
    expect(await dialog.getByLabel('Latitude column').inputValue()).toBe('lat');
    expect(await dialog.getByLabel('Longitude column').inputValue()).toBe('lng');
    await dialog.getByLabel('Name').fill('Visit tiles');
    await dialog.getByLabel('Finest resolution').fill('9');
    await dialog.getByLabel('Sum of').selectOption('amount');
    await dialog.getByLabel('Time column').selectOption('ts');
    await dialog.getByLabel('Slice by').selectOption('D');
    await dialog.getByRole('button', { name: 'Build', exact: true }).click();

    // The call answers at once: the new dataset's page, pending or already ready.
    await page.waitForURL((url) => new RegExp(`/workspace/datasets/${UUID}$`).test(url.pathname) && !url.pathname.endsWith(source.id));
    const tilesId = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: 'Visit tiles', level: 1 }).waitFor();
    await page.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    const ready = await u.client.datasets.get(tilesId);
    expect(ready).toMatchObject({ type: 'hex-tile', status: 'ready' });
    expect(ready.metadata.columns.map((c) => c.name)).toEqual(expect.arrayContaining(['hex', 'count', 'sum_amount']));

    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    const row = page.getByRole('table', { name: 'Jobs' }).getByRole('row').filter({ hasText: 'Building hex tiles' });
    await row.getByText('Done').waitFor();
    await row.getByRole('link', { name: 'Open the dataset' }).click();
    await page.waitForURL(`${baseUrl()}/workspace/datasets/${tilesId}`);
  });

  it('shows a running build on its dataset page and cancels it there: the dataset says why it has no tiles, the Jobs page who cancelled', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Cancel team ${unique()}`);
    const u = await createUser(admin, team.id, 'Cal Cancel', `cal.${unique()}@e2e.studio.test`);
    const source = await u.client.datasets.upload(visitsCsv(100_000), { contentType: 'text/csv', name: `Visits ${unique()}` });
    // Fine cells, every interval: long enough to be cancelled while it runs or waits.
    const { item, job } = await u.client.datasets.buildHexTiles({
      name: 'Long tiles', source: source.id, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 15, coarsestResolution: 4,
      sourceTimeColumn: 'ts', timeIntervals: ['T', 'H', 'D', 'M', 'Y'], outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }],
    });
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), u.email, u.password);
    await page.goto(`${baseUrl()}/workspace/datasets/${item.id}`);
    const progress = page.getByRole('status', { name: 'Building hex tiles' });
    await progress.getByRole('progressbar', { name: 'Progress' }).waitFor();
    await progress.getByRole('button', { name: 'Cancel' }).click();
    // The page reloads the dataset when its job ends.
    await page.getByText('The hex tile build was cancelled').first().waitFor();
    expect((await u.client.jobs.get(job.id)).status).toBe('cancelled');
    await page.goto(`${baseUrl()}/workspace/jobs`);
    const row = page.getByRole('table', { name: 'Jobs' }).getByRole('row').filter({ hasText: 'Building hex tiles' });
    await row.getByText('Cancelled by Cal Cancel').waitFor();
    expect(await row.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
  });

  it.each([
    {
      kind: 'hex-tile',
      build: (c: StudioClient, source: string) =>
        c.datasets.buildHexTiles({ name: 'Visit tiles', source, sourceLatColumn: 'lat', sourceLngColumn: 'lng', finestResolution: 10, outputColumns: [{ targetColumn: 'n', aggMethod: 'count' }] }),
    },
    { kind: 'vector-tile', build: (c: StudioClient, source: string) => c.datasets.buildVectorTiles({ name: 'Visit tiles', datasetId: source, columns: ['amount'] }) },
  ])('rebuilds a $kind dataset in place from its page once its source has grown: the same dataset, the new rows', async ({ kind, build }) => {
    const u = await makerInNewTeam('Rebuild team', 'Rob Rebuild');
    const source = await u.client.datasets.upload(visitsCsv(2_000), { contentType: 'text/csv', name: `Visits ${unique()}` });
    const { item } = await build(u.client, source.id);
    await expect.poll(async () => (await u.client.datasets.get(item.id)).status, { timeout: 60_000 }).toBe('ready');
    const before = await u.client.datasets.get(item.id);
    await u.client.datasets.upload(visitsCsv(20_000), { contentType: 'text/csv' }, source.id);

    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), u.email, u.password);
    await page.goto(`${baseUrl()}/workspace/datasets/${item.id}`);
    await page.getByRole('button', { name: 'Rebuild tiles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rebuild tiles' });
    await dialog.getByText('keep the current tiles until the new ones are ready').waitFor();
    await dialog.getByRole('button', { name: 'Rebuild', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    // The same page, building and then ready: more rows from the grown source.
    await expect.poll(async () => (await u.client.datasets.get(item.id)).metadata.ingestedAt, { timeout: 60_000 }).not.toBe(before.metadata.ingestedAt);
    await page.getByText('Ready', { exact: true }).waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(`${baseUrl()}/workspace/datasets/${item.id}`);
    const after = await u.client.datasets.get(item.id);
    expect([after.status, after.name, after.type]).toEqual(['ready', 'Visit tiles', kind]);
    expect(after.metadata.rowCount!).toBeGreaterThan(before.metadata.rowCount!);
    await page.getByRole('button', { name: 'Rebuild tiles' }).waitFor();
  });
});
