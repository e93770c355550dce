import { act, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Renders into a fresh container; `unmount` cleans up. */
export async function render(ui: ReactElement): Promise<{ container: HTMLElement; unmount: () => Promise<void> }> {
  const container = document.createElement('div');
  document.body.append(container);
  let root: Root;
  await act(async () => {
    root = createRoot(container);
    root.render(ui);
  });
  return {
    container,
    unmount: async () => {
      await act(async () => root.unmount());
      container.remove();
    },
  };
}

/** Polls `check` (inside act, so effects settle) until it returns a value or the time is up. */
export async function waitFor<T>(check: () => T | null | undefined | false, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | null | undefined | false = null;
    await act(async () => {
      await new Promise((r) => setTimeout(r, 10));
      value = check();
    });
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waitFor timed out; DOM: ${document.body.innerHTML.slice(0, 2000)}`);
  }
}

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
