import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi, type StudioPage } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** A signed-in maker of a fresh organization, on the dataset list. */
async function onDatasets(): Promise<StudioPage & { user: Awaited<ReturnType<typeof createUser>> }> {
  const admin = await asAdmin();
  const team = await admin.admin.createOrganization(`Data team ${unique()}`);
  const u = await createUser(admin, team.id, 'Dana Data', `dana.${unique()}@e2e.studio.test`);
  const s = await openStudio(browser(), baseUrl());
  await signInThroughUi(s.page, baseUrl(), u.email, u.password);
  await s.page.goto(`${baseUrl()}/workspace/datasets`);
  await s.page.getByRole('heading', { name: 'Datasets' }).waitFor();
  return { ...s, user: u };
}

/** Records every value the upload progress bar takes, however briefly it is on screen. */
async function watchProgress(page: Page): Promise<() => Promise<(number | null)[]>> {
  await page.evaluate(() => {
    const seen: (number | null)[] = [];
    (window as unknown as { progressSeen: (number | null)[] }).progressSeen = seen;
    const record = () => {
      const bar = document.querySelector('progress[aria-label="Upload progress"]') as HTMLProgressElement | null;
      if (bar) seen.push(bar.hasAttribute('value') ? bar.value : null);
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { progressSeen: (number | null)[] }).progressSeen);
}

/** Opens the upload dialog and sets the file on its input, as a file picker would. */
async function chooseFile(page: Page, name: string, content: string | Buffer) {
  await page.getByRole('button', { name: 'Upload dataset' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload a dataset' });
  await dialog.getByLabel('File').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });
  return dialog;
}

const previewRow = (page: Page, index: number) => page.getByRole('table', { name: 'Data preview' }).locator(`[role=row][aria-rowindex="${index + 1}"]`);

describe('datasets', () => {
  it('uploads a CSV through the dialog with a progress bar and shows its schema and rows', async () => {
    const s = await onDatasets();
    const { page } = s;
    const progress = await watchProgress(page);
    const csv = ['store,lat,lng,visits', 'Harbor,40.7128,-74.006,120', 'Midtown,40.7549,-73.984,340', 'Bay,37.7749,-122.4194,95'].join('\n');
    const dialog = await chooseFile(page, 'stores.csv', csv);
    expect(await dialog.getByLabel('Name').inputValue()).toBe('stores');
    await dialog.getByLabel('Chosen file').getByText('text/csv').waitFor();
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();

    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    expect((await progress()).length).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'stores', level: 1 }).waitFor();
    await page.getByText('Ready', { exact: true }).waitFor();
    const schema = page.getByRole('table', { name: 'Columns' });
    const cells = async (column: string) => (await schema.getByRole('row').filter({ has: page.getByRole('cell', { name: column, exact: true }) }).getByRole('cell').allTextContents()).slice(0, 3);
    expect(await cells('lat')).toEqual(['lat', 'DOUBLE', 'lat (latitude)']);
    expect(await cells('lng')).toEqual(['lng', 'DOUBLE', 'lng (longitude)']);
    expect((await cells('visits'))[1]).toMatch(/^(INTEGER|BIGINT)/);
    expect((await cells('store'))[1]).toMatch(/^STRING/);

    await previewRow(page, 1).getByText('Harbor').waitFor();
    expect(await previewRow(page, 3).getByRole('cell').allTextContents()).toEqual(['Bay', '37.7749', '-122.4194', '95']);
    await page.getByRole('heading', { name: 'Maps using this dataset' }).waitFor();
    await page.getByText('No map uses this dataset yet.').waitFor();
    expect(await page.getByRole('link', { name: 'Create map' }).getAttribute('href')).toMatch(new RegExp(`^/new\\?datasetUuid=${UUID}$`));
    await page.screenshot({ path: '/tmp/studio-dataset-details.png', fullPage: true });

    // The analytics links' path is the same page.
    const id = page.url().split('/').pop()!;
    await page.goto(`${baseUrl()}/workspace/datasets/details/${id}`);
    await page.waitForURL(`${baseUrl()}/workspace/datasets/${id}`);
    await page.getByRole('heading', { name: 'stores', level: 1 }).waitFor();

    // Download: the CSV arrives through the client (with the token) as a blob download.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('stores.csv');
    // The same data as GeoJSON: one Point feature a row, at the row's latitude and longitude.
    await page.getByLabel('Download format').selectOption('geojson');
    const [geojson] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download GeoJSON' }).click()]);
    expect(geojson.suggestedFilename()).toBe('stores.geojson');
    const collection = JSON.parse(await readFile((await geojson.path())!, 'utf8')) as { features: { properties: { store: string }; geometry: { coordinates: number[] } }[] };
    expect(collection.features.map((f) => [f.properties.store, ...f.geometry.coordinates])).toEqual([
      ['Harbor', -74.006, 40.7128],
      ['Midtown', -73.984, 40.7549],
      ['Bay', -122.4194, 37.7749],
    ]);

    await page.getByRole('link', { name: '← Datasets' }).click();
    const row = page.getByRole('table', { name: 'Datasets' }).getByRole('row', { name: /stores/ });
    await row.getByText('Ready').waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('3');
    await row.getByRole('link', { name: 'stores' }).click();
    await page.waitForURL(`${baseUrl()}/workspace/datasets/${id}`);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });

  it('scrolls the virtualized preview of 50,000 rows, fetching pages as they come into view', async () => {
    const s = await onDatasets();
    const { page } = s;
    const lines = ['id,label,lat,lng'];
    for (let i = 1; i <= 50_000; i++) lines.push(`${i},row-${i},${(40 + i / 1e5).toFixed(5)},${(-74 + i / 1e5).toFixed(5)}`);
    const progress = await watchProgress(page);
    const dialog = await chooseFile(page, 'many-rows.csv', lines.join('\n'));
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    // Bytes sent (a value), then "Ingesting…" (an indeterminate bar) until the answer.
    const seen = await progress();
    expect(seen.some((v) => typeof v === 'number')).toBe(true);
    expect(seen).toContain(null);
    await page.getByText('50,000 rows ·').waitFor();
    await previewRow(page, 1).getByText('row-1', { exact: true }).waitFor();

    const previews: string[] = [];
    page.on('request', (r) => r.url().includes('/preview') && previews.push(r.url()));
    const scroller = page.getByRole('table', { name: 'Data preview' });
    // Halfway, then the very end: only the rows in view are in the DOM, fetched page by page.
    await scroller.evaluate((el) => (el.scrollTop = 25_000 * 30));
    await previewRow(page, 25_001).getByText('row-25001', { exact: true }).waitFor();
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await previewRow(page, 50_000).getByText('row-50000', { exact: true }).waitFor();
    expect(await scroller.locator('[role=row]').count()).toBeLessThan(60);
    expect(previews.length).toBeGreaterThanOrEqual(2);
    expect(previews.every((u) => /limit=500\b/.test(u))).toBe(true);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });

  it('shows an ingestion error past the CSV sniffing sample in the dialog and keeps no dataset; a record made first shows it in the list and its page', async () => {
    const s = await onDatasets();
    const { page } = s;
    const lines = ['id,score'];
    for (let i = 1; i <= 25_000; i++) lines.push(`${i},${i % 97}`);
    lines.push('x,abc');
    const dialog = await chooseFile(page, 'broken.csv', lines.join('\n'));
    await dialog.getByLabel('Name').fill('Broken scores');
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    const message = (await alert.textContent()) ?? '';
    expect(message).toMatch(/Could not read CSV at line \d+, column '[^']+'/);
    // The short message in the dialog; DuckDB's long report stays folded on the details page.
    expect(message).not.toContain('Possible solutions');
    expect(page.url()).toBe(`${baseUrl()}/workspace/datasets`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // The one-step upload of a refused file leaves no dataset behind.
    await page.getByRole('status').filter({ hasText: 'No datasets yet' }).waitFor();

    // A record the client created first (the SDK's two-step upload) stays, in error with the reason.
    const made = await s.user.client.request<{ item: { id: string } }>('POST', '/v1/datasets', { body: { name: 'Broken scores', contentType: 'text/csv' } });
    await expect(s.user.client.datasets.upload(lines.join('\n'), { contentType: 'text/csv' }, made.item.id)).rejects.toThrow(/Could not read CSV at line/);
    await page.reload();
    const row = page.getByRole('table', { name: 'Datasets' }).getByRole('row', { name: /Broken scores/ });
    await row.getByText('Error', { exact: true }).waitFor();
    await row.getByText(/Could not read CSV at line \d+/).waitFor();
    await row.getByRole('link', { name: 'Broken scores' }).click();
    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    await page.getByRole('alert').getByText(/Ingestion failed: Could not read CSV at line \d+, column '[^']+'/).waitFor();
    expect(await page.getByRole('button', { name: 'Download CSV' }).isDisabled()).toBe(true);
    await page.getByText('What the studio saw').click();
    await page.getByText(/Original Line: x,abc/).waitFor();
    await page.screenshot({ path: '/tmp/studio-dataset-error.png', fullPage: true });

    // Replacing the data with a good file makes it ready.
    await page.getByRole('button', { name: 'Replace data' }).click();
    const replace = page.getByRole('dialog', { name: 'Replace data of “Broken scores”' });
    await replace.getByLabel('File').setInputFiles({ name: 'fixed.csv', mimeType: 'text/csv', buffer: Buffer.from('id,score\n1,5\n2,7\n') });
    await replace.getByRole('button', { name: 'Replace data' }).click();
    await page.getByText('Ready', { exact: true }).waitFor();
    await previewRow(page, 2).getByText('7').waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete dataset' }).getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${baseUrl()}/workspace/datasets`);
    await page.getByRole('status').filter({ hasText: 'No datasets yet' }).waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });

  it('reads a CSV as the user says in its reading options: no header line, a type for a column', async () => {
    const s = await onDatasets();
    const { page } = s;
    // A Latin-1 export without names: store numbers that must stay text, and accented names.
    const dialog = await chooseFile(page, 'branches.csv', Buffer.from('007;René\n012;Zoë\n', 'latin1'));
    await dialog.getByText('Reading options').click();
    await dialog.getByLabel('First line').selectOption('false');
    await dialog.getByLabel('Type of column0').selectOption('STRING');
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    await page.getByText('Ready', { exact: true }).waitFor();
    await expect.poll(() => previewRow(page, 1).getByRole('cell').allTextContents()).toEqual(['007', 'René']);
    await expect.poll(() => previewRow(page, 2).getByRole('cell').allTextContents()).toEqual(['012', 'Zoë']);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });

  it('skips bad rows when asked, says how many on the dataset page, and reads a KML file', async () => {
    const s = await onDatasets();
    const { page } = s;
    const dialog = await chooseFile(page, 'visits.csv', 'name,visits\nA,1\nB,2,oops\nC,3\n');
    await dialog.getByLabel(/Skip bad rows/).check();
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    await page.getByText('Ready', { exact: true }).waitFor();
    await page.getByText('1 malformed (uploaded with “skip bad rows”)').waitFor();
    const [rejected] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the 1 rejected line' }).click()]);
    expect(rejected.suggestedFilename()).toBe('visits-rejected-lines.csv');
    expect(await readFile((await rejected.path())!, 'utf8')).toContain('B,2,oops');
    // The preview's rows fill in as their page arrives.
    await expect.poll(() => previewRow(page, 2).getByRole('cell').allTextContents()).toEqual(['C', '3']);

    await page.goto(`${baseUrl()}/workspace/datasets`);
    const kml = '<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><Folder><name>Parks</name><Placemark><name>Dolores</name><Point><coordinates>-122.4276,37.7596</coordinates></Point></Placemark></Folder></Document></kml>';
    const kmlDialog = await chooseFile(page, 'parks.kml', kml);
    await kmlDialog.getByLabel('Chosen file').getByText('application/vnd.google-earth.kml+xml').waitFor();
    // Not delimited text: nothing to skip.
    expect(await kmlDialog.getByLabel(/Skip bad rows/).count()).toBe(0);
    await kmlDialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(new RegExp(`/workspace/datasets/${UUID}$`));
    await page.getByText('Ready', { exact: true }).waitFor();
    await previewRow(page, 1).getByText('Dolores').waitFor();
    await previewRow(page, 1).getByText('Parks').waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });
});
