import { describe, expect, inject, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';

const baseUrl = inject('baseUrl');
const email = inject('adminEmail');
const password = inject('adminPassword');
const browser = useBrowser();

describe('sign-in', () => {
  it('shows the server message for a wrong password and stays on sign-in', async () => {
    const { page, context, foreign } = await openStudio(browser(), baseUrl);
    await page.goto(`${baseUrl}/workspace`);
    await page.waitForURL(/\/sign-in$/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Invalid email or password');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('lands in the workspace with the right password, survives an expired token, and signs out', async () => {
    const { page, context, foreign } = await openStudio(browser(), baseUrl);
    await page.goto(`${baseUrl}/workspace`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the user was going: the workspace's home.
    await page.waitForURL(/\/workspace$/);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Workspace' });
    for (const label of ['Home', 'Maps', 'Dashboards', 'Workbooks', 'Projects', 'Datasets', 'Connectors', 'Saved queries', 'Basemaps', 'Colors', 'Tags', 'Organizations', 'Invite people', 'Audit log']) {
      expect(await nav.getByRole('link', { name: label, exact: true }).count(), label).toBe(1);
    }
    await page.screenshot({ path: '/tmp/studio-workspace.png', fullPage: true });

    // A spoiled access token is refreshed with the refresh token, invisibly.
    await page.evaluate(() => {
      const s = JSON.parse(localStorage.getItem('studio.session')!);
      localStorage.setItem('studio.session', JSON.stringify({ ...s, accessToken: 'spoiled' }));
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('studio.session')!).accessToken)).not.toBe('spoiled');

    await page.getByRole('button', { name: /Account of/ }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    expect(await page.evaluate(() => localStorage.getItem('studio.session'))).toBeNull();

    // Without any usable token, a workspace link goes to sign-in.
    await page.evaluate(() => localStorage.setItem('studio.session', JSON.stringify({ accessToken: 'x', refreshToken: 'y', expiresAt: '' })));
    await page.goto(`${baseUrl}/workspace/dashboards`);
    await page.waitForURL(/\/sign-in$/);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('opens a new dashboard on the report template, refuses an unknown template, and answers a page that does not exist with Page not found', async () => {
    const { page, context } = await openStudio(browser(), baseUrl);
    await signInThroughUi(page, baseUrl, email, password);
    await page.goto(`${baseUrl}/dashboard/new`);
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    await page.getByRole('button', { name: 'Add widget' }).waitFor();
    await page.goto(`${baseUrl}/dashboard/new?templateId=nope`);
    await page.getByRole('alert').filter({ hasText: 'Unknown template nope' }).waitFor();
    await page.goto(`${baseUrl}/no/such/page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.goto(`${baseUrl}/workspace`);
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await context.close();
  });
});
