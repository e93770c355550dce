import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildEnvelope, parseEnvelope } from '@studio/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeUrlOf } from '../src/services/client-errors';
import { STORES, useStudio } from './harness';

/** An error report as the web app sends it: one event with an exception and the page's address. */
function report(message: string) {
  const event = {
    event_id: 'a'.repeat(32),
    platform: 'javascript',
    exception: { values: [{ type: 'TypeError', value: message, stacktrace: { frames: [{ function: 'outer', filename: '/assets/index.js', lineno: 1, colno: 10 }, { function: 'inner', filename: '/assets/map.js', lineno: 7, colno: 3 }] } }] },
    request: { url: 'http://127.0.0.1/workspace/maps' },
  };
  return Buffer.from(buildEnvelope({ header: { event_id: event.event_id, sent_at: new Date().toISOString() }, items: [{ header: { type: 'event' }, payload: new TextEncoder().encode(JSON.stringify(event)) }] }));
}

/** A Sentry-compatible server on a loopback port that records the envelopes it is sent. */
function useSentryServer() {
  const received: { url: string; body: Buffer }[] = [];
  const ctx = { server: null as http.Server | null, dsn: '', status: 200 };
  beforeAll(async () => {
    ctx.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ url: req.url!, body: Buffer.concat(chunks) });
        res.writeHead(ctx.status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => ctx.server!.listen(0, '127.0.0.1', r));
    ctx.dsn = `http://publickey@127.0.0.1:${(ctx.server.address() as AddressInfo).port}/42`;
  });
  afterAll(() => new Promise<void>((r) => (ctx.server ? ctx.server.close(() => r()) : r())));
  return { ctx, received };
}

describe('the Sentry DSN', () => {
  it.each([
    ['https://key@o1.ingest.sentry.io/4501', 'https://o1.ingest.sentry.io/api/4501/envelope/?sentry_key=key&sentry_version=7'],
    ['http://key@127.0.0.1:9000/sentry/7', 'http://127.0.0.1:9000/sentry/api/7/envelope/?sentry_key=key&sentry_version=7'],
  ])('sends %s envelopes to %s', (dsn, url) => {
    expect(envelopeUrlOf(dsn)).toBe(url);
  });
});

describe.each(STORES)('error reports from the web app on %s', (kind) => {
  describe('without a DSN: kept for the administrators', () => {
    const { as } = useStudio(kind);

    it('keeps an event with its message, address and stack, for administrators only', async () => {
      const res = await as('viewer', 'POST', '/v1/sentry-tunnel', report('map is undefined'), { 'content-type': 'text/plain;charset=UTF-8' });
      expect(res.statusCode, res.body).toBe(200);
      const feedback = await as('viewer', 'POST', '/v1/sentry-user-feedback', { eventId: 'a'.repeat(32), comments: 'I clicked Add layer' });
      expect(feedback.statusCode, feedback.body).toBe(200);
      const page = await as('admin', 'GET', '/v1/admin/client-errors');
      expect(page.json().items).toMatchObject([
        { kind: 'feedback', eventId: 'a'.repeat(32), message: 'I clicked Add layer', userEmail: 'viewer@globex.test' },
        { kind: 'error', eventId: 'a'.repeat(32), message: 'TypeError: map is undefined', url: 'http://127.0.0.1/workspace/maps', detail: 'at inner (/assets/map.js:7:3)\nat outer (/assets/index.js:1:10)', userEmail: 'viewer@globex.test' },
      ]);
      expect((await as('owner', 'GET', '/v1/admin/client-errors')).statusCode).toBe(403);
    });

    it.each([
      ['an empty body', Buffer.alloc(0), 422, 'Invalid error report: The envelope is empty'],
      ['a header that is not JSON', Buffer.from('not json\n'), 422, 'Invalid error report: The envelope header is not JSON'],
      ['an item longer than the body', Buffer.from('{}\n{"type":"event","length":99}\n{}\n'), 422, 'Invalid error report: An item is shorter than its length'],
      ['a body past 256 KB', Buffer.alloc(300 * 1024, 'x'), 413, 'Request body is too large'],
    ])('refuses %s, keeping nothing', async (_label, body, status, message) => {
      const before = (await as('admin', 'GET', '/v1/admin/client-errors')).json().items.length;
      const res = await as('owner', 'POST', '/v1/sentry-tunnel', body, { 'content-type': 'application/x-sentry-envelope' });
      expect([res.statusCode, res.json().message]).toEqual([status, message]);
      expect((await as('admin', 'GET', '/v1/admin/client-errors')).json().items.length).toBe(before);
    });

    it('refuses feedback without words, and reports from nobody', async () => {
      const res = await as('owner', 'POST', '/v1/sentry-user-feedback', { comments: '  ' });
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toMatch(/comments/);
      const anonymous = await as('owner', 'POST', '/v1/sentry-tunnel', report('x'), { authorization: '' });
      expect(anonymous.statusCode).toBe(401);
    });
  });

  describe('with STUDIO_SENTRY_DSN: forwarded under the configured DSN', () => {
    const sentry = useSentryServer();
    const { as, ctx } = useStudio(kind, { get sentryDsn() { return sentry.ctx.dsn; } } as never);

    it("forwards the event with the caller's id (not their email) and the feedback as a user report, keeping nothing", async () => {
      expect((await as('owner', 'POST', '/v1/sentry-tunnel', report('tiles failed'))).statusCode).toBe(200);
      expect((await as('owner', 'POST', '/v1/sentry-user-feedback', { eventId: 'b'.repeat(32), comments: 'Tiles went blank' })).statusCode).toBe(200);
      expect(sentry.received.map((r) => r.url)).toEqual(Array(2).fill('/api/42/envelope/?sentry_key=publickey&sentry_version=7'));
      const event = parseEnvelope(sentry.received[0]!.body);
      expect(event.header.dsn).toBe(sentry.ctx.dsn);
      const payload = JSON.parse(new TextDecoder().decode(event.items[0]!.payload));
      expect(payload).toMatchObject({ exception: { values: [{ value: 'tiles failed' }] }, user: { id: ctx.cast.users.owner.id } });
      expect(JSON.stringify(payload)).not.toContain('owner@acme.test');
      const feedback = parseEnvelope(sentry.received[1]!.body);
      expect(feedback.items.map((i) => i.header.type)).toEqual(['user_report']);
      expect(JSON.parse(new TextDecoder().decode(feedback.items[0]!.payload))).toMatchObject({ event_id: 'b'.repeat(32), comments: 'Tiles went blank', email: 'owner@acme.test' });
      expect((await as('admin', 'GET', '/v1/admin/client-errors')).json().items).toEqual([]);
    });

    it('says so when the Sentry server refuses', async () => {
      sentry.ctx.status = 503;
      try {
        const res = await as('owner', 'POST', '/v1/sentry-tunnel', report('x'));
        expect([res.statusCode, res.json().message]).toEqual([502, 'The configured Sentry server refused the error report (HTTP 503)']);
      } finally {
        sentry.ctx.status = 200;
      }
    });
  });
});
