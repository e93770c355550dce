import type { Store } from 'redux';

/**
 * Runs `run` once `ready` holds for the store's state: now, or at the first change after which it does. kepler 3.2
 * applies a saved config with the data it came with in tasks that end after addDataToMap returns, so what the studio
 * keeps beside that config (a filter's end field, a legend's labels) waits for kepler's filters and layers.
 */
export function once(store: Store, ready: () => boolean, run: () => void): void {
  if (ready()) return run();
  let done = false;
  const stop = store.subscribe(() => {
    if (done || !ready()) return;
    done = true;
    stop();
    run();
  });
}
