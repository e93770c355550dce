import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { BufferPool } from '@studio/engine';
import { StudioError } from '@studio/schema';
import { duckdbQueryError } from '@studio/pipeline';

/**
 * A signal that fires when the client goes away before the answer is complete. The request's own
 * 'close' event is no use here: Node emits it once the request body has been read, not when the
 * client leaves; the response's 'close' before 'finish' is the client leaving.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}

/** Engine errors as the caller should see them: content errors 422, an engine out of memory 503. */
export function engineError(e: unknown): unknown {
  const message = e instanceof Error ? e.message : String(e);
  if (/Out of Memory Error/i.test(message)) return new StudioError(503, 'The data engine is busy; try again in a moment', message.split('\n')[0]);
  return duckdbQueryError(e);
}

/** Pulls the first piece before answering, so a failing query is an error status, not a cut stream. */
export async function primed(stream: AsyncGenerator<Uint8Array>): Promise<AsyncGenerator<Uint8Array>> {
  let first: IteratorResult<Uint8Array>;
  try {
    first = await stream.next();
  } catch (e) {
    throw engineError(e);
  }
  return (async function* () {
    if (!first.done) yield first.value;
    yield* stream;
  })();
}

/**
 * A response body from an engine stream. Byte mode with an 8 MB high-water mark: the next batch is
 * computed while the previous one is written (Readable.from's byte default of 16 KB made the two take
 * turns), and memory stays bounded by a couple of batches whatever the result size.
 */
export const streamBody = (source: AsyncIterable<Uint8Array | string>) =>
  Readable.from(source, { objectMode: false, highWaterMark: 8 * 1024 * 1024 });

const HIGH_WATER = 8 * 1024 * 1024;

/**
 * Writes an engine stream as the whole answer, straight to the socket (the reply is hijacked), so each
 * piece's write completion is known: pieces from `pool` go back to it once the socket has taken them.
 * Up to HIGH_WATER bytes may wait in the socket while the next piece is computed (as streamBody's
 * high-water mark does). Headers already set on the reply are sent; prime the stream first (primed())
 * so a failing query is still an error status. A failure after the first byte cuts the answer off.
 */
export async function sendStream(reply: FastifyReply, source: AsyncIterable<Uint8Array>, pool?: BufferPool): Promise<void> {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, reply.getHeaders() as Record<string, string>);
  try {
    for await (const piece of source) {
      if (res.destroyed) break;
      res.write(piece, pool ? () => pool.give(piece) : undefined);
      if (res.writableLength > HIGH_WATER) await drained(res);
    }
    res.end();
  } catch {
    // The client left (the engine stopped on the clientGone signal) or the engine failed mid-answer.
    res.destroy();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
