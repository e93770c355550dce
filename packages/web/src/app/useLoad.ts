import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
}

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Runs `load` whenever `deps` change and keeps only the latest answer, so a slow earlier search
 * cannot overwrite the result of a later one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e: unknown) => {
        if (mine !== seq.current) return;
        setError(errorMessage(e));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}

/**
 * Asks `loaded` again `everyMs` after each answer while `waiting` holds (work the server carries on: an
 * ingestion, a job), and stops once it does not.
 */
export function useReloadWhile(waiting: boolean, loaded: Pick<Loaded<unknown>, 'loading' | 'reload'>, everyMs: number): void {
  const { loading, reload } = loaded;
  useEffect(() => {
    if (!waiting || loading) return;
    const t = setTimeout(reload, everyMs);
    return () => clearTimeout(t);
  }, [waiting, loading, reload, everyMs]);
}
