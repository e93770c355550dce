import { randomUUID } from 'node:crypto';
import { buildEnvelope, eventSummary, parseEnvelope, StudioError, type ClientErrorReport, type ClientFeedback, type Envelope } from '@studio/schema';
import type { Caller } from '../http/caller';
import type { Db } from '../store/db';

/** What a kept report says, for the server log's line about it. */
export interface KeptReport {
  kind: 'error' | 'feedback';
  eventId: string | null;
  message: string;
  url: string | null;
}

/** Reports kept without a DSN are removed after this long. */
const KEEP_MS = 30 * 24 * 3600_000;
/** Events read from one envelope; the rest of a flood is dropped. */
const EVENTS_PER_ENVELOPE = 10;

/** Where a DSN's envelopes go: `{scheme}://{key}@{host}{path}/{project}` → `{scheme}://{host}{path}/api/{project}/envelope/`. */
export function envelopeUrlOf(dsn: string): string {
  const u = new URL(dsn);
  const parts = u.pathname.split('/').filter(Boolean);
  const project = parts.pop();
  if (!u.username || !project) throw new Error('A Sentry DSN names a public key and a project: https://<key>@<host>/<project>');
  const base = parts.length ? `/${parts.join('/')}` : '';
  return `${u.protocol}//${u.host}${base}/api/${project}/envelope/?sentry_key=${encodeURIComponent(u.username)}&sentry_version=7`;
}

/**
 * The web app's error reports (GTW-002/003). With STUDIO_SENTRY_DSN, envelopes go on to that Sentry-compatible
 * server under the configured DSN (the browser never needs it) with the caller's id as the event's user; without
 * one, each event is a line in the server log and a row for the administrators' "Client errors" page.
 */
export class ClientErrorService {
  constructor(
    private readonly db: Db,
    private readonly dsn: string | null,
  ) {}

  /** Relays an envelope of events; answers those kept here (none when forwarded), for the server log. */
  async relayEnvelope(caller: Caller, body: Uint8Array): Promise<KeptReport[]> {
    let envelope: Envelope;
    try {
      envelope = parseEnvelope(body);
    } catch (e) {
      throw new StudioError(422, `Invalid error report: ${(e as Error).message}`);
    }
    const events = envelope.items.filter((i) => i.header.type === 'event').slice(0, EVENTS_PER_ENVELOPE);
    if (this.dsn) {
      await this.forward({ header: { ...envelope.header, dsn: this.dsn }, items: events.map((i) => ({ header: i.header, payload: withUser(i.payload, caller) })) });
      return [];
    }
    const kept: KeptReport[] = [];
    for (const item of events) kept.push(await this.keep(caller, 'error', eventSummary(item.payload)));
    return kept;
  }

  /** Relays a user's feedback on an error (as Sentry's `user_report` item, or kept: then answered for the log). */
  async relayFeedback(caller: Caller, feedback: ClientFeedback): Promise<KeptReport | null> {
    const eventId = feedback.eventId ?? randomUUID().replaceAll('-', '');
    const name = feedback.name ?? caller.user.name ?? '';
    const email = feedback.email ?? caller.user.email;
    if (this.dsn) {
      const report = { event_id: eventId, name, email, comments: feedback.comments };
      await this.forward({ header: { event_id: eventId, dsn: this.dsn, sent_at: new Date().toISOString() }, items: [{ header: { type: 'user_report' }, payload: new TextEncoder().encode(JSON.stringify(report)) }] });
      return null;
    }
    return this.keep(caller, 'feedback', { eventId, message: feedback.comments, url: null, detail: name || email ? `From ${[name, email].filter(Boolean).join(' ')}` : null });
  }

  /** The latest kept reports, newest first. */
  async list(limit = 200): Promise<ClientErrorReport[]> {
    const rows = await this.db
      .selectFrom('client_errors')
      .leftJoin('users', 'users.id', 'client_errors.user_id')
      .select(['client_errors.id', 'client_errors.created_at', 'client_errors.kind', 'client_errors.event_id', 'client_errors.message', 'client_errors.url', 'client_errors.detail', 'users.email'])
      .orderBy('client_errors.created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, createdAt: new Date(r.created_at).toISOString(), kind: r.kind, eventId: r.event_id, message: r.message, url: r.url, detail: r.detail, userEmail: r.email }));
  }

  private async keep(caller: Caller, kind: 'error' | 'feedback', report: { eventId: string | null; message: string; url: string | null; detail: string | null }): Promise<KeptReport> {
    await this.db.insertInto('client_errors').values({ id: randomUUID(), user_id: caller.user.id, kind, event_id: report.eventId, message: report.message, url: report.url, detail: report.detail }).execute();
    await this.db.deleteFrom('client_errors').where('created_at', '<', new Date(Date.now() - KEEP_MS)).execute();
    return { kind, eventId: report.eventId, message: report.message, url: report.url };
  }

  private async forward(envelope: Envelope): Promise<void> {
    if (!envelope.items.length) return;
    let res: Response;
    try {
      res = await fetch(envelopeUrlOf(this.dsn!), { method: 'POST', headers: { 'content-type': 'application/x-sentry-envelope' }, body: Buffer.from(buildEnvelope(envelope)), signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      throw new StudioError(502, 'The error report could not reach the configured Sentry server', (e as Error).message);
    }
    if (!res.ok) throw new StudioError(502, `The configured Sentry server refused the error report (HTTP ${res.status})`);
  }
}

/** The event with the caller's id as its user (never more: the email stays in the studio). */
function withUser(payload: Uint8Array, caller: Caller): Uint8Array {
  try {
    const event = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    return new TextEncoder().encode(JSON.stringify({ ...event, user: { id: caller.user.id } }));
  } catch {
    return payload;
  }
}
