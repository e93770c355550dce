import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

declare global {
  interface Window {
    /** Set before the app starts: the app then exposes its test hooks (src/app/test-hooks.ts). */
    __studioTestHooks?: boolean;
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

export interface StudioPage {
  context: BrowserContext;
  page: Page;
  /** Every request that went to a host other than the studio's. */
  foreign: string[];
}

/**
 * What the server's content security policy refused in any page of this file's current test, as the browser
 * reported it ("Refused to load …"): useBrowser fails the test on any. The policy is only as good as the app's
 * passing it: a refusal is a feature broken for users (a map that never draws, a chart without style).
 */
const policyViolations: string[] = [];

/** A fresh browser context (own storage) whose requests are watched for other hosts and policy refusals. */
export async function openStudio(browser: Browser, baseUrl: string, options: { timezoneId?: string } = {}): Promise<StudioPage> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, ...options });
  // The map's test hooks (window.__studioMap, __studioMapReady): only pages opened this way have them.
  await context.addInitScript(() => {
    window.__studioTestHooks = true;
  });
  context.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) policyViolations.push(`${m.page()?.url() ?? 'a worker'}: ${m.text()}`);
  });
  const host = new URL(baseUrl).host;
  const foreign: string[] = [];
  context.on('request', (r) => {
    const url = new URL(r.url());
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host !== host) foreign.push(r.url());
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page, foreign };
}

export async function signInThroughUi(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/workspace\//);
}

/** One browser for a test file: launched before its tests, closed after. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(() => {
    expect(policyViolations.splice(0), 'content security policy violations').toEqual([]);
  });
  return () => browser!;
}

/** Chooses `item` (its accessible name, e.g. "Rename Harbor traffic") from the Actions menu of `record`'s row. */
export async function rowAction(page: Page, record: string, item: string): Promise<void> {
  await page.getByRole('button', { name: `Actions for ${record}`, exact: true }).click();
  await page.getByRole('menuitem', { name: item, exact: true }).click();
}
