import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { bestEffort } from '@studio/schema';

/** Bytes a reader takes from the file at a time. */
const READ_CHUNK = 1 << 20;

/**
 * A file one producer appends to while any number of readers follow it from the start: the answer of a
 * pushed-down query streamed to every identical request in flight (a late one reads what is written so far,
 * then follows), without holding the result in memory. The producer ends it with `finish()`, or with
 * `fail(error)`, which every reader then throws once it has read what was written.
 */
export class GrowingFile {
  private written = 0;
  private ended = false;
  private error: unknown = null;
  private wake: (() => void)[] = [];
  /** Resolves true once the first bytes are written, false when it ends with none; rejects on a failure before any. */
  readonly started: Promise<boolean>;
  private start!: { resolve: (v: boolean) => void; reject: (e: unknown) => void };

  private constructor(
    readonly path: string,
    private readonly out: FileHandle,
  ) {
    this.started = new Promise((resolve, reject) => (this.start = { resolve, reject }));
    this.started.catch(() => undefined); // a producer may fail before anyone waits on it
  }

  static async create(file: string): Promise<GrowingFile> {
    return new GrowingFile(file, await fs.open(file, 'w'));
  }

  async append(bytes: Uint8Array): Promise<void> {
    if (!bytes.byteLength) return;
    await this.out.write(bytes, 0, bytes.byteLength, this.written);
    this.written += bytes.byteLength;
    this.start.resolve(true);
    this.notify();
  }

  async finish(): Promise<void> {
    await this.close();
    this.start.resolve(this.written > 0);
  }

  async fail(error: unknown): Promise<void> {
    this.error = error;
    await this.close();
    this.start.reject(error);
  }

  /** Everything written, from the first byte, as it is written; throws the producer's failure at its point. */
  async *read(): AsyncGenerator<Uint8Array> {
    const input = await fs.open(this.path, 'r');
    try {
      let at = 0;
      for (;;) {
        if (at < this.written) {
          const size = Math.min(READ_CHUNK, this.written - at);
          const buffer = Buffer.allocUnsafe(size);
          const { bytesRead } = await input.read(buffer, 0, size, at);
          at += bytesRead;
          yield bytesRead === size ? buffer : buffer.subarray(0, bytesRead);
          continue;
        }
        if (this.ended) {
          if (this.error) throw this.error;
          return;
        }
        await new Promise<void>((resolve) => this.wake.push(resolve));
      }
    } finally {
      await input.close();
    }
  }

  private async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await bestEffort(this.out.close(), 'Closing a file being written');
    this.notify();
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }
}
