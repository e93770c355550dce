import { buildEnvelope } from '@studio/schema';
import { client, readSession } from './api';

/**
 * The web app's error reports, as Sentry events in an envelope sent to the studio's relay (GTW-002): the
 * server forwards them to its Sentry DSN or keeps them for the administrators' "Client errors" page. Written
 * here rather than with @sentry/browser: the SDK wants the DSN in the page, and the relay needs only the
 * event — its message, stack and address.
 */

/** Reports sent from one page load at most: a render loop must not send thousands. */
const MAX_REPORTS = 10;
let sent = 0;
const seen = new Set<string>();

/** A Sentry event id: 32 lowercase hex digits. */
export const newEventId = () => crypto.randomUUID().replaceAll('-', '');

interface Frame {
  function?: string;
  filename?: string;
  lineno?: number;
  colno?: number;
}

/** Frames of a V8 or Firefox stack, outermost first as Sentry lists them. */
export function framesOf(stack: string | undefined): Frame[] {
  const frames: Frame[] = [];
  for (const line of (stack ?? '').split('\n')) {
    // V8: "    at fn (url:line:col)" or "    at url:line:col"; Firefox: "fn@url:line:col".
    const m = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line) ?? /^(.*)@(.+?):(\d+):(\d+)$/.exec(line);
    if (m) frames.push({ function: m[1] || undefined, filename: m[2], lineno: Number(m[3]), colno: Number(m[4]) });
  }
  return frames.reverse();
}

/** The envelope of one error as an event: its type, message and stack, the page and the browser. */
export function errorEnvelope(error: unknown, eventId: string, where: { url: string; userAgent: string }): Uint8Array {
  const e = error instanceof Error ? error : new Error(typeof error === 'string' ? error : 'A value that is not an Error was thrown');
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    level: 'error',
    exception: { values: [{ type: e.name, value: e.message, stacktrace: { frames: framesOf(e.stack) } }] },
    request: { url: where.url, headers: { 'User-Agent': where.userAgent } },
  };
  return buildEnvelope({ header: { event_id: eventId, sent_at: new Date().toISOString() }, items: [{ header: { type: 'event' }, payload: new TextEncoder().encode(JSON.stringify(event)) }] });
}

/**
 * Sends one error's report when someone is signed in (the relay takes reports from users only); answers its
 * event id, or null when it was not sent (nobody signed in, a repeat, past the page's limit, or the relay
 * refused: an error report never raises an error of its own).
 */
export async function reportError(error: unknown): Promise<string | null> {
  const key = error instanceof Error ? `${error.name}:${error.message}` : String(error);
  if (!readSession() || seen.has(key) || sent >= MAX_REPORTS) return null;
  seen.add(key);
  sent++;
  const eventId = newEventId();
  try {
    await client.errorReports.send(errorEnvelope(error, eventId, { url: window.location.href, userAgent: navigator.userAgent }));
    return eventId;
  } catch {
    return null;
  }
}

/** Reports errors nothing caught: thrown in handlers, or rejected promises nobody awaited. */
export function installErrorReports(): void {
  window.addEventListener('error', (e) => void reportError(e.error ?? e.message));
  window.addEventListener('unhandledrejection', (e) => void reportError(e.reason));
}
