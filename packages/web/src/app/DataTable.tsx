import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';

export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  className?: string;
}

/** Past this many rows only those near the window are drawn (a thousand rows of actions cost seconds to render). */
export const VIRTUAL_FROM = 300;
/** A row's height before it is measured: one line of text and small buttons. */
const ESTIMATED_ROW_PX = 49;
/** Rows drawn beyond each edge of the window, so a fast scroll shows no blank band. */
const OVERSCAN = 12;
/** `onEndReached` is called when the last drawn row is this close to the end of `rows`. */
const END_MARGIN = 60;

interface DataTableProps<T> {
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  busy?: boolean;
  /** All the rows there are, when `rows` holds only those loaded so far (told to screen readers). */
  rowCount?: number;
  /** Asked for more rows when the reader nears the end of those loaded. */
  onEndReached?: () => void;
}

/**
 * The product's table: a labelled grid of rows, one column definition per column. Long tables draw only the rows
 * near the window (TanStack Virtual, the page's own scroll), between two spacer rows that keep the scroll height;
 * each drawn row keeps its `aria-rowindex`, and the table its `aria-rowcount`, so a screen reader knows where it is.
 */
export function DataTable<T>({ label, columns, rows, rowKey, busy, rowCount, onEndReached }: DataTableProps<T>) {
  const virtual = rows.length > VIRTUAL_FROM;
  return (
    <>
    <table className="records" aria-label={label} aria-busy={busy} aria-rowcount={virtual || rowCount ? (rowCount ?? rows.length) + 1 : undefined}>
      <thead>
        <tr aria-rowindex={virtual || rowCount ? 1 : undefined}>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      {virtual ? (
        <VirtualBody columns={columns} rows={rows} rowKey={rowKey} onEndReached={onEndReached} />
      ) : (
        <tbody>
          {rows.map((row) => (
            <Row key={rowKey(row)} row={row} columns={columns} />
          ))}
        </tbody>
      )}
    </table>
    {!virtual && onEndReached && <EndSentinel onVisible={onEndReached} />}
    </>
  );
}

/** A text's long unbroken run (an email, an address, an id) is longer than this many characters: 16 lets a short
 * email (`admin@e2e.studio.test`) break at its dots too, which the admin tables need at 1024 px. */
const LONG_TOKEN = 16;

/**
 * A cell's text with places to break a long run at its punctuation (after `@ . / _ -`), so that table cells wrap
 * whole words (`overflow-wrap: break-word`) and still hold an email or an id without widening the page.
 */
function breakable(content: ReactNode): ReactNode {
  if (typeof content !== 'string' || !content.split(/\s+/).some((w) => w.length > LONG_TOKEN)) return content;
  return content.split(/(?<=[@./_-])/).flatMap((part, i) => (i ? [<wbr key={i} />, part] : [part]));
}

function Row<T>({ row, columns, index, measure }: { row: T; columns: Column<T>[]; index?: number; measure?: (el: HTMLTableRowElement | null) => void }) {
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index === undefined ? undefined : index + 2}>
      {columns.map((c, i) => (
        <td key={i} className={c.className}>
          {breakable(c.cell(row))}
        </td>
      ))}
    </tr>
  );
}

function VirtualBody<T>({ columns, rows, rowKey, onEndReached }: Pick<DataTableProps<T>, 'columns' | 'rows' | 'rowKey' | 'onEndReached'>) {
  const body = useRef<HTMLTableSectionElement>(null);
  // Where the table body starts on the page: the window's scroll offset of row 0.
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const el = body.current;
    if (el) setMargin(el.getBoundingClientRect().top + window.scrollY);
  }, []);
  const virtualizer = useWindowVirtualizer({ count: rows.length, estimateSize: () => ESTIMATED_ROW_PX, overscan: OVERSCAN, scrollMargin: margin });
  const drawn = virtualizer.getVirtualItems();
  const lastDrawn = drawn.at(-1)?.index ?? 0;
  useEffect(() => {
    if (onEndReached && lastDrawn >= rows.length - END_MARGIN) onEndReached();
  }, [lastDrawn, rows.length, onEndReached]);
  const top = drawn.length ? drawn[0]!.start - margin : 0;
  const bottom = drawn.length ? virtualizer.getTotalSize() - (drawn.at(-1)!.end - margin) : 0;
  return (
    <tbody ref={body}>
      {top > 0 && <tr aria-hidden="true" className="virtual-spacer" style={{ height: top }} />}
      {drawn.map((v) => (
        <Row key={rowKey(rows[v.index]!)} row={rows[v.index]!} columns={columns} index={v.index} measure={virtualizer.measureElement} />
      ))}
      {bottom > 0 && <tr aria-hidden="true" className="virtual-spacer" style={{ height: bottom }} />}
    </tbody>
  );
}

/** Below a short table: tells when the reader has scrolled to its end (more rows may be loaded then). */
function EndSentinel({ onVisible }: { onVisible: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onVisible(), { rootMargin: '400px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [onVisible]);
  return <div ref={ref} className="table-end" aria-hidden="true" />;
}
