// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { RecordList, emptyText } from '../src/list/RecordList';
import { COLLECTIONS, collectionBySlug } from '../src/list/collections';
import { client } from '../src/app/api';
import { json, render, waitFor } from './dom';
import { useRealStudio } from './real-studio';

const maps = collectionBySlug('maps')!;

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
    expect(COLLECTIONS.map((c) => c.slug)).toEqual(['maps', 'dashboards', 'workbooks', 'projects', 'datasets', 'connectors', 'queries', 'basemaps', 'colors']);
  });
});

describe('RecordList against a real studio', () => {
  const { ctx, serve, tokenOf } = useRealStudio();

  it('shows the server message on failure, retries, then lists with only the allowed actions', async () => {
    // The owner made a map and shared it with the viewer, who opens "Shared with me" searching "harbor".
    const owner = { authorization: ctx.cast.tokens.owner };
    const made = await ctx.s.app.inject({ method: 'POST', url: '/v1/maps', headers: owner, payload: { name: 'Harbor traffic' } });
    await ctx.s.app.inject({ method: 'POST', url: '/v1/maps', headers: owner, payload: { name: 'Rail freight' } });
    const share = { resourceType: 'map', resourceId: made.json().item.id, role: 'viewer', email: 'viewer@globex.test' };
    expect((await ctx.s.app.inject({ method: 'POST', url: '/v1/permissions', headers: owner, payload: share })).statusCode).toBe(201);
    client.token = tokenOf('viewer');
    // An outage first (a studio cannot be made to answer one), then the studio answers.
    let outage = true;
    const calls = serve();
    const studio = globalThis.fetch;
    vi.stubGlobal('fetch', (input: string, init?: RequestInit) =>
      outage && input.startsWith('/v1/maps') ? (calls.push(input), Promise.resolve(json(503, { appStatusCode: 503, message: 'Catalog unavailable' }))) : studio(input, init),
    );
    const view = await render(
      <MemoryRouter initialEntries={['/workspace/maps?tab=shared&q=harbor']} future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
        <RecordList config={maps} />
      </MemoryRouter>,
    );
    const alert = await waitFor(() => view.container.querySelector('[role=alert]'));
    expect(alert.textContent).toContain('Catalog unavailable');
    expect(calls.find((u) => u.startsWith('/v1/maps'))).toBe('/v1/maps/shared-with-user?search=harbor&sortBy=updatedAt&sortOrder=desc&offset=0&limit=200');

    outage = false;
    await act(async () => (alert.querySelector('button') as HTMLButtonElement).click());
    const row = await waitFor(() => [...view.container.querySelectorAll('tbody tr')].find((r) => r.textContent?.includes('Harbor traffic')), 10_000);
    expect([...view.container.querySelectorAll('tbody tr')].map((r) => r.textContent).join()).not.toContain('Rail freight');
    // The row's actions sit behind its Actions menu button.
    await act(async () => (row.querySelector('button[aria-label="Actions for Harbor traffic"]') as HTMLButtonElement).click());
    const buttons = [...view.container.querySelectorAll('[role=menu] [role=menuitem]')].map((b) => b.getAttribute('aria-label'));
    // A viewer may duplicate (viewers copy), tag and put it in a project of their own, but not rename, share or delete.
    expect(buttons).toEqual(['Duplicate Harbor traffic', 'Edit tags of Harbor traffic', 'Add Harbor traffic to a project']);
    expect(view.container.querySelector('[role=alert]')).toBeNull();
    await view.unmount();
  });
});
