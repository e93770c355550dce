import type { Browser } from 'playwright-core';
import { openStudio, signInThroughUi, type StudioPage } from './browser';
import { baseUrl } from './api';
import { waitMapReady } from './pixels';

/**
 * A maker's browser on a new map of one of their datasets, drawn and ready (the map builder's `/new?datasetUuid=`),
 * with the page's errors logged: where the tests of saving and history start.
 */
export async function newMapOf(browser: Browser, maker: { email: string; password: string }, datasetId: string): Promise<StudioPage> {
  const s = await openStudio(browser, baseUrl());
  s.page.on('pageerror', (e) => console.error('pageerror', e.message));
  await signInThroughUi(s.page, baseUrl(), maker.email, maker.password);
  await s.page.goto(`${baseUrl()}/new?datasetUuid=${datasetId}`);
  await waitMapReady(s.page);
  return s;
}
