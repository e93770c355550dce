import { describe, expect, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam } from './api';

const browser = useBrowser();

describe('account', () => {
  it("a user changes their password on the account page: a wrong current one is refused, two different new ones are caught, and after the change the old one no longer signs in and another device's session has ended", async () => {
    const pia = await makerInNewTeam('Account', 'Pia Password');

    const studio = await openStudio(browser(), baseUrl());
    const { page } = studio;
    await signInThroughUi(page, baseUrl(), pia.email, pia.password);
    await page.getByRole('button', { name: 'Account of Pia Password' }).click();
    await page.getByRole('group', { name: 'Account' }).getByRole('button', { name: 'Account' }).click();
    const form = page.getByRole('form', { name: 'Change password' });
    await form.waitFor();

    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password', { exact: true }).fill('pia-new-password-1');
    await form.getByLabel('New password again').fill('pia-new-password-2');
    await form.getByRole('alert').filter({ hasText: 'The two new passwords differ.' }).waitFor();
    expect(await form.getByRole('button', { name: 'Change password' }).isDisabled()).toBe(true);
    await form.getByLabel('New password again').fill('pia-new-password-1');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('alert').filter({ hasText: 'Current password is incorrect' }).waitFor();
    expect((await new StudioClient({ baseUrl: baseUrl() }).signIn(pia.email, pia.password)).user.email).toBe(pia.email);

    await form.getByLabel('Current password').fill(pia.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').filter({ hasText: 'Password changed. Your other sessions are signed out.' }).waitFor();
    expect(await form.getByLabel('Current password').inputValue()).toBe('');
    // The client of the test signed in before the change: another device, now signed out.
    await expect(pia.client.me()).rejects.toThrow(/401|Session/);
    await expect(new StudioClient({ baseUrl: baseUrl() }).signIn(pia.email, pia.password)).rejects.toThrow(/Invalid email or password/);
    // This tab's session stays.
    await page.reload();
    await form.waitFor();
    await studio.context.clearCookies();
    await page.evaluate(() => localStorage.clear());
    await signInThroughUi(page, baseUrl(), pia.email, 'pia-new-password-1');
    expect(studio.foreign).toEqual([]);
    await studio.context.close();
  });
});
