import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { waitMapReady } from './pixels';
import { E2E_BUCKET } from './global-setup';
import { S3_KEYS } from '../../warehouses/test/servers/s3';
import { onWarehouse } from './warehouse';

const browser = useBrowser();

/** A demo database on the test warehouse server, owned by the role connections use. */
const database = `studio_demo_${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  const { user } = inject('warehouseServer');
  await onWarehouse('postgres', `create database ${database} owner ${user}`);
  await onWarehouse(database, `set role ${user};
    create schema geo;
    create table geo.places (id bigint primary key, name text not null, category text, lat double precision, lng double precision);
    insert into geo.places values (1, 'Ferry Building', 'Market', 37.7955, -122.3937), (2, 'Coit Tower', 'Landmark', 37.8024, -122.4058)`);
});
afterAll(async () => {
  await onWarehouse('postgres', `drop database if exists ${database} with (force)`);
});

describe('connectors', () => {
  it('a maker creates a PostgreSQL connection, tests, browses, runs and saves SQL, and opens a query on a new map', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Connectors ${unique()}`);
    const cleo = await createUser(admin, team.id, 'Cleo Connect', `cleo.${unique()}@e2e.studio.test`);
    const { host, port, user } = inject('warehouseServer');
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), cleo.email, cleo.password);

    await page.goto(`${baseUrl()}/workspace/connectors`);
    await page.getByRole('link', { name: 'New connector' }).click();
    await page.waitForURL(/\/workspace\/connectors\/new$/);
    const form = page.getByRole('form', { name: 'Connection' });
    // The form's screen is loaded on demand: read its options once it is drawn.
    await form.getByLabel('Kind').waitFor();
    expect(await form.getByLabel('Kind').locator('option').allTextContents()).toEqual(['Snowflake', 'BigQuery', 'Amazon Athena', 'PostgreSQL', 'Presto / Trino', 'Amazon Redshift', 'Databricks', 'MotherDuck', 'Kinetica', 'Amazon S3', 'Google Cloud Storage', 'Planet']);
    await form.getByLabel('Name').fill('Demo warehouse');
    await form.getByLabel('Host', { exact: true }).fill(host);
    await form.getByLabel('Port', { exact: true }).fill(String(port));
    await form.getByLabel('Database').fill('no_such_database');
    await form.getByLabel('User', { exact: true }).fill(user);
    expect(await form.getByLabel('TLS (sslmode)').locator('option').allTextContents()).toEqual(['disable', 'require', 'verify-full']);
    await form.getByLabel('TLS (sslmode)').selectOption('disable');
    await form.getByLabel('Password', { exact: true }).fill('unused-with-trust');

    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByRole('alert').filter({ hasText: 'no_such_database' }).waitFor();
    await form.getByLabel('Database').fill(database);
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByRole('status').filter({ hasText: /^Connected: \d+/ }).waitFor();

    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/workspace\/connectors\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Demo warehouse', level: 1 }).waitFor();
    const tree = page.getByRole('region', { name: 'Schemas' });
    await tree.getByRole('button', { name: '▸ geo' }).click();
    await tree.getByRole('button', { name: '▸ places' }).click();
    await tree.getByText('category').waitFor();
    expect(await tree.locator('.schema-column').allTextContents()).toEqual(['id bigint not null', 'name text not null', 'category text', 'lat double precision', 'lng double precision']);

    // SQL with completion of the connection's own tables and columns, run on the warehouse, saved as a dataset.
    const editor = page.getByRole('region', { name: 'SQL workspace' }).locator('.cm-content');
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('select name, category from geo.pla');
    const completion = page.locator('.cm-tooltip-autocomplete');
    // A click picks the option (Enter is ignored for CodeMirror's first 75 ms after the list shows).
    await completion.getByRole('option', { name: /places/ }).click();
    await page.keyboard.type(' order by id');
    expect(await editor.textContent()).toBe('select name, category from geo.places order by id');
    await page.keyboard.press('Control+Enter');
    const grid = page.getByRole('table', { name: 'Result' });
    await expect.poll(() => grid.locator('tbody tr').allInnerTexts()).toEqual(['Ferry Building\tMarket', 'Coit Tower\tLandmark']);
    expect(await page.getByRole('button', { name: 'Map', exact: true }).isDisabled()).toBe(true);
    page.once('dialog', (d) => void d.accept('Landmarks by id'));
    await page.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved query “Landmarks by id”' }).waitFor();
    await page.getByLabel('Dataset name').fill('Landmarks from the warehouse');
    await page.getByRole('button', { name: 'Save as dataset' }).click();
    await page.getByRole('link', { name: 'Landmarks from the warehouse' }).click();
    await page.waitForURL(/\/workspace\/datasets\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: 'Create map' }).waitFor();

    // The saved query opens in its connection's workspace, with its text.
    await page.goto(`${baseUrl()}/workspace/queries`);
    await page.getByRole('link', { name: 'Landmarks by id' }).click();
    await page.waitForURL(/\/workspace\/connectors\/[0-9a-f-]{36}\?bookmark=/);
    await expect.poll(() => page.getByRole('region', { name: 'SQL workspace' }).locator('.cm-content').textContent()).toBe('select name, category from geo.places order by id');

    // A template with a {{category}} parameter, saved and run with two values.
    const editor2 = page.getByRole('region', { name: 'SQL workspace' }).locator('.cm-content');
    await editor2.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('select name from geo.places where category = {{category}} order by id');
    await page.getByLabel('Value of category').fill('Market');
    page.once('dialog', (d) => void d.accept('Places of a category'));
    await page.getByRole('button', { name: 'Save as template' }).click();
    await page.getByRole('status').filter({ hasText: 'Template “Places of a category”' }).waitFor();
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Result' }).locator('tbody tr').allInnerTexts()).toEqual(['Ferry Building']);
    await page.getByLabel('Value of category').fill('Landmark');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Result' }).locator('tbody tr').allInnerTexts()).toEqual(['Coit Tower']);
    // Recent runs of this connection, newest first; one click puts a run's text back in the editor.
    await page.getByText(/^Recent runs/).click();
    await expect.poll(() => page.locator('.sql-history li button').first().textContent()).toBe('select name from geo.places where category = {{category}} order by id');


    // /new?connectorUuid= opens the map builder on a query of the connection; its rows open on the map.
    const connectionId = /\/workspace\/connectors\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await page.goto(`${baseUrl()}/new?connectorUuid=${connectionId}`);
    await page.getByRole('heading', { name: 'New map from Demo warehouse' }).waitFor();
    const sqlEditor = page.getByRole('region', { name: 'SQL workspace' }).locator('.cm-content');
    await sqlEditor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('select name, lat, lng from geo.places');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.getByRole('table', { name: 'Result' }).locator('tbody tr').count()).toBe(2);
    // The map tab finds the lat/lng columns by itself and draws the two points on the studio's basemap.
    await page.getByRole('button', { name: 'Map', exact: true }).click();
    await page.locator('.result-map[data-state="ready"][data-points="2"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Open on a new map' }).click();
    await page.waitForURL(/\/new\?datasetUuid=[0-9a-f-]{36}$/);
    await waitMapReady(page);
    expect(await page.evaluate(() => window.__studioMap!.layers())).toMatchObject([{ type: 'point' }]);

    // The list shows it and opens it; the password is never shown back.
    await page.goto(`${baseUrl()}/workspace/connectors`);
    await page.getByRole('link', { name: 'Demo warehouse' }).click();
    await page.getByLabel('Password (leave empty to keep the saved one)', { exact: true }).waitFor();
    expect(await page.getByLabel('Password (leave empty to keep the saved one)', { exact: true }).inputValue()).toBe('');
    await page.getByRole('form', { name: 'Connection' }).getByRole('button', { name: 'Test' }).click();
    await page.getByRole('status').filter({ hasText: /^Connected: / }).waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 120_000); // 35 s in a loaded CI run

  it('a maker connects an S3 bucket, browses its folders and imports a CSV as a dataset', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Buckets ${unique()}`);
    const sam = await createUser(admin, team.id, 'Sam Storage', `sam.${unique()}@e2e.studio.test`);
    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), sam.email, sam.password);
    await page.goto(`${baseUrl()}/workspace/connectors/new`);
    const form = page.getByRole('form', { name: 'Connection' });
    await form.getByLabel('Kind').selectOption({ label: 'Amazon S3' });
    await form.getByLabel('Name').fill('City lake');
    await form.getByLabel('Bucket').fill('no-such-bucket');
    await form.getByLabel('Region').fill('us-east-1');
    await form.getByLabel('Endpoint').fill(inject('s3Endpoint'));
    await form.getByLabel('Access key id').fill(S3_KEYS.accessKeyId);
    await form.getByLabel('Secret access key').fill(S3_KEYS.secretAccessKey);
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByRole('alert').filter({ hasText: 'NoSuchBucket' }).waitFor();
    await form.getByLabel('Bucket').fill(E2E_BUCKET.name);
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByRole('status').filter({ hasText: `Connected: S3 bucket ${E2E_BUCKET.name}` }).waitFor();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/workspace\/connectors\/[0-9a-f-]{36}$/);

    const files = page.getByRole('region', { name: 'Objects' });
    await files.getByRole('button', { name: '▸ exports/' }).click();
    await files.getByRole('cell', { name: 'stores.csv', exact: true }).waitFor();
    await files.getByRole('button', { name: 'Import stores.csv' }).click();
    await files.getByRole('status').filter({ hasText: 'Imported: stores.csv (3 rows)' }).waitFor();
    await files.getByRole('link', { name: 'stores.csv' }).click();
    await page.waitForURL(/\/workspace\/datasets\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: 'Create map' }).waitFor();
    // Back up to the bucket's top: its two folders.
    await page.goBack();
    await page.getByRole('region', { name: 'Objects' }).getByRole('button', { name: '(bucket)' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Objects' }).locator('tbody td:first-child').allInnerTexts()).toEqual(['▸ exports/', '▸ notes/']);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  });
});
