import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';

const browser = useBrowser();
const run = promisify(execFile);

/** What curl gets for GET /v1/users/me with `key` as the bearer token: the status and the body. */
async function curlMe(key: string): Promise<{ status: number; body: string }> {
  const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${key}`, `${baseUrl()}/v1/users/me`]);
  const at = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
}

describe('API keys', () => {
  it('a user makes a key (shown once), a script calls the API with it through curl, the user renames and revokes it, the call is refused', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Keys ${unique()}`);
    const kim = await createUser(admin, team.id, 'Kim Script', `kim.${unique()}@e2e.studio.test`);

    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), kim.email, kim.password);
    await page.getByRole('button', { name: 'Account of Kim Script' }).click();
    await page.getByRole('button', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('No API keys yet.').waitFor();

    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill('nightly export');
    await form.getByRole('button', { name: 'New API key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!;
    expect(key.length).toBeGreaterThan(20);
    const row = page.getByRole('table', { name: 'API keys' }).locator('tbody tr');
    await expect.poll(() => row.allInnerTexts()).toEqual([expect.stringMatching(/^nightly export\t\S+…\t.+\tNever\t/)]);

    // A script uses it.
    const me = await curlMe(key);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).item.email).toBe(kim.email);
    // Shown once: the list never shows it again, after a reload neither.
    await page.reload();
    await row.first().waitFor();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    await expect.poll(() => row.allInnerTexts()).toEqual([expect.not.stringContaining('\tNever\t')]);

    await page.getByRole('button', { name: 'Rename nightly export' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename API key' });
    await rename.getByLabel('Name').fill('weekly export');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => row.allInnerTexts()).toEqual([expect.stringMatching(/^weekly export\t/)]);

    await page.getByRole('button', { name: 'Revoke weekly export' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke API key' });
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No API keys yet.').waitFor();
    // Refused within the auth cache's time (STUDIO_AUTH_CACHE_MS, 2 s by default).
    await expect.poll(async () => (await curlMe(key)).status, { timeout: 15_000 }).toBe(401);
  });

  it('a Data SDK key: a v1. refresh token that a script exchanges for an access token, listed as Data SDK', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`SDK ${unique()}`);
    const sam = await createUser(admin, team.id, 'Sam Notebook', `sam.${unique()}@e2e.studio.test`);
    const { page } = await openStudio(browser(), baseUrl());
    await signInThroughUi(page, baseUrl(), sam.email, sam.password);
    await page.goto(`${baseUrl()}/workspace/account/api-keys`);
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill('notebook');
    await form.getByLabel('Kind').selectOption('sdk');
    await form.getByRole('button', { name: 'New API key' }).click();
    const refresh = (await page.getByTestId('new-api-key').textContent())!;
    expect(refresh.startsWith('v1.')).toBe(true);
    const row = page.getByRole('table', { name: 'API keys' }).locator('tbody tr');
    await expect.poll(() => row.allInnerTexts()).toEqual([expect.stringMatching(/^notebook\tv1\.\S+…\tData SDK\t/)]);

    const { stdout } = await run('curl', ['-s', '-H', 'Content-Type: application/json', '-d', JSON.stringify({ grant_type: 'refresh_token', client_id: 'notebook', refresh_token: refresh }), `${baseUrl()}/sdk/oauth/token`]);
    const token = JSON.parse(stdout) as { access_token: string; token_type: string };
    expect(token.token_type).toBe('Bearer');
    const datasets = await run('curl', ['-s', '-H', `Authorization: Bearer ${token.access_token}`, `${baseUrl()}/sdk/v1/datasets`]);
    expect(JSON.parse(datasets.stdout)).toEqual({ items: [] });
  });
});
