// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter } from 'react-router-dom';
import { AccountPage } from '../src/account/AccountPage';
import { SessionProvider } from '../src/app/session';
import { RequireUser } from '../src/app/Layout';
import { client, storeSession } from '../src/app/api';
import { render, waitFor } from './dom';
import { useRealStudio } from './real-studio';

afterEach(() => {
  vi.unstubAllGlobals();
  storeSession(null);
  document.body.innerHTML = '';
});

/** The account page against a real studio: who the user is, and their quota as the server counts it. */
describe('AccountPage', () => {
  const { ctx, serve, tokenOf } = useRealStudio();

  const open = async (who: 'owner' | 'admin') => {
    storeSession({ accessToken: tokenOf(who), refreshToken: 'unused', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    client.token = tokenOf(who);
    serve();
    return render(
      <SessionProvider>
        <MemoryRouter future={{ v7_startTransition: true, v7_relativeSplatPath: true }}>
          <RequireUser>
            <AccountPage />
          </RequireUser>
        </MemoryRouter>
      </SessionProvider>,
    );
  };

  it("shows the user's quota use by kind, and the limit when it is reached", async () => {
    const owner = { authorization: ctx.cast.tokens.owner };
    const before = (await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me/quota', headers: owner })).json().item;
    for (const name of ['Harbor', 'Rail']) await ctx.s.app.inject({ method: 'POST', url: '/v1/maps', headers: owner, payload: { name } });
    const view = await open('owner');
    const use = await waitFor(() => view.container.querySelector('[aria-label="Quota use"]'), 10_000);
    expect(use.textContent).toBe(`${before.quotaUsage.total + 2} of ${before.quotaPolicy} records`);
    const maps = [...view.container.querySelectorAll('tbody tr')].find((r) => r.textContent?.startsWith('Maps'));
    expect(maps?.textContent).toBe(`Maps${before.quotaUsage.map + 2}`);
    expect(view.container.querySelector('[role=alert]')).toBeNull();
    await view.unmount();

    // At the limit: the page says so (the next create answers 402).
    const { id } = (await ctx.s.app.inject({ method: 'GET', url: '/v1/users/me', headers: owner })).json().item;
    const set = await ctx.s.app.inject({ method: 'PUT', url: `/v1/users/${id}/quotapolicy/${before.quotaUsage.total + 2}`, headers: { authorization: ctx.cast.tokens.admin } });
    expect(set.statusCode).toBe(200);
    const full = await open('owner');
    const alert = await waitFor(() => full.container.querySelector('[role=alert]'), 10_000);
    expect(alert.textContent).toBe(`You have reached your quota of ${before.quotaUsage.total + 2} records: delete some, or ask an administrator for a larger quota.`);
    const refused = await ctx.s.app.inject({ method: 'POST', url: '/v1/maps', headers: owner, payload: { name: 'One more' } });
    expect(refused.statusCode).toBe(402);
    await full.unmount();
  });

  it('says administrators are not limited', async () => {
    const view = await open('admin');
    const use = await waitFor(() => view.container.querySelector('[aria-label="Quota use"]'), 10_000);
    expect(use.textContent).toMatch(/^\d+ records; administrators are not limited\.$/);
    expect(view.container.querySelector('progress')).toBeNull();
    await view.unmount();
  });
});
