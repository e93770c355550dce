// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionProvider, useSession } from '../src/app/session';
import { client, readSession, storeSession } from '../src/app/api';
import { render, waitFor } from './dom';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
  document.body.innerHTML = '';
});

function Who() {
  const { user, loading } = useSession();
  return <p>{loading ? 'loading' : user ? user.email : 'signed out'}</p>;
}

/**
 * The app's start: the stored session is checked with /v1/users/me. Only the server saying it is gone
 * ends it; a check that is cut off (the page or a map frame navigating away), offline or failing on the
 * server keeps the stored session, which other tabs and frames share.
 */
describe('the session at start', () => {
  const stored = { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: '2099-01-01T00:00:00Z' };
  it.each([
    ['cut off', () => Promise.reject(new DOMException('The operation was aborted', 'AbortError')), true],
    ['offline', () => Promise.reject(new TypeError('Failed to fetch')), true],
    ['a server error', () => Promise.resolve(new Response(JSON.stringify({ message: 'Internal Server Error' }), { status: 500 })), true],
    ['refused (401, and the refresh refused too)', () => Promise.resolve(new Response(JSON.stringify({ message: 'Session is invalid or expired' }), { status: 401 })), false],
  ])('when the check is %s', async (_name, answer, kept) => {
    storeSession(stored);
    client.token = stored.accessToken;
    vi.stubGlobal('fetch', vi.fn(answer));
    const { container } = await render(<SessionProvider><Who /></SessionProvider>);
    await waitFor(() => container.textContent !== 'loading');
    expect(container.textContent).toBe('signed out');
    expect(readSession() !== null).toBe(kept);
  });
});
