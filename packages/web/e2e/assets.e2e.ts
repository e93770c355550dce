import { describe, expect, it } from 'vitest';
import type { StudioRecord } from '@studio/schema';
import { useBrowser, openStudio, signInThroughUi, rowAction } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();

describe('a non-record kind: color palettes', () => {
  it('lists only palettes, renames one, and shares it through the permissions API', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Palette team ${unique()}`);
    const a = await createUser(admin, team.id, 'Pia Painter', `pia.${unique()}@e2e.studio.test`);
    const b = await createUser(admin, team.id, 'Bo Browser', `bo.${unique()}@e2e.studio.test`);
    const name = `Sunset ramp ${unique()}`;
    await a.client.request<{ item: StudioRecord }>('POST', '/v1/map-assets', {
      body: { assetType: 'color-palette', name, palette: { type: 'sequential', colors: ['#fde68a', '#f97316', '#7c2d12'] } },
    });

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    await signInThroughUi(page, baseUrl(), a.email, a.password);
    const nav = page.getByRole('navigation', { name: 'Workspace' });
    await nav.getByRole('link', { name: 'Basemaps' }).click();
    await page.getByRole('status').filter({ hasText: 'No basemaps yet' }).waitFor();

    await nav.getByRole('link', { name: 'Colors' }).click();
    const table = page.getByRole('table', { name: 'Colors' });
    await table.getByRole('row', { name: new RegExp(name) }).waitFor();

    await rowAction(page, name, `Rename ${name}`);
    const rename = page.getByRole('dialog', { name: 'Rename color palette' });
    await rename.getByLabel('Name').fill(`${name} v2`);
    await rename.getByRole('button', { name: 'Save' }).click();
    await table.getByRole('row', { name: new RegExp(`${name} v2`) }).waitFor();

    await rowAction(page, `${name} v2`, `Share ${name} v2`);
    const dialog = page.getByRole('dialog', { name: `Share “${name} v2”` });
    // Only administrators set the visibility of assets.
    expect(await dialog.getByLabel('Visibility').count()).toBe(0);
    await dialog.getByLabel('Email').fill(b.email);
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    await dialog.getByRole('list', { name: 'Who has access' }).getByText(b.email).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('tab', { name: 'Samples' }).click();
    await page.getByRole('status').filter({ hasText: 'No sample color palettes are available.' }).waitFor();
    expect(s.foreign).toEqual([]);
    await s.context.close();

    const shared = await b.client.collection('/v1/map-assets', { query: { type: 'color-palette' } }).sharedWithUser();
    expect(shared.items.map((i) => i.name)).toEqual([`${name} v2`]);
  });
});
