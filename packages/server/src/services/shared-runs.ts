/**
 * Identical concurrent requests share one computation (the result caches answer every waiter from one
 * run). Its cancellation must then follow all of them, not the first to leave: a React remount aborts a
 * request and sends it again at once, and one reader closing a tab must not fail another's answer.
 */
/**
 * Waiters of one shared computation; its signal aborts when the last waiting client has gone and no
 * identical request came back within a short grace (a React remount aborts and re-sends at once).
 */
const ABORT_GRACE_MS = 500;
const runs = new Map<string, { waiters: number; controller: AbortController; timer?: NodeJS.Timeout }>();
export function joinRun(key: string) {
  let entry = runs.get(key);
  if (!entry) {
    entry = { waiters: 0, controller: new AbortController() };
    runs.set(key, entry);
  }
  clearTimeout(entry.timer);
  entry.waiters++;
  const e = entry;
  let left = false;
  const release = (abort: boolean) => {
    if (left) return;
    left = true;
    if (--e.waiters > 0) return;
    if (!abort) {
      if (runs.get(key) === e) runs.delete(key);
      return;
    }
    e.timer = setTimeout(() => {
      if (e.waiters > 0) return;
      if (runs.get(key) === e) runs.delete(key);
      e.controller.abort();
    }, ABORT_GRACE_MS);
  };
  return { signal: e.controller.signal, leave: () => release(true), done: () => release(false) };
}


/**
 * Runs `work` as the shared computation of `key`: its signal aborts only when every request waiting on
 * it has aborted (`signal`) and none came back within the grace.
 */
export async function sharedRun<T>(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const run = joinRun(key);
  signal?.addEventListener('abort', run.leave);
  if (signal?.aborted) run.leave();
  try {
    return await work(run.signal);
  } finally {
    signal?.removeEventListener('abort', run.leave);
    run.done();
  }
}
