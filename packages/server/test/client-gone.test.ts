import http from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientGone } from '../src/http/streams';

/**
 * The signal every streamed answer (queries, dataset data, analytic sets) hands to the engine: it must
 * fire when the client leaves mid-answer, and not when the answer completes or the request body ends.
 */
describe('clientGone', () => {
  const app = Fastify();
  const seen: Record<string, boolean> = {};
  let port = 0;

  beforeAll(async () => {
    app.post('/slow/:name', async (req, reply) => {
      const name = (req.params as { name: string }).name;
      const signal = clientGone(reply);
      seen[name] = false;
      signal.addEventListener('abort', () => (seen[name] = true));
      // Answer after 400 ms, as a long query would; the body was fully read before the handler ran.
      await new Promise((r) => setTimeout(r, 400));
      return { done: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  const post = (name: string, cutAfterMs?: number) =>
    new Promise<void>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/slow/${name}`, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ a: 1 }));
      if (cutAfterMs !== undefined) setTimeout(() => (req.destroy(), setTimeout(resolve, 600)), cutAfterMs);
    });

  it('fires when the client disconnects before the answer', async () => {
    await post('cut', 100);
    expect(seen.cut).toBe(true);
  });

  it('does not fire when the answer completes', async () => {
    await post('whole');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.whole).toBe(false);
  });
});
