/** Fixed row height of the preview table, in pixels: row positions are arithmetic, never measured. */
export const ROW_HEIGHT = 30;
/** Rows fetched per preview call (the server allows up to 10,000). */
export const PAGE_SIZE = 500;
/**
 * Browsers cap an element's height (Chrome near 33.5M px), so the scrollable body is at most this
 * tall; past it, one pixel of scrolling moves more than one pixel of rows.
 */
export const MAX_BODY_PX = 8_000_000;
/** Rows rendered above and below the visible ones, so a short scroll shows no blank. */
export const OVERSCAN = 8;

export interface PreviewWindow {
  /** Height of the scrollable body. */
  bodyHeight: number;
  /** First and last (exclusive) row to render. */
  first: number;
  last: number;
  /** Top of row `i` inside the body. */
  top: (i: number) => number;
}

/**
 * Which rows a scroll position shows. `scrollTop` is the body's scroll offset and `viewport` the
 * visible body height. When the rows would be taller than MAX_BODY_PX, the scroll range is mapped
 * linearly onto the row range and rows are placed around the scroll offset.
 */
export function previewWindow(scrollTop: number, viewport: number, total: number, rowHeight = ROW_HEIGHT, maxBody = MAX_BODY_PX, overscan = OVERSCAN): PreviewWindow {
  const full = total * rowHeight;
  const bodyHeight = Math.min(full, maxBody);
  const maxScroll = Math.max(0, bodyHeight - viewport);
  const s = Math.min(Math.max(0, scrollTop), maxScroll);
  // Where the viewport's top would be if the body were full height.
  const virtualTop = maxScroll > 0 && bodyHeight < full ? (s / maxScroll) * (full - viewport) : s;
  const first = Math.max(0, Math.floor(virtualTop / rowHeight) - overscan);
  const last = Math.min(total, Math.ceil((virtualTop + viewport) / rowHeight) + overscan);
  return { bodyHeight, first, last, top: (i) => s + i * rowHeight - virtualTop };
}

/** The page numbers holding rows first..last-1. */
export function pagesOf(first: number, last: number, pageSize = PAGE_SIZE): number[] {
  if (last <= first) return [];
  const out: number[] = [];
  for (let p = Math.floor(first / pageSize); p <= Math.floor((last - 1) / pageSize); p++) out.push(p);
  return out;
}
