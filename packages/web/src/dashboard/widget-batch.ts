import { StudioApiError } from '@studio/client';
import { WIDGET_BATCH_MAX, type CrossFilter, type WidgetBatchBody, type WidgetBatchLine, type WidgetResult } from '@studio/schema';

/** What one widget asks for: its id, page and sort, with the values and cross-filters the page shares. */
export interface WidgetAsk {
  widgetId: string;
  parameters: Record<string, string>;
  crossFilters: CrossFilter[];
  page: number;
  sort?: { by: string; desc: boolean };
}

/** Sends one batch; `onLine` gets each widget's line as the server finishes it. */
export type SendBatch = (body: WidgetBatchBody, onLine: (line: WidgetBatchLine) => void, signal: AbortSignal) => Promise<void>;

interface Waiter {
  resolve: (r: WidgetResult) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal;
  settled: boolean;
}

const aborted = () => new DOMException('The widget query was aborted', 'AbortError');

/**
 * Gathers the widget queries a page asks for in one turn of the event loop (every widget's effect runs
 * in the same commit) into one request per set of parameter values and cross-filters, and hands each
 * widget its own line of the answer as soon as it arrives. A widget that stops waiting (its signal)
 * is rejected at once; the request is cancelled when no widget waits for it any more.
 */
export function widgetBatcher(send: SendBatch): (ask: WidgetAsk, signal: AbortSignal) => Promise<WidgetResult> {
  let queue = new Map<string, { body: WidgetBatchBody; waiters: Waiter[][] }>();
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const groups = queue;
    queue = new Map();
    for (const { body, waiters } of groups.values()) void sendGroup(body, waiters);
  };

  const sendGroup = async (body: WidgetBatchBody, waiters: Waiter[][]) => {
    const controller = new AbortController();
    const all = waiters.flat();
    const leave = () => {
      if (all.every((w) => w.settled)) controller.abort();
    };
    for (const w of all) {
      if (w.signal.aborted) w.settled = true;
      else
        w.signal.addEventListener('abort', () => {
          if (w.settled) return;
          w.settled = true;
          w.reject(aborted());
          leave();
        }, { once: true });
    }
    if (all.every((w) => w.settled)) return;
    const settle = (index: number, line: WidgetBatchLine) => {
      for (const w of waiters[index] ?? []) {
        if (w.settled) continue;
        w.settled = true;
        if (line.item) w.resolve(line.item);
        else w.reject(new StudioApiError({ status: line.error?.status ?? 500, message: line.error?.message ?? 'The widget has no answer', url: `widget ${line.widgetId}` }));
      }
    };
    try {
      await send(body, (line) => settle(line.index, line), controller.signal);
      // An answer cut short (a proxy, a crash) leaves some widgets without a line: they say so.
      for (const [index, ws] of waiters.entries()) if (ws.some((w) => !w.settled)) settle(index, { index, widgetId: body.widgets[index]!.id, error: { status: 502, message: 'The server stopped answering before this widget' } });
    } catch (e) {
      for (const w of all) {
        if (w.settled) continue;
        w.settled = true;
        w.reject(e);
      }
    }
  };

  return (ask, signal) =>
    new Promise<WidgetResult>((resolve, reject) => {
      if (signal.aborted) return reject(aborted());
      const key = JSON.stringify([ask.parameters, ask.crossFilters]);
      let group = queue.get(key);
      if (group && group.body.widgets.length >= WIDGET_BATCH_MAX) {
        queue.delete(key);
        void sendGroup(group.body, group.waiters);
        group = undefined;
      }
      if (!group) queue.set(key, (group = { body: { parameters: ask.parameters, crossFilters: ask.crossFilters, widgets: [] }, waiters: [] }));
      // The same widget asked twice in one turn (a remount) waits on one line.
      let index = group.body.widgets.findIndex((w) => w.id === ask.widgetId && w.page === ask.page && JSON.stringify(w.sort) === JSON.stringify(ask.sort));
      if (index < 0) {
        index = group.body.widgets.push({ id: ask.widgetId, page: ask.page, ...(ask.sort && { sort: ask.sort }) }) - 1;
        group.waiters.push([]);
      }
      group.waiters[index]!.push({ resolve, reject, signal, settled: false });
      if (!scheduled) {
        scheduled = true;
        setTimeout(flush, 0);
      }
    });
}
