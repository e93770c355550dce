import { describe, expect, inject, it } from 'vitest';
import { StudioClient } from '@studio/client';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { baseUrl, makerInNewTeam } from './api';

const browser = useBrowser();

describe('a forgotten password', () => {
  it("without email in the studio, the sign-in page sends the user to an administrator, whose reset link (Users → Reset link) sets a new password once", async () => {
    const rob = await makerInNewTeam('Reset', 'Rob Forgetful');

    const user = await openStudio(browser(), baseUrl());
    await user.page.goto(`${baseUrl()}/sign-in`);
    await user.page.getByRole('link', { name: 'Forgot your password?' }).click();
    await user.page.getByLabel('Email').fill(rob.email);
    await user.page.getByRole('button', { name: 'Send a reset link' }).click();
    await user.page.getByRole('status').filter({ hasText: 'This studio does not send email. Ask an administrator for a reset link' }).waitFor();

    const desk = await openStudio(browser(), baseUrl());
    await signInThroughUi(desk.page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    await desk.page.goto(`${baseUrl()}/workspace/admin/users`);
    await desk.page.getByRole('table', { name: 'Users' }).getByRole('button', { name: 'Actions for Rob Forgetful', exact: true }).click();
    await desk.page.getByRole('menuitem', { name: 'Password reset link for Rob Forgetful' }).click();
    const dialog = desk.page.getByRole('dialog', { name: 'Password reset link for Rob Forgetful' });
    await dialog.getByRole('button', { name: 'Make link' }).click();
    const link = await dialog.getByLabel('Reset link').inputValue();
    expect(link).toMatch(new RegExp(`^${baseUrl()}/reset-password\\?token=spr_`));
    await desk.context.close();

    await user.page.goto(link);
    await user.page.getByLabel('New password', { exact: true }).fill('rob-new-password-1');
    await user.page.getByLabel('New password again').fill('rob-new-password-2');
    await user.page.getByRole('alert').filter({ hasText: 'The two passwords differ.' }).waitFor();
    await user.page.getByLabel('New password again').fill('rob-new-password-1');
    await user.page.getByRole('button', { name: 'Set password' }).click();
    await user.page.getByRole('heading', { name: 'Password changed' }).waitFor();
    await expect(rob.client.me()).rejects.toThrow();
    await expect(new StudioClient({ baseUrl: baseUrl() }).signIn(rob.email, rob.password)).rejects.toThrow(/Invalid email or password/);
    await user.page.getByRole('link', { name: 'Go to sign in' }).click();
    await signInThroughUi(user.page, baseUrl(), rob.email, 'rob-new-password-1');

    // The link works once.
    await user.context.clearCookies();
    await user.page.evaluate(() => localStorage.clear());
    await user.page.goto(link);
    await user.page.getByLabel('New password', { exact: true }).fill('rob-new-password-3');
    await user.page.getByLabel('New password again').fill('rob-new-password-3');
    await user.page.getByRole('button', { name: 'Set password' }).click();
    await user.page.getByRole('alert').filter({ hasText: 'Reset link is invalid, used or expired' }).waitFor();
    expect(user.foreign).toEqual([]);
    await user.context.close();
  });
});
