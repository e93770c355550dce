import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { onWarehouse } from './warehouse';

const browser = useBrowser();

/** The warehouse a live dataset reads, on the test warehouse server, owned by the role connections use. */
const database = `studio_refresh_${randomBytes(4).toString('hex')}`;
/** As the role connections use, which owns the database (so its tables are the connection's). */
const asOwner = (sql: string) => onWarehouse(database, `set role ${inject('warehouseServer').user}; ${sql}`);
beforeAll(async () => {
  await onWarehouse('postgres', `create database ${database} owner ${inject('warehouseServer').user}`);
  await asOwner(`create table stores (id int, name text); insert into stores values (1, 'Ferry Building'), (2, 'Coit Tower')`);
});
afterAll(async () => {
  await onWarehouse('postgres', `drop database if exists ${database} with (force)`);
});

describe('live dataset refresh', () => {
  it("refreshes a live dataset from its page, shows how it went, and keeps the schedule the analyst sets", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Refresh team ${unique()}`);
    const rae = await createUser(admin, team.id, 'Rae Refresh', `rae.${unique()}@e2e.studio.test`);
    const { host, port, user } = inject('warehouseServer');
    const connection = await rae.client.connections.create({ type: 'postgres', name: 'Stores warehouse', description: '', host, port, database, user, sslmode: 'disable', sshPort: 22, credentials: { password: 'unused-with-trust' } });
    const live = await rae.client.connections.saveAsDataset(connection.id, 'select id, name from stores order by id', 'Live stores', { live: true });
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), rae.email, rae.password);
    await page.goto(`${baseUrl()}/workspace/datasets/${live.id}`);
    const panel = page.getByRole('region', { name: 'Refresh' });
    await panel.getByText('Not refreshed since it was made', { exact: false }).waitFor();
    await panel.getByText('No schedule.').waitFor();

    // New rows on the warehouse; "Refresh now" runs the query again and the page shows the new count.
    await asOwner(`insert into stores values (3, 'Alcatraz')`);
    await panel.getByRole('button', { name: 'Refresh now' }).click();
    await panel.getByText(/Last refreshed .*asked for: succeeded\./).waitFor({ timeout: 30_000 });
    expect((await rae.client.datasets.get(live.id)).metadata.rowCount).toBe(3);
    await page.getByRole('region', { name: 'Preview' }).getByText('Alcatraz').waitFor();

    // A cron expression the server refuses shows its reason; hourly is kept, with its next time.
    const form = panel.getByRole('form', { name: 'Refresh schedule' });
    await form.getByLabel('Schedule').selectOption('cron');
    await form.getByLabel('Cron expression (UTC)').fill('61 * * * *');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await panel.getByText('Invalid schedule "61 * * * *": Constraint error, got value 61 expected range 0-59').waitFor();
    await form.getByLabel('Schedule').selectOption('hourly');
    await form.getByLabel('Refresh on open when older than').fill('6');
    await form.getByLabel('Unit').selectOption('hours');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await panel.getByText(/Next scheduled refresh: /).waitFor();
    expect((await rae.client.datasets.get(live.id)).metadata.refresh).toMatchObject({ schedule: 'hourly', maxAgeSeconds: 21_600 });

    // A refresh that fails says why, and the data stays the one from before.
    await asOwner('drop table stores');
    await panel.getByRole('button', { name: 'Refresh now' }).click();
    await panel.getByRole('alert').getByText(/failed\. relation "stores" does not exist/).waitFor({ timeout: 30_000 });
    expect((await rae.client.datasets.get(live.id))).toMatchObject({ status: 'ready', metadata: { rowCount: 3 } });
  });
});
