import { createElement, lazy, Suspense, type ComponentType } from 'react';

/**
 * A screen whose code is downloaded when it is first opened: it, and what only it uses (ECharts, CodeMirror,
 * the dashboard grid, Perspective), stays out of the first download, which every visit pays for. `load`
 * answers the screen's component (screens are named exports).
 */
export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Screen = lazy(async () => ({ default: await load() }));
  function LazyScreen(props: P) {
    return (
      <Suspense
        fallback={
          <p className="muted loading screen-loading" role="status">
            Loading…
          </p>
        }
      >
        {createElement(Screen as unknown as ComponentType<P>, props)}
      </Suspense>
    );
  }
  return LazyScreen;
}
