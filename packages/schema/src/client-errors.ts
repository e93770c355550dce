import { z } from 'zod';

/**
 * Error reports from the web app, carried as Sentry envelopes (the relays GTW-002/003): the web app builds
 * them, the server forwards them to a configured Sentry-compatible DSN or, without one, keeps them for the
 * administrators' "Client errors" page. Envelope format: https://develop.sentry.dev/sdk/envelopes/ — a
 * header line of JSON, then items, each a header line of JSON and a payload (`length` bytes, or one line).
 */

/** Largest envelope the relay takes (Sentry's own limit is far above what an error report needs). */
export const CLIENT_REPORT_MAX_BYTES = 256 * 1024;

export interface EnvelopeItem {
  header: Record<string, unknown> & { type: string };
  payload: Uint8Array;
}
export interface Envelope {
  header: Record<string, unknown>;
  items: EnvelopeItem[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The envelope's bytes: each item's payload with its length, so a payload may hold newlines. */
export function buildEnvelope(envelope: Envelope): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode(`${JSON.stringify(envelope.header)}\n`)];
  for (const item of envelope.items) {
    parts.push(encoder.encode(`${JSON.stringify({ ...item.header, length: item.payload.length })}\n`), item.payload, encoder.encode('\n'));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads an envelope; throws an Error saying what is wrong with it. */
export function parseEnvelope(bytes: Uint8Array): Envelope {
  let at = 0;
  const line = (): string | null => {
    if (at >= bytes.length) return null;
    let end = bytes.indexOf(10, at);
    if (end < 0) end = bytes.length;
    const text = decoder.decode(bytes.subarray(at, end));
    at = end + 1;
    return text;
  };
  const json = (text: string, what: string): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`The ${what} is not JSON`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`The ${what} is not a JSON object`);
    return value as Record<string, unknown>;
  };
  const first = line();
  if (first === null || !first.trim()) throw new Error('The envelope is empty');
  const header = json(first, 'envelope header');
  const items: EnvelopeItem[] = [];
  for (let text = line(); text !== null; text = line()) {
    if (!text.trim()) continue;
    const itemHeader = json(text, 'item header');
    if (typeof itemHeader.type !== 'string') throw new Error('An item header has no type');
    let payload: Uint8Array;
    if (typeof itemHeader.length === 'number') {
      if (!Number.isInteger(itemHeader.length) || itemHeader.length < 0 || at + itemHeader.length > bytes.length) throw new Error('An item is shorter than its length');
      payload = bytes.subarray(at, at + itemHeader.length);
      at += itemHeader.length + 1;
    } else {
      payload = encoder.encode(line() ?? '');
    }
    items.push({ header: itemHeader as EnvelopeItem['header'], payload });
  }
  return { header, items };
}

/** The parts of a Sentry event the studio keeps: what went wrong, where, and the stack. */
export function eventSummary(payload: Uint8Array): { eventId: string | null; message: string; url: string | null; detail: string | null } {
  let event: Record<string, unknown> = {};
  try {
    event = JSON.parse(decoder.decode(payload)) as Record<string, unknown>;
  } catch {
    // A payload that is not JSON is still a report: its text is the message.
    return { eventId: null, message: decoder.decode(payload).slice(0, 1000) || 'An error without a message', url: null, detail: null };
  }
  const exception = ((event.exception as { values?: { type?: string; value?: string; stacktrace?: { frames?: { filename?: string; function?: string; lineno?: number; colno?: number }[] } }[] } | undefined)?.values ?? [])[0];
  const message = exception ? [exception.type, exception.value].filter(Boolean).join(': ') : typeof event.message === 'string' ? event.message : ((event.message as { formatted?: string } | undefined)?.formatted ?? 'An error without a message');
  const frames = exception?.stacktrace?.frames ?? [];
  // Sentry lists frames outermost first; the page shows the innermost first, as a browser's stack does.
  const detail = frames.length ? [...frames].reverse().map((f) => `at ${f.function ?? '?'} (${f.filename ?? '?'}:${f.lineno ?? '?'}:${f.colno ?? '?'})`).join('\n') : null;
  const url = (event.request as { url?: unknown } | undefined)?.url;
  return {
    eventId: typeof event.event_id === 'string' ? event.event_id : null,
    message: message.slice(0, 1000),
    url: typeof url === 'string' ? url.slice(0, 2000) : null,
    detail: detail?.slice(0, 8000) ?? null,
  };
}

/** A user's words about what they were doing when an error showed (GTW-003). */
export const ClientFeedback = z.object({
  /** The event the words are about (32 hex digits, as Sentry names events). */
  eventId: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex digits').optional(),
  name: z.string().max(200).optional(),
  email: z.email().max(320).optional(),
  comments: z.string().trim().min(1, 'must not be empty').max(5000),
});
export type ClientFeedback = z.infer<typeof ClientFeedback>;

/** One report kept for the administrators when no DSN is configured. */
export const ClientErrorReport = z.object({
  id: z.string(),
  createdAt: z.string(),
  kind: z.enum(['error', 'feedback']),
  eventId: z.string().nullable(),
  message: z.string(),
  url: z.string().nullable(),
  detail: z.string().nullable(),
  userEmail: z.string().nullable(),
});
export type ClientErrorReport = z.infer<typeof ClientErrorReport>;
