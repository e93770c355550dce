import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ResourceType } from '@studio/schema';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { axeViolations } from './axe';
import { asAdmin, baseUrl, createUser, unique } from './api';

/**
 * Lists and tables as they are with real names, not the short ones of the samples: 80-character names,
 * 300-character descriptions and eight tags a record, at 1280 and 1024 px. The page never scrolls sideways,
 * every row's actions (the "Actions" menu button, or an admin table's buttons) are inside the window, the
 * menu opens inside it too, the top bar keeps to one line, and axe-core (WCAG 2 A and AA) finds nothing on any of them, nor on a dataset's
 * page with its schema statistics and preview.
 */
const browser = useBrowser();
/** Screenshots of each list at each width, to look at (STUDIO_SCREENSHOTS, as the every-screen test). */
const SHOTS = path.join(process.env.STUDIO_SCREENSHOTS ?? path.join(os.tmpdir(), 'studio-screens'), 'lists');
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
];

/** `n` characters of words (so a browser could wrap them, as real names do), ending in this run's word. */
const long = (n: number, word: string) => {
  const text = 'Quarterly foot traffic across the harbor district stores and their catchment areas ';
  return `${text.repeat(Math.ceil(n / text.length)).slice(0, n - word.length - 1).trimEnd()} ${word}`.padEnd(n, 'x');
};

/** What at the current width is past the window's edge: the page's own scroll width and each row's buttons. */
function outside(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width) found.push(`the page is ${document.documentElement.scrollWidth} px wide in ${width}`);
    for (const b of Array.from(document.querySelectorAll<HTMLElement>('table tbody button'))) {
      const box = b.getBoundingClientRect();
      if (box.left < 0 || box.right > width) found.push(`“${b.getAttribute('aria-label') ?? b.textContent}” spans ${Math.round(box.left)}–${Math.round(box.right)} px`);
    }
    // Lines a text runs on, by the distinct tops of its boxes.
    const lines = (range: Range) => new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    const texts = (root: Element) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.trim()) nodes.push(n as Text);
      return nodes;
    };
    // The top bar on one line: none of its texts wraps, nothing sticks out of it.
    const topbar = document.querySelector('.topbar');
    if (topbar) {
      const bar = topbar.getBoundingClientRect();
      for (const node of texts(topbar)) {
        const range = document.createRange();
        range.selectNodeContents(node);
        const box = range.getBoundingClientRect();
        if (lines(range) > 1 || box.top < bar.top || box.bottom > bar.bottom) found.push(`the top bar wraps: “${node.textContent!.trim().slice(0, 40)}” on ${lines(range)} lines`);
      }
    }
    // No word of a table cell cut in two: a word (a run without spaces or hyphens, split where the cell offers a
    // break, as after a long email's punctuation) whose boxes sit on two lines was broken inside it. A cell that clips (the
    // record lists' one-line names with the full text on hover) is not a cut word.
    for (const cell of Array.from(document.querySelectorAll('table td'))) {
      if (getComputedStyle(cell).overflow === 'hidden' || cell.closest('[hidden]')) continue;
      for (const node of texts(cell)) {
        const text = node.textContent!;
        // A hyphen is a place to break too (an id's, a compound word's), as browsers break there themselves.
        for (const m of text.matchAll(/[^\s-]+-?/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          if (lines(range) > 1) found.push(`a word is cut in a table cell: “${m[0].slice(0, 40)}”`);
        }
      }
    }
    return [...new Set(found)].slice(0, 10);
  });
}

async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.getByRole('table').first().waitFor();
  await expect.poll(() => page.getByRole('status').filter({ hasText: /Loading/ }).count()).toBe(0);
}

/** Visits each path at both widths; `name` is a record whose row must show its Actions button. */
async function check(page: Page, screens: { path: string; name?: string; ready?: (p: Page) => Promise<unknown> }[]): Promise<string[]> {
  const findings: string[] = [];
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const screen of screens) {
    await page.setViewportSize(WIDTHS[0]!);
    await page.goto(`${baseUrl()}${screen.path}`);
    await settled(page);
    await screen.ready?.(page);
    for (const v of await axeViolations(page)) findings.push(`${screen.path}: ${v}`);
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      await page.screenshot({ path: path.join(SHOTS, `${screen.path.replace(/\W+/g, '-').slice(1, 60)}-${size.width}.png`) });
      for (const o of await outside(page)) findings.push(`${screen.path} at ${size.width} px: ${o}`);
      if (!screen.name) continue;
      const actions = page.getByRole('button', { name: `Actions for ${screen.name}`, exact: true });
      if (!(await actions.isVisible())) findings.push(`${screen.path} at ${size.width} px: no Actions button for ${screen.name}`);
      // The menu opens inside the window, its items named with the record.
      await actions.click();
      const menu = page.getByRole('menu', { name: `Actions for ${screen.name}` });
      await menu.getByRole('menuitem').first().waitFor();
      const box = (await menu.boundingBox())!;
      if (box.x < 0 || box.x + box.width > size.width) findings.push(`${screen.path} at ${size.width} px: the Actions menu spans ${Math.round(box.x)}–${Math.round(box.x + box.width)} px`);
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
    }
  }
  return findings;
}

describe('lists and tables with long names at 1280 and 1024 px', () => {
  const word = unique();
  const name = (kind: string) => long(80, `${kind} ${word}`);
  const description = long(300, word);
  let maker: Awaited<ReturnType<typeof createUser>>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const admin = await asAdmin();
    const org = await admin.admin.createOrganization(long(80, `Org ${word}`));
    maker = await createUser(admin, org.id, long(80, `Maker ${word}`), `${'a-rather-long-mailbox-name-for-a-person'.slice(0, 40)}.${word}@e2e.studio.test`);
    await admin.admin.invite(org.id, `${'someone-invited-with-a-long-address'.repeat(2)}.${word}@e2e.studio.test`, 'maker');
    const c = maker.client;
    const csv = `${['name', 'a_rather_long_column_name_for_visits_per_day', 'lat', 'lng'].join(',')}\n${`"${description}",1250,37.7955,-122.3937\n`.repeat(3)}`;
    const dataset = await c.datasets.upload(csv, { contentType: 'text/csv', name: name('Dataset') });
    await c.records('datasets').save({ id: dataset.id, description });
    const kepler = { version: 'v1', config: { visState: { layers: [] }, mapState: { latitude: 37.79, longitude: -122.41, zoom: 12 }, mapStyle: { styleType: 'blank' } } };
    const map = await c.records('maps').save({ name: name('Map'), description, datasets: [dataset.id], latestState: { studioVersion: 1, kepler } });
    await c.maps.publish(map.id);
    const dashboard = await c.records('dashboards').save({ name: name('Dashboard'), description });
    const workbook = await c.records('workbooks').save({ name: name('Workbook'), description });
    const project = await c.projects.save({ name: name('Project'), description });
    const query = await c.bookmarks.create({ name: name('Query'), description, query: 'select 1 as one' });
    const style = await c.mapAssets.create({ assetType: 'map-style', name: name('Basemap'), description, style: { version: 8, sources: {}, layers: [] } });
    const palette = await c.mapAssets.create({ assetType: 'color-palette', name: name('Palette'), description, palette: { type: 'qualitative', colors: ['#b2182b', '#2166ac'] } });
    const tags = [];
    for (let i = 0; i < 8; i++) tags.push(await c.tags.create({ name: `${long(40, `tag ${i}`)}`, color: ['#2ca02c', '#d62728', '#9467bd', '#8c564b'][i % 4] }));
    const tagged: [ResourceType, string][] = [
      ['map', map.id], ['insight', dashboard.id], ['workbook', workbook.id], ['project', project.id], ['dataset', dataset.id],
      ['query-bookmark', query.id], ['map-asset', style.id], ['map-asset', palette.id],
    ];
    for (const [type, id] of tagged) for (const t of tags) await c.tags.apply(t.id, type, id);
    Object.assign(ids, { dataset: dataset.id });
  });

  it("a maker's lists: no sideways scroll, each row's Actions inside the window, no axe violation", async () => {
    const studio = await openStudio(browser(), baseUrl());
    studio.page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await signInThroughUi(studio.page, baseUrl(), maker.email, maker.password);
    const lists: [string, string][] = [
      ['maps', 'Map'], ['dashboards', 'Dashboard'], ['workbooks', 'Workbook'], ['projects', 'Project'], ['datasets', 'Dataset'],
      ['queries', 'Query'], ['basemaps', 'Basemap'], ['colors', 'Palette'],
    ];
    const findings = await check(studio.page, [
      ...lists.map(([slug, kind]) => ({ path: `/workspace/${slug}`, name: name(kind) })),
      { path: '/workspace/tags' },
      {
        path: `/workspace/datasets/${ids.dataset}`,
        ready: (p) => p.getByRole('grid', { name: 'Data preview' }).or(p.getByRole('table', { name: 'Data preview' })).first().waitFor(),
      },
    ]);
    console.log(findings.length ? `what the lists test found:\n${findings.join('\n')}` : 'the lists test found nothing');
    expect(findings).toEqual([]);
    expect(studio.foreign).toEqual([]);
    await studio.context.close();
  }, 300_000);

  it("an administrator's tables with the same names", async () => {
    const studio = await openStudio(browser(), baseUrl());
    await signInThroughUi(studio.page, baseUrl(), inject('adminEmail'), inject('adminPassword'));
    const pages = ['organizations', 'users', 'invite', 'audit-log', 'published-maps', 'quotas'];
    const findings = await check(studio.page, pages.map((p) => ({ path: `/workspace/admin/${p}` })));
    console.log(findings.length ? `what the admin tables test found:\n${findings.join('\n')}` : 'the admin tables test found nothing');
    expect(findings).toEqual([]);
    await studio.context.close();
  }, 300_000);
});
