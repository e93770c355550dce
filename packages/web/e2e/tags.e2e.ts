import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam, unique } from './api';

const browser = useBrowser();

describe('tags', () => {
  it('a user makes a tag on the Tags screen, follows its count to the filtered maps list, renames and recolors it, and deletes it after confirming', async () => {
    const tess = await makerInNewTeam('Tags', 'Tess Tagger');
    const tagged = await tess.client.records('maps').save({ name: `Harbor ${unique()}` });
    const other = await tess.client.records('maps').save({ name: `Inland ${unique()}` });

    const studio = await openStudio(browser(), baseUrl());
    const { page } = studio;
    await signInThroughUi(page, baseUrl(), tess.email, tess.password);
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Tags' }).click();
    await page.getByRole('heading', { name: 'Tags', level: 1 }).waitFor();
    await page.getByText('No tags yet.').waitFor();
    const form = page.getByRole('form', { name: 'New tag' });
    await form.getByLabel('New tag').fill('Waterfront');
    await form.getByLabel('Color').fill('#2ca02c');
    await form.getByRole('button', { name: 'Create tag' }).click();
    const table = page.getByRole('table', { name: 'Tags' });
    const row = table.getByRole('row', { name: /Waterfront/ });
    await row.getByText('Not applied').waitFor();
    const [tag] = (await tess.client.tags.list()).items;
    expect([tag!.name, tag!.color]).toEqual(['Waterfront', '#2ca02c']);

    // Applied elsewhere (the maps list's tag dialog), the count here is a link to the maps list filtered by it.
    await tess.client.tags.apply(tag!.id, 'map', tagged.id);
    await page.reload();
    await row.getByRole('link', { name: '1 map' }).click();
    await page.waitForURL(new RegExp(`/workspace/maps\\?tag=${tag!.id}$`));
    const maps = page.getByRole('table', { name: 'Maps' });
    await maps.waitFor();
    await maps.getByText(tagged.name).waitFor();
    await expect.poll(() => maps.locator('tbody tr').count()).toBe(1);
    expect(await maps.getByText(other.name).count()).toBe(0);

    await page.goBack();
    await row.getByRole('button', { name: 'Edit Waterfront' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit tag “Waterfront”' });
    await edit.getByLabel('Name').fill('Seafront');
    await edit.getByLabel('Color').fill('#d64545');
    await edit.getByRole('button', { name: 'Save' }).click();
    await table.getByRole('row', { name: /Seafront/ }).waitFor();
    expect((await tess.client.tags.list()).items.map((t) => [t.name, t.color])).toEqual([['Seafront', '#d64545']]);

    await table.getByRole('button', { name: 'Delete Seafront' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete tag' });
    await confirm.getByText('It comes off the one resource it is on. This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await tess.client.tags.list()).items).toHaveLength(1);
    await table.getByRole('button', { name: 'Delete Seafront' }).click();
    await confirm.getByRole('button', { name: 'Delete tag' }).click();
    await page.getByText('No tags yet.').waitFor();
    expect((await tess.client.tags.list()).items).toEqual([]);
    expect((await tess.client.records('maps').get(tagged.id)).tags).toEqual([]);
    expect(studio.foreign).toEqual([]);
    await studio.context.close();
  });
});
