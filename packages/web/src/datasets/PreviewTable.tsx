import { useCallback, useEffect, useRef, useState } from 'react';
import { client } from '../app/api';
import { errorMessage } from '../app/useLoad';
import { ErrorMessage } from '../app/ui';
import { formatCell, formatCount } from './format';
import { PAGE_SIZE, ROW_HEIGHT, pagesOf, previewWindow } from './previewWindow';

type Row = Record<string, unknown>;

/** Pages kept in memory; the ones farthest from the view are dropped first. */
const MAX_PAGES = 40;
/** Pages are fetched once scrolling pauses this long, not for every row flown past. */
const FETCH_DELAY_MS = 60;
const NUMBER_WIDTH = 80;
const COLUMN_WIDTH = 168;
const HEIGHT = 420;
const HEADER_HEIGHT = 34;

/**
 * The rows of a dataset, virtualized: only the visible rows are in the DOM, and pages of
 * PAGE_SIZE rows are fetched from the preview API as they come into view. Works the same for ten
 * rows and for millions.
 */
export function PreviewTable({ datasetId, columns, total: initialTotal }: { datasetId: string; columns: string[]; total: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [total, setTotal] = useState(initialTotal);
  const [error, setError] = useState<string | null>(null);
  const [, setVersion] = useState(0);
  const pages = useRef(new Map<number, Row[]>());
  const inFlight = useRef(new Set<number>());
  const viewport = Math.min(HEIGHT, HEADER_HEIGHT + total * ROW_HEIGHT + 16) - HEADER_HEIGHT;
  const win = previewWindow(scrollTop, viewport, total);

  useEffect(() => {
    pages.current.clear();
    inFlight.current.clear();
    setTotal(initialTotal);
    setScrollTop(0);
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [datasetId, initialTotal]);

  const fetchPage = useCallback(
    async (page: number) => {
      inFlight.current.add(page);
      try {
        const answer = await client.datasets.preview(datasetId, page * PAGE_SIZE, PAGE_SIZE);
        pages.current.set(page, answer.items);
        // Keep memory bounded: drop the pages farthest from this one.
        if (pages.current.size > MAX_PAGES) {
          const far = [...pages.current.keys()].sort((a, b) => Math.abs(b - page) - Math.abs(a - page));
          for (const p of far.slice(0, pages.current.size - MAX_PAGES)) pages.current.delete(p);
        }
        if (typeof answer.total === 'number') setTotal(answer.total);
        setError(null);
      } catch (e) {
        setError(errorMessage(e));
      } finally {
        inFlight.current.delete(page);
        setVersion((v) => v + 1);
      }
    },
    [datasetId],
  );

  const needed = pagesOf(win.first, win.last).filter((p) => !pages.current.has(p) && !inFlight.current.has(p));
  const neededKey = needed.join(',');
  useEffect(() => {
    if (!neededKey || error) return;
    const t = setTimeout(() => neededKey.split(',').forEach((p) => void fetchPage(Number(p))), FETCH_DELAY_MS);
    return () => clearTimeout(t);
  }, [neededKey, fetchPage, error]);

  const width = NUMBER_WIDTH + columns.length * COLUMN_WIDTH;
  const rows: JSX.Element[] = [];
  for (let i = win.first; i < win.last; i++) {
    const row = pages.current.get(Math.floor(i / PAGE_SIZE))?.[i % PAGE_SIZE];
    rows.push(
      <div key={i} role="row" aria-rowindex={i + 2} className={`preview-row${row ? '' : ' loading'}`} style={{ top: win.top(i), height: ROW_HEIGHT, width }}>
        <div role="rowheader" className="preview-cell preview-number" style={{ width: NUMBER_WIDTH }}>
          {i + 1}
        </div>
        {columns.map((c) => {
          const text = row ? formatCell(row[c]) : '';
          return (
            <div key={c} role="cell" className={`preview-cell${row && (row[c] === null || row[c] === undefined) ? ' null' : ''}`} style={{ width: COLUMN_WIDTH }} title={text.length > 20 ? text : undefined}>
              {row ? text : <span className="placeholder" aria-hidden="true" />}
            </div>
          );
        })}
      </div>,
    );
  }

  return (
    <div className="preview">
      <ErrorMessage message={error} onRetry={() => setError(null)} />
      <div
        ref={scroller}
        className="preview-scroll"
        role="table"
        aria-label="Data preview"
        aria-rowcount={total + 1}
        aria-colcount={columns.length + 1}
        tabIndex={0}
        // Short datasets get a short table; long ones scroll inside HEIGHT. 16px leaves room for a horizontal scrollbar.
        style={{ height: Math.min(HEIGHT, HEADER_HEIGHT + total * ROW_HEIGHT + 16) }}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      >
        <div role="rowgroup" className="preview-head" style={{ height: HEADER_HEIGHT, width }}>
          <div role="row" aria-rowindex={1} className="preview-row header" style={{ height: HEADER_HEIGHT, width }}>
            <div role="columnheader" className="preview-cell preview-number" style={{ width: NUMBER_WIDTH }}>
              #
            </div>
            {columns.map((c) => (
              <div key={c} role="columnheader" className="preview-cell" style={{ width: COLUMN_WIDTH }} title={c}>
                {c}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" className="preview-body" style={{ height: win.bodyHeight, width }}>
          {rows}
        </div>
      </div>
      <p className="muted small">
        {formatCount(total)} rows
        {total * ROW_HEIGHT > viewport && ` · showing rows ${formatCount(Math.min(total, win.first + 1))}–${formatCount(win.last)}; scroll to see more`}
      </p>
    </div>
  );
}
