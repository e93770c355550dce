import { bestEffort } from '@studio/schema';

/**
 * Runs `work` every `everyMs` in the background (a sweep of what stopped nodes left behind): its failures
 * are logged and wait for the next round, and the timer never keeps the process alive. Answers how to stop it.
 */
export function every(everyMs: number, work: () => Promise<unknown>, what: string): () => void {
  const timer = setInterval(() => void bestEffort(work, what), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
