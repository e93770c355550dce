import type { Server } from 'node:http';

/**
 * How the studio process stops on SIGTERM (a service manager, `kill`, a CI runner) or SIGINT (Ctrl-C), within the
 * 10 s that systemd's and Docker's defaults leave before they kill: the port closes at once (a proxy sends new
 * requests to another node; one arriving on a connection already open answers 503), requests in flight have
 * REQUEST_GRACE_MS to finish and are then cut, running jobs are handed back to the queue with what is left of
 * JOBS_BY_MS, then the worker processes, the engine and the catalog close and the process exits 0.
 *
 * A terminal's Ctrl-C reaches every process of its group, and `npm start`'s wrappers pass it on as well, so the
 * server sees one keypress two or three times within milliseconds: signals within SAME_SIGNAL_MS of the first are that
 * same one. A signal later than that is someone who does not want to wait: the process exits at once (128 + the
 * signal's number, as a shell reports a process a signal ended).
 */
export const REQUEST_GRACE_MS = 8_000;
export const JOBS_BY_MS = 9_000;
export const SAME_SIGNAL_MS = 2_000;
/** Past this, something in the closing hangs: the process exits rather than outlive a service manager's patience. */
export const GIVE_UP_MS = 9_500;

const SIGNAL_NUMBERS: Record<string, number> = { SIGINT: 2, SIGTERM: 15 };

export interface StoppableStudio {
  server: Server;
  /** Closes everything; jobs still running at `jobsBy` (epoch ms) are handed back to the queue. */
  close(opts: { jobsBy: number }): Promise<void>;
}

export interface StopOptions {
  log: (line: string) => void;
  exit: (code: number) => void;
  now?: () => number;
}

/** Installs the SIGTERM and SIGINT handlers. */
export function stopOnSignals(studio: StoppableStudio, { log, exit, now = Date.now }: StopOptions): void {
  let firstAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstAt !== null) {
      if (now() - firstAt < SAME_SIGNAL_MS) return;
      log(`${signal} again: stopping at once (requests still in flight are cut)`);
      exit(128 + (SIGNAL_NUMBERS[signal] ?? 1));
      return;
    }
    firstAt = now();
    log(`${signal}: stopping (requests in flight have ${REQUEST_GRACE_MS / 1000} s; send it again to stop at once)`);
    // Timers left referenced: they are what ends a stop that would otherwise wait on a request that never ends.
    const cut = setTimeout(() => studio.server.closeAllConnections(), REQUEST_GRACE_MS);
    const giveUp = setTimeout(() => {
      log(`Still stopping after ${GIVE_UP_MS / 1000} s: exiting without waiting further`);
      exit(1);
    }, GIVE_UP_MS);
    studio.close({ jobsBy: firstAt + JOBS_BY_MS }).then(
      () => {
        clearTimeout(cut);
        clearTimeout(giveUp);
        log('Stopped');
        exit(0);
      },
      (e: unknown) => {
        clearTimeout(cut);
        clearTimeout(giveUp);
        log(`Stopping failed: ${(e as Error)?.stack ?? String(e)}`);
        exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
