/**
 * Runs `work` every `everyMs` in the background (a sweep of what stopped nodes left behind): its failures
 * wait for the next round, and the timer never keeps the process alive. Answers how to stop it.
 */
export function every(everyMs: number, work: () => Promise<unknown>): () => void {
  const timer = setInterval(() => void work().catch(() => undefined), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
