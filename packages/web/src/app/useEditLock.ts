import { useEffect, useRef } from 'react';
import type { StudioRecord } from '@studio/schema';
import { client, releaseLockOnExit, TAB_ID } from './api';

/** The edit lock is renewed well before it lapses. */
export const LOCK_RENEW_MS = 120_000;

/** Whether the edit lock is this tab's (a lock taken by an API client or handed over has no tab: the user's any tab). */
export const heldHere = (lock: StudioRecord['lock'], userId: string) => Boolean(lock && lock.ownerId === userId && (lock.tabId === null || lock.tabId === TAB_ID));

const COLLECTIONS = { map: 'maps', insight: 'dashboards', workbook: 'workbooks' } as const;

/**
 * While this tab holds the edit lock of `recordId` (null: it holds none): renew it before it runs out,
 * hand the renewed record to `onRenewed` (which notices another tab taking it over), and give it up
 * when the tab closes or the page is left. The one lock of maps, dashboards and workbooks.
 */
export function useEditLock(type: keyof typeof COLLECTIONS, recordId: string | null, onRenewed?: (r: StudioRecord) => void): void {
  const renewed = useRef(onRenewed);
  renewed.current = onRenewed;
  useEffect(() => {
    if (!recordId) return undefined;
    const renew = window.setInterval(() => {
      client
        .records(COLLECTIONS[type])
        .get(recordId, { acquireLock: true })
        .then((r) => renewed.current?.(r))
        .catch(() => undefined);
    }, LOCK_RENEW_MS);
    const release = () => releaseLockOnExit(type, recordId);
    window.addEventListener('pagehide', release);
    return () => {
      window.clearInterval(renew);
      window.removeEventListener('pagehide', release);
      release();
    };
  }, [type, recordId]);
}
