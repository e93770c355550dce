import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser, openStudio, signInThroughUi, type StudioPage } from './browser';
import { axeViolations } from './axe';
import { baseUrl, makerInNewTeam, unique, type createUser } from './api';
import { ANALYTIC_VIEWS } from '../src/analytics/view-list';

/**
 * Every screen of the studio, as a user meets it at 1280 and 1920 px: a screenshot of each (kept in
 * STUDIO_SCREENSHOTS, by default <tmp>/studio-screens), no part of a screen past the window's right edge,
 * no table wider than its frame unless that frame is a scroll region a keyboard can reach, and an axe-core
 * run (WCAG 2 A and AA rules) with no violation.
 */
const browser = useBrowser();
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const SHOTS = process.env.STUDIO_SCREENSHOTS ?? path.join(os.tmpdir(), 'studio-screens');

interface Screen {
  name: string;
  path: string;
  /** What shows once the screen has its data (beyond the network going quiet and no "Loading…" status). */
  ready?: (page: Page) => Promise<unknown>;
}

/** Parts of the page past the window's right edge, and tables wider than a frame that is not a reachable scroll region. */
function overflowOf(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const width = document.documentElement.clientWidth;
    const label = (el: Element) => {
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
      const name = el.getAttribute('aria-label') ? `[aria-label="${el.getAttribute('aria-label')}"]` : '';
      return `${el.tagName.toLowerCase()}${id}${cls}${name}`;
    };
    const clips = (el: Element) => getComputedStyle(el).overflowX !== 'visible';
    if (document.documentElement.scrollWidth > width + 1) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in ${width})`);
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (box.right > width + 1) {
        // Cut by a frame of its own that ends inside the window: that frame shows (or scrolls to) it.
        let cut = false;
        for (let p = el.parentElement; p && p !== document.documentElement; p = p.parentElement) {
          if (clips(p)) {
            cut = p.getBoundingClientRect().right <= width + 1;
            break;
          }
        }
        if (!cut) found.push(`${label(el)} ends at ${Math.round(box.right)} px, past the window's ${width}`);
      }
      if (el.tagName === 'TABLE') {
        let frame = el.parentElement;
        while (frame && !clips(frame)) frame = frame.parentElement;
        if (frame && frame.scrollWidth > frame.clientWidth + 1) {
          const reachable = frame.getAttribute('tabindex') === '0' && (frame.getAttribute('role') === 'region' || frame.hasAttribute('aria-label'));
          if (!reachable) found.push(`${label(el)} is ${frame.scrollWidth} px wide in a ${frame.clientWidth} px frame (${label(frame)}) that a keyboard cannot scroll`);
        }
      }
    }
    return [...new Set(found)].slice(0, 20);
  });
}

async function settled(page: Page, screen: Screen): Promise<void> {
  await page.waitForLoadState('networkidle');
  await screen.ready?.(page);
  await page.getByRole('status').filter({ hasText: /Loading/ }).first().waitFor({ state: 'detached' }).catch(() => undefined);
  await expect.poll(() => page.getByRole('status').filter({ hasText: /Loading/ }).count()).toBe(0);
  await page.waitForLoadState('networkidle');
}

/**
 * Opens each screen once, at 1280 px, then widens the same window to 1920 px, as a user who enlarges it:
 * a screenshot and the overflow check at each width, axe once (its rules do not depend on the width). One
 * load per screen instead of two halves the test's time, most of it spent loading the map builder
 * (docs/decisions.md "Every screen measured").
 */
async function visit(studio: StudioPage, screens: Screen[]): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const { page } = studio;
  const findings: string[] = [];
  for (const screen of screens) {
    await page.setViewportSize(WIDTHS[0]!);
    await page.goto(`${baseUrl()}${screen.path}`);
    await settled(page, screen);
    for (const v of await axeViolations(page)) findings.push(`${screen.name}: ${v}`);
    for (const [i, size] of WIDTHS.entries()) {
      if (i > 0) {
        await page.setViewportSize(size);
        await settled(page, screen);
      }
      await page.screenshot({ path: path.join(SHOTS, `${screen.name}-${size.width}.png`) });
      for (const o of await overflowOf(page)) findings.push(`${screen.name} at ${size.width} px: ${o}`);
    }
  }
  expect(findings).toEqual([]);
  expect(studio.foreign).toEqual([]);
}

const heading = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { level: 1, name }).first().waitFor();

describe('every screen at 1280 and 1920 px: no overflow, no WCAG 2 A/AA violation', () => {
  let maker: Awaited<ReturnType<typeof createUser>>;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    maker = await makerInNewTeam('Screens', 'Sam Screens');
    const c = maker.client;
    const dataset = await c.datasets.upload('name,lat,lng,visits\nFerry Building,37.7955,-122.3937,1250\nCoit Tower,37.8024,-122.4058,830\n', { contentType: 'text/csv', name: `Landmarks ${unique()}` });
    const layer = { id: 'landmarks', type: 'point', config: { dataId: dataset.id, label: 'Landmarks', color: [230, 80, 40], columns: { lat: 'lat', lng: 'lng', altitude: null }, isVisible: true } };
    const kepler = { version: 'v1', config: { visState: { layers: [layer] }, mapState: { latitude: 37.79, longitude: -122.41, zoom: 12 }, mapStyle: { styleType: 'blank' } } };
    const map = await c.records('maps').save({ name: `Landmarks map ${unique()}`, datasets: [dataset.id], latestState: { studioVersion: 1, kepler } });
    await c.maps.publish(map.id);
    const dashboard = await c.records('dashboards').save({ name: `Landmarks board ${unique()}` });
    const workbook = await c.records('workbooks').save({ name: `Landmarks workbook ${unique()}` });
    const project = await c.projects.save({ name: `Landmarks project ${unique()}` });
    await c.projects.addResource(project.id, { type: 'map', id: map.id });
    await c.tags.create({ name: 'Landmarks', color: '#2ca02c', resourceId: map.id, resourceType: 'map' });
    const query = await c.bookmarks.create({ name: `Busiest ${unique()}`, query: 'select 1 as one' });
    const style = await c.mapAssets.create({ assetType: 'map-style', name: `Night ${unique()}`, style: { version: 8, sources: {}, layers: [] } });
    const palette = await c.mapAssets.create({ assetType: 'color-palette', name: `Warm ${unique()}`, palette: { type: 'qualitative', colors: ['#b2182b', '#2166ac'] } });
    const { host, port, user } = inject('warehouseServer');
    const connector = await c.connections.create({ type: 'postgres', name: `Warehouse ${unique()}`, description: '', host, port, database: 'postgres', user, sslmode: 'disable', sshPort: 22, credentials: { password: 'unused-with-trust' } });
    Object.assign(ids, { connector: connector.id, dataset: dataset.id, map: map.id, dashboard: dashboard.id, workbook: workbook.id, project: project.id, query: query.id, style: style.id, palette: palette.id });
  });

  it('screens anyone can open: sign-in, an invitation, a published map, a page that does not exist', async () => {
    const studio = await openStudio(browser(), baseUrl());
    await visit(studio, [
      { name: 'sign-in', path: '/sign-in', ready: (p) => p.getByLabel('Email').waitFor() },
      { name: 'accept-invitation', path: '/accept-invitation?token=unknown', ready: (p) => p.getByLabel('Your name').waitFor() },
      { name: 'forgot-password', path: '/forgot-password', ready: (p) => p.getByLabel('Email').waitFor() },
      { name: 'reset-password', path: '/reset-password?token=unknown', ready: (p) => p.getByLabel('New password again').waitFor() },
      { name: 'public-map', path: `/public/${ids.map}`, ready: (p) => p.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 }) },
      { name: 'not-found', path: '/workspace/no-such-screen' },
    ]);
    await studio.context.close();
  }, 180_000);

  it("a maker's workspace: every list, record page, editor and account screen", async () => {
    const studio = await openStudio(browser(), baseUrl());
    await signInThroughUi(studio.page, baseUrl(), maker.email, maker.password);
    const lists = ['maps', 'dashboards', 'workbooks', 'projects', 'datasets', 'connectors', 'queries', 'basemaps', 'colors'];
    await visit(studio, [
      ...lists.map((slug) => ({ name: `list-${slug}`, path: `/workspace/${slug}`, ready: (p: Page) => p.getByRole('table').first().waitFor() })),
      { name: 'dataset', path: `/workspace/datasets/${ids.dataset}`, ready: heading(/Landmarks/) },
      { name: 'home', path: '/workspace', ready: (p) => p.getByRole('table', { name: 'Recent' }).waitFor() },
      { name: 'search', path: '/workspace/search?q=Landmarks', ready: (p) => p.getByRole('link', { name: /Landmarks map/ }).first().waitFor() },
      { name: 'project-new', path: '/workspace/projects/new', ready: (p) => p.getByLabel('Project name').waitFor() },
      { name: 'project', path: `/workspace/projects/${ids.project}`, ready: heading(/Landmarks project/) },
      { name: 'jobs', path: '/workspace/jobs' },
      { name: 'tags', path: '/workspace/tags' },
      { name: 'account', path: '/workspace/account' },
      { name: 'api-keys', path: '/workspace/account/api-keys' },
      { name: 'connector-new', path: '/workspace/connectors/new' },
      { name: 'connector', path: `/workspace/connectors/${ids.connector}`, ready: (p) => p.getByRole('region', { name: 'Schemas' }).waitFor() },
      { name: 'saved-query', path: `/workspace/queries/${ids.query}` },
      { name: 'basemap-new', path: '/workspace/basemaps/new' },
      { name: 'basemap', path: `/workspace/basemaps/${ids.style}` },
      { name: 'palette-new', path: '/workspace/colors/new' },
      { name: 'palette', path: `/workspace/colors/${ids.palette}` },
    ]);
    await studio.context.close();
  }, 300_000);

  it("a maker's builders: the map builder, dashboards, workbooks, previews and every analytic view", async () => {
    const studio = await openStudio(browser(), baseUrl());
    await signInThroughUi(studio.page, baseUrl(), maker.email, maker.password);
    const mapReady = (p: Page) => p.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 45_000 });
    await visit(studio, [
      { name: 'map-new', path: '/new' },
      { name: 'map', path: `/${ids.map}`, ready: mapReady },
      { name: 'dashboard-new', path: '/dashboard/new' },
      { name: 'dashboard', path: `/dashboard/${ids.dashboard}` },
      { name: 'workbook-new', path: '/workbook/new' },
      { name: 'workbook', path: `/workbook/${ids.workbook}` },
      { name: 'preview', path: `/preview/${ids.map}`, ready: mapReady },
      ...ANALYTIC_VIEWS.map((v) => ({ name: `analytics-${v.slug}`, path: `/analytics/foot-traffic/${v.slug}`, ready: heading(v.title) })),
    ]);
    await studio.context.close();
  }, 600_000);

  it("an administrator's screens", async () => {
    const studio = await openStudio(browser(), baseUrl());
    await signInThroughUi(studio.page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    const pages = ['organizations', 'users', 'invite', 'audit-log', 'published-maps', 'ownership', 'quotas', 'refused-connections', 'client-errors', 'legal'];
    await visit(studio, pages.map((p) => ({ name: `admin-${p}`, path: `/workspace/admin/${p}` })));
    await studio.context.close();
  }, 300_000);
});
