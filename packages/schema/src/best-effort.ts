/**
 * Work whose failure must not fail what it belongs to — removing a file nobody reads any more, cancelling a
 * query whose caller has left, a heartbeat, a sweep — is run through `bestEffort`: its failure is not thrown,
 * and not lost either: it is reported with what was being done. The server sends the reports to its log
 * (`reportFailuresTo`); elsewhere they go to the console.
 */
export type FailureReport = (what: string, error: unknown) => void;

let report: FailureReport = (what, error) => console.warn(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);

/** Where failures of best-effort work are reported from now on (the server's logger). */
export function reportFailuresTo(sink: FailureReport): void {
  report = sink;
}

/** Reports a failure that is handled without being thrown (a fallback value takes its place). */
export function reportFailure(what: string, error: unknown): void {
  report(what, error);
}

/** Runs `work` (a promise, or a function making one); a failure is reported as "`what` failed", never thrown. */
export function bestEffort(work: Promise<unknown> | (() => Promise<unknown>), what: string): Promise<void> {
  const running = typeof work === 'function' ? Promise.resolve().then(work) : work;
  return running.then(
    () => undefined,
    (error: unknown) => reportFailure(what, error),
  );
}
