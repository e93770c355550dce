import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, createUser, unique } from './api';
import { countPixels, waitMapReady } from './pixels';

/**
 * Features that last during the playback (kepler.gl #3198): a time filter with an end-time field draws a feature
 * while its [start, end] interval overlaps the playback window, in the builder, the published view and an embed.
 * Each feature has its own colour (an ordinal scale over `name`), so what is drawn is counted by colour.
 */
const browser = useBrowser();
const RED: [number, number, number] = [230, 20, 30];
const BLUE: [number, number, number] = [30, 60, 230];
// a: the 1st to the 10th of January; b: the 11th to the 14th; z (green, never in a window tested): the 20th to the 21st.
const CSV = [
  'name,lat,lng,starts_at,ends_at',
  'a,37.75,-122.43,2024-01-01 00:00:00,2024-01-10 00:00:00',
  'b,37.75,-122.37,2024-01-11 00:00:00,2024-01-14 00:00:00',
  'z,37.77,-122.40,2024-01-20 00:00:00,2024-01-21 00:00:00',
].join('\n');
const day = (d: number) => Date.UTC(2024, 0, d);
/** Below a drawn feature's pixels (about 2,000: radius 100 at zoom 12), far above what a published view's open legend shows in one colour (300). */
const DRAWN = 1200;
const ABSENT = 700;

function mapState(datasetId: string, window: [number, number], ends: boolean) {
  const layer = {
    id: 'spans',
    type: 'point',
    config: {
      dataId: datasetId,
      label: 'Spans',
      columns: { lat: 'lat', lng: 'lng', altitude: null },
      isVisible: true,
      visConfig: { radius: 100, opacity: 1, filled: true, colorRange: { name: 'Spans', type: 'custom', category: 'Custom', colors: ['#E6141E', '#1E3CE6', '#14B43C'] } },
    },
    visualChannels: { colorField: { name: 'name', type: 'string' }, colorScale: 'ordinal' },
  };
  const filter = { dataId: [datasetId], id: 'when', name: ['starts_at'], type: 'timeRange', value: window, enlarged: true, plotType: 'histogram', animationWindow: 'free' };
  const kepler = { version: 'v1', config: { visState: { layers: [layer], filters: [filter] }, mapState: { latitude: 37.735, longitude: -122.4, zoom: 12 }, mapStyle: { styleType: 'blank' } } };
  return { studioVersion: 1, kepler, ...(ends ? { timeEnds: { when: { [datasetId]: 'ends_at' } } } : {}) };
}

const drawn = (page: Page, rgb: [number, number, number]) => expect.poll(() => countPixels(page, rgb, 10), { timeout: 20_000 }).toBeGreaterThan(DRAWN);
const absent = (page: Page, rgb: [number, number, number]) => expect.poll(() => countPixels(page, rgb, 10), { timeout: 20_000 }).toBeLessThan(ABSENT);

describe('a time filter with an end time', () => {
  it('draws a feature while its interval overlaps the playback window, after its start left the window, in the builder, the published view and an embed', async () => {
    const admin = await asAdmin();
    const team = await admin.admin.createOrganization(`Span team ${unique()}`);
    const maker = await createUser(admin, team.id, 'Sam Span', `sam.${unique()}@e2e.studio.test`);
    const dataset = await maker.client.datasets.upload(CSV, { contentType: 'text/csv', name: `Spans ${unique()}` });
    const maps = maker.client.records('maps');
    // The 5th to the 6th: inside a's interval, four days after its start.
    const map = await maps.save({ name: `Spans ${unique()}`, datasets: [dataset.id], latestState: mapState(dataset.id, [day(5), day(6)], true) });

    const s = await openStudio(browser(), baseUrl(), { timezoneId: 'America/Los_Angeles' });
    const { page } = s;
    await signInThroughUi(page, baseUrl(), maker.email, maker.password);
    await page.goto(`${baseUrl()}/${map.id}`);
    await waitMapReady(page);
    await drawn(page, RED);
    await absent(page, BLUE);

    // The filter panel offers the end time, set as saved; without it the playback is kepler's (a's start is not in the window).
    await page.locator('.side-panel__tab[data-for="filter-nav"]').click();
    const endTime = page.getByLabel('End time');
    expect(await endTime.inputValue()).toBe('ends_at');
    await endTime.selectOption('');
    await absent(page, RED);
    await endTime.selectOption('ends_at');
    await drawn(page, RED);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect(((await maps.get(map.id)).latestState as { timeEnds?: unknown }).timeEnds).toEqual({ when: { [dataset.id]: 'ends_at' } });
    await maker.client.maps.publishWith(map.id, { title: 'Spans' });

    // A reader, and the embed of the same published map: a drawn, b not.
    const anon = await openStudio(browser(), baseUrl(), { timezoneId: 'Asia/Tokyo' });
    for (const path of [`/public/${map.id}`, `/public/${map.id}?embed=1`]) {
      await anon.page.goto(`${baseUrl()}${path}`);
      await waitMapReady(anon.page);
      await drawn(anon.page, RED);
      await absent(anon.page, BLUE);
    }

    // The 12th to the 13th: outside a's interval (it ended on the 10th), inside b's (started on the 11th).
    const later = await maps.save({ name: `Spans later ${unique()}`, datasets: [dataset.id], latestState: mapState(dataset.id, [day(12), day(13)], true) });
    await page.goto(`${baseUrl()}/${later.id}`);
    await waitMapReady(page);
    await drawn(page, BLUE);
    await absent(page, RED);
    expect(s.foreign).toEqual([]);
    expect(anon.foreign).toEqual([]);
    await anon.context.close();
    await s.context.close();
  }, 180_000);
});
