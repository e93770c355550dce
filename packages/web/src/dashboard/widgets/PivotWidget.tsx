import { useEffect, useRef, useState } from 'react';
import type { PivotLayout, WidgetResult } from '@studio/schema';
import { perspectiveClient } from './perspective';

/** The element <perspective-viewer> defines (typed here: only what this widget calls). */
interface ViewerElement extends HTMLElement {
  load(table: unknown): Promise<void>;
  restore(config: Record<string, unknown>): Promise<void>;
  delete(): Promise<void>;
}

/** Columns of the result as Perspective takes them: one array per column. */
function columnar(result: WidgetResult): Record<string, unknown[]> {
  return Object.fromEntries(result.columns.map((c, i) => [c.name, result.rows.map((r) => r[i] ?? null)]));
}

/**
 * A pivot table (Perspective's datagrid): `layout.rows` grouped down, `layout.columns` split across, the
 * measure summed in the cells. Lazy-loaded with its engine; the rows are the widget's server result.
 */
export default function PivotWidget({ result, layout, label }: { result: WidgetResult; layout: PivotLayout; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const key = JSON.stringify([result, layout]);
  useEffect(() => {
    let stale = false;
    let viewer: ViewerElement | null = null;
    let table: { delete(): Promise<void> } | null = null;
    (async () => {
      const worker = await perspectiveClient();
      // The element is defined once the viewer's wasm has loaded; before that it has none of its methods.
      await customElements.whenDefined('perspective-viewer');
      if (stale) return;
      viewer = document.createElement('perspective-viewer') as ViewerElement;
      viewer.setAttribute('aria-label', label);
      host.current?.replaceChildren(viewer);
      table = (await worker.table(columnar(result) as never)) as unknown as { delete(): Promise<void> };
      if (stale) return;
      await viewer.load(table);
      const names = result.columns.map((c) => c.name);
      const measure = layout.measure && names.includes(layout.measure) ? layout.measure : result.columns.find((c) => c.type === 'number' && !layout.rows.includes(c.name) && !layout.columns.includes(c.name))?.name;
      await viewer.restore({
        plugin: 'Datagrid',
        settings: false,
        group_by: layout.rows.filter((c) => names.includes(c)),
        split_by: layout.columns.filter((c) => names.includes(c)),
        columns: measure ? [measure] : names,
        ...(measure && { aggregates: { [measure]: 'sum' } }),
      });
      if (!stale) setReady(true);
    })().catch((e: unknown) => !stale && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      stale = true;
      setReady(false);
      const [v, t] = [viewer, table];
      void (async () => {
        await v?.delete();
        await t?.delete();
      })().catch(() => undefined);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the key stands for the result and layout
  }, [key]);
  return (
    <div className="widget-pivot" data-state={ready ? 'ready' : 'loading'}>
      {error && <div className="error" role="alert">{`The pivot table could not be drawn: ${error}`}</div>}
      <div ref={host} className="pivot-host" />
    </div>
  );
}
