import { Readable } from 'node:stream';
import type { Connection, Submittable } from 'pg';
import type { CopyToArrow } from './copy-arrow';

const COPY_DATA = 0x64; // d
const COPY_DONE = 0x63; // c
const ERROR_RESPONSE = 0x45; // E

/** The parts of pg's connection this reads: its socket, and the handler pg parses messages with. */
interface RawConnection {
  stream: NodeJS.ReadableStream & { read(): Buffer | null; listeners(e: 'data'): ((chunk: Buffer) => void)[] };
  query(text: string): void;
}

/**
 * `COPY … TO STDOUT` read off the session's socket into Arrow: each CopyData message's
 * payload goes to the decoder as a range of the received chunk, and the stream yields Arrow IPC batches.
 * pg-copy-streams (kept for CSV) copies every payload into a new buffer and concatenates a chunk's worth of
 * them: at one message per row, that was most of a 1M-row read. While the COPY runs the socket is taken
 * from pg's parser, as pg-copy-streams does; from CopyDone (or an ErrorResponse) on, the bytes go back to
 * it, so pg reads CommandComplete, ReadyForQuery or the error itself. Backpressure: the socket is read
 * only while the consumer wants more.
 */
export class CopyOutToArrow extends Readable implements Submittable {
  private connection: RawConnection | null = null;
  private pgHandler: ((chunk: Buffer) => void) | null = null;
  /** A message cut by the end of a received chunk, waiting for the rest. */
  private partial: Buffer | null = null;
  private wanted = false;
  private reading = false;
  private readonly onReadable = () => this.pump();

  constructor(
    private readonly text: string,
    private readonly decoder: CopyToArrow,
  ) {
    super({ highWaterMark: 4 });
  }

  submit(connection: Connection): void {
    const raw = connection as unknown as RawConnection;
    this.connection = raw;
    const listeners = raw.stream.listeners('data');
    if (listeners.length !== 1) throw new Error('Unexpected listeners on the PostgreSQL socket');
    this.pgHandler = listeners[0]!;
    raw.stream.removeListener('data', this.pgHandler);
    raw.stream.pause();
    raw.stream.on('readable', this.onReadable);
    raw.query(this.text);
  }

  override _read(): void {
    this.wanted = true;
    this.pump();
  }

  private pump(): void {
    const raw = this.connection;
    if (this.reading || !this.wanted || !raw || !this.pgHandler) return;
    this.reading = true;
    try {
      // The handler is dropped once the COPY is over: what follows is pg's to read.
      while (this.wanted && this.pgHandler !== null) {
        const chunk = raw.stream.read() as Buffer | null;
        if (chunk === null) break;
        this.readMessages(chunk);
      }
    } catch (e) {
      this.giveBack(Buffer.alloc(0));
      this.destroy(e as Error);
    } finally {
      this.reading = false;
    }
  }

  /** Reads the messages of one received chunk; hands pg the rest once the COPY is over. */
  private readMessages(received: Buffer): void {
    let buf = received;
    let pos = 0;
    if (this.partial) {
      // Complete the cut message with as few bytes as it needs (not a copy of the whole chunk).
      const have = this.partial.length;
      const need = have >= 5 ? this.partial.readUInt32BE(1) + 1 - have : 5 - have;
      if (need > received.length) {
        this.partial = Buffer.concat([this.partial, received]);
        return;
      }
      const joined = Buffer.concat([this.partial, received.subarray(0, need)]);
      this.partial = null;
      if (have < 5) {
        // Only the header was cut: read again from the joined header with the rest of the chunk.
        buf = Buffer.concat([joined, received.subarray(need)]);
      } else if (this.message(joined, 0)) {
        pos = need;
      } else {
        this.giveBack(joined[0] === ERROR_RESPONSE ? Buffer.concat([joined, received.subarray(need)]) : received.subarray(need));
        return;
      }
    }
    const end = buf.length;
    while (pos < end) {
      if (pos + 5 > end || pos + 1 + buf.readUInt32BE(pos + 1) > end) {
        this.partial = Buffer.from(buf.subarray(pos));
        break;
      }
      const size = buf.readUInt32BE(pos + 1);
      if (!this.message(buf, pos)) {
        if (buf[pos] === ERROR_RESPONSE) this.giveBack(buf.subarray(pos));
        else this.giveBack(buf.subarray(pos + 1 + size));
        return;
      }
      pos += 1 + size;
    }
    const batches = this.decoder.takeReady();
    for (const b of batches) if (!this.push(b)) this.wanted = false;
  }

  /** Handles the message at `pos`; false when the COPY is over (CopyDone, an error) and pg takes it from here. */
  private message(buf: Buffer, pos: number): boolean {
    const code = buf[pos];
    const size = buf.readUInt32BE(pos + 1);
    if (code === COPY_DATA) {
      this.decoder.write(buf, pos + 5, pos + 1 + size);
      return true;
    }
    if (code === COPY_DONE) {
      this.decoder.streamDone();
      for (const b of [...this.decoder.takeReady(), ...this.decoder.end()]) this.push(b);
      return false;
    }
    // CopyOutResponse, and what may come between rows (NoticeResponse, ParameterStatus, notifications), are
    // passed over; an ErrorResponse ends the COPY.
    return code !== ERROR_RESPONSE;
  }

  /** The socket goes back to pg's parser with the bytes it has yet to read. */
  private giveBack(rest: Buffer): void {
    const raw = this.connection;
    const handler = this.pgHandler;
    if (!raw || !handler) return;
    this.pgHandler = null;
    raw.stream.removeListener('readable', this.onReadable);
    raw.stream.on('data', handler);
    if (rest.length) handler(rest);
    process.nextTick(() => raw.stream.resume());
  }

  // pg's parser calls these once the socket is back.
  handleError(err: Error): void {
    this.destroy(err);
  }

  handleCommandComplete(): void {
    this.push(null);
  }

  handleReadyForQuery(): void {}
}
