import { useCallback, useEffect, useState } from 'react';
import type { AnalyticSetGroupWire } from '@studio/client';
import { client } from '../app/api';
import { errorMessage } from '../app/useLoad';
import type { Row } from './options';

export const GROUP_ID = 'foot-traffic';

export interface Rows {
  rows: Row[];
  loading: boolean;
  error: string | null;
  reload(): void;
}

/**
 * The rows of one template for the given parameters. A newer request aborts the one in flight, so the
 * server stops its query and a slow earlier answer never replaces a later one.
 */
export function useRows(templateId: string, parameters: unknown, enabled = true): Rows {
  const [state, setState] = useState<{ rows: Row[]; loading: boolean; error: string | null }>({ rows: [], loading: true, error: null });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(parameters);
  useEffect(() => {
    if (!enabled) return undefined;
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    client.analytics.query(GROUP_ID, templateId, parameters, { signal: abort.signal, noCache: tick > 0 }).then(
      (rows) => !abort.signal.aborted && setState({ rows, loading: false, error: null }),
      (e: unknown) => !abort.signal.aborted && setState({ rows: [], loading: false, error: errorMessage(e) }),
    );
    return () => abort.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [templateId, key, tick, enabled]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** The group's sets and views, loaded once per session (labels come from the caller's bound data). */
let cached: { token: string; promise: Promise<AnalyticSetGroupWire> } | null = null;
export function loadGroup(): Promise<AnalyticSetGroupWire> {
  if (!cached || cached.token !== client.token) {
    const promise = client.analytics.sets(GROUP_ID).catch((e: unknown) => {
      cached = null;
      throw e;
    });
    cached = { token: client.token, promise };
  }
  return cached.promise;
}
