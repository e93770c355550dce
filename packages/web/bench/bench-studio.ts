import type { Browser } from 'playwright-core';
import { StudioClient } from '@studio/client';
import type { Dataset } from '@studio/schema';
import startServer, { ADMIN } from '../e2e/global-setup';
import { launchBrowser } from '../e2e/browser';

/** What a browser bench runs against: the studio as the browser tests start it, a Chromium, the administrator's client. */
export interface BenchStudio {
  baseUrl: string;
  browser: Browser;
  admin: StudioClient;
}

/**
 * Starts the studio (the browser tests' global setup: the production build on a fresh data folder) and Chromium,
 * signs the administrator in, runs `fn`, and stops both whatever happens.
 */
export async function withBenchStudio<T>(fn: (studio: BenchStudio) => Promise<T>): Promise<T> {
  const provided: Record<string, string> = {};
  const stop = await startServer({ provide: (k: string, v: string) => (provided[k] = v) } as unknown as Parameters<typeof startServer>[0]);
  try {
    const baseUrl = provided.baseUrl!;
    const browser = await launchBrowser();
    try {
      const admin = new StudioClient({ baseUrl });
      await admin.signIn(ADMIN.email, ADMIN.password);
      return await fn({ baseUrl, browser, admin });
    } finally {
      await browser.close();
    }
  } finally {
    await stop();
  }
}

/** Uploads a dataset and waits until its ingestion (in the background) has made it ready; an ingestion error throws. */
export async function uploadReady(admin: StudioClient, ...upload: Parameters<StudioClient['datasets']['upload']>): Promise<Dataset> {
  let dataset = await admin.datasets.upload(...upload);
  while (dataset.status !== 'ready') {
    if (dataset.status === 'error') throw new Error(`ingestion failed: ${JSON.stringify(dataset.metadata)}`);
    await new Promise((r) => setTimeout(r, 500));
    dataset = await admin.datasets.get(dataset.id);
  }
  return dataset;
}
