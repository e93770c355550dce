import { NOT_SIGNED_IN, StudioClient } from '@studio/client';
import { TAB_HEADER, type Session } from '@studio/schema';
import { reportQuota } from './quota-events';

/** What survives a reload: the tokens only; the user is fetched again with /v1/users/me. */
export interface StoredSession {
  accessToken: string;
  refreshToken: string;
  expiresAt: string;
}

export const SESSION_KEY = 'studio.session';

export function readSession(): StoredSession | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    const s = raw ? (JSON.parse(raw) as StoredSession) : null;
    return s && typeof s.accessToken === 'string' && typeof s.refreshToken === 'string' ? s : null;
  } catch {
    return null;
  }
}

export function storeSession(s: Session | StoredSession | null): void {
  if (!s) localStorage.removeItem(SESSION_KEY);
  else localStorage.setItem(SESSION_KEY, JSON.stringify({ accessToken: s.accessToken, refreshToken: s.refreshToken, expiresAt: s.expiresAt }));
}

/** Called when the session is gone for good (refresh refused): the app goes back to sign-in. */
let onSignedOut: () => void = () => undefined;
export const setSignedOutHandler = (fn: () => void) => {
  onSignedOut = fn;
};

// Auth calls answer 401 for bad credentials; they must never trigger a refresh.
const NO_REFRESH = ['/v1/auth/sign-in', '/v1/auth/refresh', '/v1/auth/accept-invitation'];

let refreshing: Promise<string | null> | null = null;

/** Runs `work` while no other instance of the app (a tab, a frame) runs its own: the Web Locks API, where the browser has it. */
async function oneInstanceAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (typeof navigator === 'undefined' || !navigator.locks) return work();
  // The lock's promise settles with what `work` settles with (its typing nests the promise).
  return (await navigator.locks.request('studio.session-refresh', work)) as T;
}

/**
 * Exchanges the stored refresh token once, however many calls failed with 401 at the same time. Other
 * instances of the app share the stored session (tabs, and the map widgets' frames of a dashboard) and
 * refresh tokens are single-use: a token presented twice ends the whole sign-in, every instance's. So the
 * instances refresh one at a time, and one that finds a newer session stored (by `failedWith` no longer
 * being the stored access token) takes it instead of refreshing; when the refresh is refused because
 * another instance used the token first all the same, the session it stored is the answer.
 */
function refreshAccessToken(failedWith: string | null): Promise<string | null> {
  refreshing ??= oneInstanceAtATime(async () => {
    const stored = readSession();
    if (!stored) return null;
    if (failedWith !== null && stored.accessToken !== failedWith) return stored.accessToken;
    try {
      const session = await new StudioClient().refresh(stored.refreshToken);
      storeSession(session);
      return session.accessToken;
    } catch {
      const now = readSession();
      return now && now.refreshToken !== stored.refreshToken ? now.accessToken : null;
    }
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** The bearer token a request was sent with. */
function bearerOf(init: RequestInit | undefined): string | null {
  const header = new Headers(init?.headers).get('authorization');
  return header?.replace(/^Bearer\s+/i, '') ?? null;
}

/**
 * fetch with the session rules: a 401 on an authenticated call retries once with a newer stored access
 * token (another instance refreshed), else refreshes the access token and retries once; when the
 * refresh is refused, the session is dropped and the app signs out.
 */
export const sessionFetch: typeof fetch = async (input, rawInit) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const init = withTab(rawInit);
  const response = apiAnswer(url, await fetch(input, init));
  reportQuota(response);
  if (response.status !== 401 || NO_REFRESH.some((p) => url.includes(p)) || client.token === NOT_SIGNED_IN) return response;
  const stored = readSession();
  const token = stored && stored.accessToken !== bearerOf(init) ? stored.accessToken : await refreshAccessToken(bearerOf(init));
  if (!token) {
    storeSession(null);
    client.token = NOT_SIGNED_IN;
    onSignedOut();
    return response;
  }
  client.token = token;
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  const retried = apiAnswer(url, await fetch(input, { ...init, headers }));
  reportQuota(retried);
  return retried;
};

/**
 * This tab's id, sent with every call: an edit lock is held by the tab that took it, so the same user's
 * other tab sees the lock held (and may take it over). Kept in sessionStorage: a reload stays the same tab.
 */
export const TAB_ID: string = (() => {
  const KEY = 'studio.tab';
  try {
    const known = sessionStorage.getItem(KEY);
    if (known) return known;
    const id = crypto.randomUUID();
    sessionStorage.setItem(KEY, id);
    return id;
  } catch {
    return crypto.randomUUID();
  }
})();

function withTab(init: RequestInit | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set(TAB_HEADER, TAB_ID);
  return { ...init, headers };
}

/**
 * Gives up this tab's edit lock on a record as the tab closes: a keepalive request outlives the page
 * (sendBeacon cannot carry the bearer token).
 */
export function releaseLockOnExit(type: 'map' | 'insight' | 'workbook', id: string): void {
  void fetch(client.url(`/v1/locks/${type}/${id}`), { method: 'DELETE', keepalive: true, headers: { authorization: `Bearer ${client.token}`, [TAB_HEADER]: TAB_ID } }).catch(() => undefined);
}

/**
 * The server answers unknown GET paths with the web app's index page (client-side routes), so an
 * API call the server does not offer yet comes back as HTML; it is turned into the 404 it means.
 */
function apiAnswer(url: string, response: Response): Response {
  const html = response.ok && (response.headers.get('content-type') ?? '').includes('text/html');
  if (!html || !new URL(url, 'http://x').pathname.startsWith('/v1/')) return response;
  const body = { appStatusCode: 404, message: 'This part of the studio is not available on this server yet' };
  return new Response(JSON.stringify(body), { status: 404, headers: { 'content-type': 'application/json' } });
}

/** The one client of the app; every call goes through it. */
export const client = new StudioClient({ token: readSession()?.accessToken, fetch: sessionFetch });
