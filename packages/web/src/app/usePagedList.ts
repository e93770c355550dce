import { useCallback, useEffect, useRef, useState } from 'react';
import { MAX_PAGE_LIMIT } from '@studio/schema';
import { errorMessage } from './useLoad';

/** Rows asked for at a time while the reader scrolls a long list. */
export const PAGE_SIZE = 200;

export interface PagedList<T> {
  /** The rows loaded so far, and how many there are in all (when the server says). */
  data: { items: T[]; total?: number } | undefined;
  error: string | null;
  loading: boolean;
  /** Loads the list again from its start, as many rows as were loaded (so the reader keeps their place). */
  reload(): void;
  /** Loads the next page when there is one and no load is under way. */
  loadMore(): void;
}

/**
 * A list the server answers a page at a time (`offset`, `limit`): the first page whenever `deps` change, the next
 * ones as the reader asks (`loadMore`, from the table's end). Only the latest question's answers are kept.
 */
export function usePagedList<T>(load: (page: { offset: number; limit: number }) => Promise<{ items: T[]; total?: number }>, deps: unknown[]): PagedList<T> {
  const [data, setData] = useState<{ items: T[]; total?: number }>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  const busy = useRef(false);
  const current = useRef<{ items: T[]; total?: number } | undefined>(undefined);
  current.current = data;
  const loadRef = useRef(load);
  loadRef.current = load;

  const fetchPage = useCallback((offset: number, limit: number, replace: boolean) => {
    const mine = replace ? ++seq.current : seq.current;
    busy.current = true;
    setLoading(true);
    loadRef.current({ offset, limit }).then(
      (page) => {
        if (mine !== seq.current) return;
        busy.current = false;
        setData((before) => ({ items: replace ? page.items : [...(before?.items ?? []), ...page.items], total: page.total }));
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        busy.current = false;
        setError(errorMessage(e));
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => {
    setData(undefined);
    fetchPage(0, PAGE_SIZE, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    if (tick === 0) return;
    fetchPage(0, Math.min(MAX_PAGE_LIMIT, Math.max(PAGE_SIZE, current.current?.items.length ?? 0)), true);
  }, [tick, fetchPage]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  const loadMore = useCallback(() => {
    const loaded = current.current;
    if (busy.current || !loaded || loaded.total === undefined || loaded.items.length >= loaded.total) return;
    fetchPage(loaded.items.length, PAGE_SIZE, false);
  }, [fetchPage]);
  return { data, error, loading, reload, loadMore };
}
