// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { RecordList, emptyText } from '../src/list/RecordList';
import { COLLECTIONS, collectionBySlug } from '../src/list/collections';
import { json, render, waitFor } from './dom';

const maps = collectionBySlug('maps')!;
const record = (name: string) => ({
  id: '3f7a3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f',
  type: 'map',
  name,
  description: '',
  ownerId: '3f7a3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e50',
  owner: { id: '3f7a3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e50', name: 'Ada', email: 'ada@x.test' },
  organizationId: null,
  visibility: 'private',
  isSample: false,
  importSource: null,
  latestState: null,
  datasets: [],
  mapAssets: { mapStyles: [], colorPalettes: [] },
  tags: [],
  lock: null,
  access: 'viewer',
  thumbnailUrl: null,
  createdAt: '2026-01-02T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('emptyText', () => {
  it.each([
    ['mine', '', false, 'No maps yet — create one with “New map”, or start from a dataset.'],
    ['organization', '', false, 'No maps in your organization yet — maps your colleagues create appear here.'],
    ['shared', '', false, 'Nothing shared with you yet — maps others share with you appear here.'],
    ['samples', '', false, 'No sample maps are available.'],
    ['mine', 'harbor', false, 'No maps match “harbor”.'],
    ['shared', '', true, 'No maps carry this tag.'],
  ] as const)('%s, search %j, tagged %s', (tab, search, tagged, text) => {
    expect(emptyText(maps, tab, search, tagged)).toBe(text);
  });

  it('has one configuration per workspace list of catalog §2', () => {
    expect(COLLECTIONS.map((c) => c.slug)).toEqual(['maps', 'dashboards', 'workbooks', 'datasets', 'connectors', 'queries', 'basemaps', 'colors']);
  });
});

describe('RecordList', () => {
  it('shows the server message on failure, retries, then lists with only the allowed actions', async () => {
    let fail = true;
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        calls.push(url);
        if (url.startsWith('/v1/tags')) return json(200, { items: [] });
        return fail ? json(503, { appStatusCode: 503, message: 'Catalog unavailable' }) : json(200, { items: [record('Harbor traffic')], total: 1 });
      }),
    );
    const view = await render(
      <MemoryRouter initialEntries={['/workspace/maps?tab=shared&q=harbor']} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <RecordList config={maps} />
      </MemoryRouter>,
    );
    const alert = await waitFor(() => view.container.querySelector('[role=alert]'));
    expect(alert.textContent).toContain('Catalog unavailable');
    expect(calls.find((u) => u.startsWith('/v1/maps'))).toBe('/v1/maps/shared-with-user?search=harbor&sortBy=updatedAt&sortOrder=desc&limit=200');

    fail = false;
    await act(async () => (alert.querySelector('button') as HTMLButtonElement).click());
    const row = await waitFor(() => [...view.container.querySelectorAll('tbody tr')].find((r) => r.textContent?.includes('Harbor traffic')));
    const buttons = [...row.querySelectorAll('button')].map((b) => b.getAttribute('aria-label'));
    // A viewer may duplicate (viewers copy) and tag, but not rename, share or delete.
    expect(buttons).toEqual(['Duplicate Harbor traffic', 'Edit tags of Harbor traffic']);
    expect(view.container.querySelector('[role=alert]')).toBeNull();
    await view.unmount();
  });
});
