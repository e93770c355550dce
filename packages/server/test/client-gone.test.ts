import http from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientGone } from '../src/http/streams';

/**
 * The signal every streamed answer (queries, dataset data, analytic sets) hands to the engine: it must
 * fire when the client leaves mid-answer, and not when the answer completes or the request body ends.
 */
/** A promise with its resolve, for waiting on events instead of sleeping. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('clientGone', () => {
  const app = Fastify();
  let port = 0;
  /** Per request: the handler has started, the handler may answer, the signal fired, the reply closed. */
  const events = new Map<string, { started: ReturnType<typeof deferred<void>>; answer: ReturnType<typeof deferred<void>>; aborted: ReturnType<typeof deferred<boolean>>; closed: ReturnType<typeof deferred<boolean>> }>();
  const eventsOf = (name: string) => {
    if (!events.has(name)) events.set(name, { started: deferred<void>(), answer: deferred<void>(), aborted: deferred<boolean>(), closed: deferred<boolean>() });
    return events.get(name)!;
  };

  beforeAll(async () => {
    app.post('/slow/:name', async (req, reply) => {
      const e = eventsOf((req.params as { name: string }).name);
      const signal = clientGone(reply);
      signal.addEventListener('abort', () => e.aborted.resolve(true));
      // Once the reply is closed, the signal has fired or never will.
      reply.raw.on('close', () => setImmediate(() => e.closed.resolve(signal.aborted)));
      e.started.resolve();
      // A long query: it answers when the test says so (the body was fully read before the handler ran).
      await e.answer.promise;
      return { done: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  const post = (name: string) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/slow/${name}`, headers: { 'content-type': 'application/json' } });
    const ended = new Promise<void>((resolve) => {
      req.on('response', (res) => (res.resume(), res.on('end', resolve)));
      req.on('error', () => resolve());
    });
    req.end(JSON.stringify({ a: 1 }));
    return { req, ended };
  };

  it('fires when the client disconnects before the answer', async () => {
    const e = eventsOf('cut');
    const { req } = post('cut');
    await e.started.promise;
    req.destroy();
    expect(await e.aborted.promise).toBe(true);
    e.answer.resolve();
  });

  it('does not fire when the answer completes', async () => {
    const e = eventsOf('whole');
    const { ended } = post('whole');
    await e.started.promise;
    e.answer.resolve();
    await ended;
    expect(await e.closed.promise).toBe(false);
  });
});
