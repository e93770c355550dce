import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, makerInNewTeam, unique } from './api';

/** How often an open page renews its edit lock (LOCK_RENEW_MS of app/useEditLock.ts, which needs a browser to import). */
const LOCK_RENEW_MS = 120_000;
import { waitMapReady } from './pixels';

const browser = useBrowser();
const CSV = 'name,lat,lng\nFerry Building,37.7955,-122.3937\nCoit Tower,37.8024,-122.4058\n';

describe('edit locks in the browser', () => {
  it("lets the user's second tab take over the map, and frees the lock when that tab closes", async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Lock team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Lou Locker', `lou.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Landmarks ${unique()}` });
    const map = await maker.client.records('maps').save({ name: 'Two tabs', datasets: [dataset.id] });

    const s = await openStudio(browser(), baseUrl());
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/${map.id}`);
    await waitMapReady(s.page);
    await s.page.getByRole('button', { name: 'Save', exact: true }).waitFor();

    // A second tab of the same browser (same session, its own tab id): read only, with a way to edit here.
    const second = await s.context.newPage();
    await second.goto(`${baseUrl()}/${map.id}`);
    await second.getByRole('note').filter({ hasText: 'Read only: you are editing this map in another tab.' }).waitFor();
    expect(await second.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await second.getByRole('button', { name: 'Edit here' }).click();
    await second.getByRole('button', { name: 'Save', exact: true }).waitFor();
    await waitMapReady(second);
    const held = (await maker.client.records('maps').get(map.id)).lock;
    expect(held?.ownerId).toBe(maker.user.id);

    // The first tab's save is refused, saying why.
    await s.page.getByRole('button', { name: 'Save', exact: true }).click();
    await s.page.getByRole('alert').filter({ hasText: 'You are editing this map in another tab' }).waitFor();

    // Closing the tab that holds it gives the lock up.
    await second.close({ runBeforeUnload: true });
    await expect.poll(async () => (await maker.client.records('maps').get(map.id)).lock, { timeout: 15_000 }).toBeNull();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);

  it("keeps a dashboard's lock while it is open, renewing it, lets the user's second tab take it over, and frees it when that tab closes", async () => {
    const maker = await makerInNewTeam('Board lock team', 'Dana Board');
    const board = await maker.client.records('dashboards').save({ name: 'Locked board' });
    const s = await openStudio(browser(), baseUrl());
    // The page's timers run on a clock the test moves: the lock's renewal comes every two minutes.
    await s.context.clock.install();
    await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
    await s.page.goto(`${baseUrl()}/dashboard/${board.id}`);
    await s.page.getByRole('button', { name: 'Save', exact: true }).waitFor();
    const first = (await maker.client.records('dashboards').get(board.id)).lock;
    expect(first?.ownerId).toBe(maker.user.id);

    await s.context.clock.fastForward(LOCK_RENEW_MS + 1_000);
    await expect.poll(async () => (await maker.client.records('dashboards').get(board.id)).lock?.expiresAt, { timeout: 15_000 }).not.toBe(first!.expiresAt);

    // The same user's second tab: read only, saying why, and "Edit here" takes the lock over.
    const second = await s.context.newPage();
    await second.goto(`${baseUrl()}/dashboard/${board.id}`);
    await second.getByText('Read only: you are editing this dashboard in another tab').waitFor();
    expect(await second.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await second.getByRole('button', { name: 'Edit here' }).click();
    await second.getByRole('button', { name: 'Save', exact: true }).waitFor();
    // The first tab learns it at its next renewal and stops editing.
    await s.context.clock.fastForward(LOCK_RENEW_MS + 1_000);
    await s.page.getByText('Read only: you are editing this dashboard in another tab').waitFor();

    await second.close({ runBeforeUnload: true });
    await expect.poll(async () => (await maker.client.records('dashboards').get(board.id)).lock, { timeout: 15_000 }).toBeNull();
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 180_000);
});

