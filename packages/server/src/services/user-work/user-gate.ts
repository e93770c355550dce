import { StudioError } from '@studio/schema';

export interface UserGateLimits {
  /** Requests of one user running at once. */
  running: number;
  /** Requests of one user waiting for a turn; past it, 429. */
  queued: number;
}

interface Line {
  running: number;
  waiting: (() => void)[];
}

/**
 * At most `running` requests of one user at once, the next `queued` waiting in order, the rest refused with
 * 429: one user's burst waits for itself instead of taking the worker processes from everyone else.
 */
export class UserGate {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly limits: UserGateLimits) {}

  /** Runs `work` when `userId` has a free turn; `signal` gives up the place in the queue. */
  async run<T>(userId: string | undefined, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!userId) return work();
    await this.enter(userId, signal);
    try {
      return await work();
    } finally {
      this.leave(userId);
    }
  }

  private async enter(userId: string, signal?: AbortSignal): Promise<void> {
    let line = this.lines.get(userId);
    if (!line) this.lines.set(userId, (line = { running: 0, waiting: [] }));
    if (line.running < this.limits.running) {
      line.running++;
      return;
    }
    if (line.waiting.length >= this.limits.queued) {
      throw new StudioError(429, `Too many queries of yours at once: ${this.limits.running} run and ${this.limits.queued} wait; try again when one has ended`);
    }
    const waiting = line;
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        const i = waiting.waiting.indexOf(turn);
        if (i >= 0) waiting.waiting.splice(i, 1);
        reject(new StudioError(499, 'The query was cancelled'));
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      waiting.waiting.push(turn);
    });
  }

  private leave(userId: string): void {
    const line = this.lines.get(userId)!;
    const next = line.waiting.shift();
    // The freed turn passes straight to the next in line: `running` stays as it is.
    if (next) return next();
    line.running--;
    if (line.running === 0) this.lines.delete(userId);
  }

  /** Requests of `userId` running and waiting now (for tests). */
  load(userId: string): { running: number; waiting: number } {
    const line = this.lines.get(userId);
    return { running: line?.running ?? 0, waiting: line?.waiting.length ?? 0 };
  }
}
