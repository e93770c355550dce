/**
 * Output buffers handed out by a stream and given back by its consumer once nothing reads them any more
 * (the HTTP answer gives each back when the socket has taken it). Large buffers are what V8 counts as
 * external memory: one fresh 4 MB buffer per Arrow batch started a full collection every ~64 MB, 2-3 per
 * 1M-row answer, and the garbage stayed resident until then. With the pool an answer keeps a few buffers
 * in rotation. A buffer that is never given back is simply collected, so a consumer that does not recycle
 * (tests, CSV) is as safe as before.
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = [];

  /** `keep`: buffers held for reuse at most (the rest are left to the collector). */
  constructor(private readonly keep = 4) {}

  /** A view of exactly `size` bytes over a pooled buffer, or a new one (sized up to whole MBs for reuse). */
  take(size: number): Uint8Array {
    const i = this.free.findIndex((b) => b.byteLength >= size);
    const buffer = i >= 0 ? this.free.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(Math.ceil(size / MB) * MB).buffer;
    return new Uint8Array(buffer, 0, size);
  }

  /** Gives back a view from take(); the caller must not read or write it afterwards. */
  give(view: Uint8Array): void {
    if (this.free.length < this.keep && !this.free.includes(view.buffer as ArrayBuffer)) this.free.push(view.buffer as ArrayBuffer);
  }
}

const MB = 1 << 20;
