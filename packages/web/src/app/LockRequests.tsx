import { useEffect, useState } from 'react';
import { LOCK_REQUEST_POLL_MS, type LockRequest, type StudioRecord } from '@studio/schema';
import { client } from './api';
import { ErrorMessage, useAction } from './ui';

type LockedType = 'map' | 'insight' | 'workbook';
const NOUN: Record<LockedType, string> = { map: 'map', insight: 'dashboard', workbook: 'workbook' };

const base = (type: LockedType, id: string) => `/v1/locks/${type}/${id}`;
const since = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The page opens again as the lock now stands (the editors read the lock when they load). */
const reopen = () => window.location.reload();

/** Polls the record's lock requests while `on`, every LOCK_REQUEST_POLL_MS (a request is seen within 15 s). */
function useLockRequests(type: LockedType, id: string, on: boolean): LockRequest[] {
  const [items, setItems] = useState<LockRequest[]>([]);
  useEffect(() => {
    if (!on) return undefined;
    let stopped = false;
    const poll = () =>
      client
        .request<{ items: LockRequest[] }>('GET', `${base(type, id)}/requests`)
        .then((r) => !stopped && setItems(r.items))
        .catch(() => undefined);
    void poll();
    const timer = window.setInterval(poll, LOCK_REQUEST_POLL_MS);
    return () => {
      stopped = true;
      window.clearInterval(timer);
    };
  }, [type, id, on]);
  return items;
}

/**
 * Edit locks from the interface (#50), the same on maps, dashboards and workbooks. While someone else edits:
 * who and since when, "Ask for edit" (their page sees it within 15 s and answers; a grant opens this page
 * for editing) and, for an administrator, "Take over". While this page edits: the requests waiting, each
 * with "Hand over" and "Decline".
 */
export function LockRequests({ type, record, userId, isAdmin, mayEdit, editingHere }: { type: LockedType; record: StudioRecord; userId: string; isAdmin: boolean; mayEdit: boolean; editingHere: boolean }) {
  const lock = record.lock && new Date(record.lock.expiresAt) > new Date() ? record.lock : null;
  const otherHolder = lock && lock.ownerId !== userId ? lock : null;
  const [asked, setAsked] = useState(false);
  const items = useLockRequests(type, record.id, editingHere || (Boolean(otherHolder) && mayEdit && asked));
  const action = useAction();
  const noun = NOUN[type];
  const mine = items.find((r) => r.requester.id === userId);
  const waiting = editingHere ? items.filter((r) => r.status === 'pending' && r.requester.id !== userId) : [];

  // The holder granted: the lock is this user's now.
  useEffect(() => {
    if (asked && mine?.status === 'granted') reopen();
  }, [asked, mine?.status]);

  const answer = (r: LockRequest, a: 'grant' | 'decline') =>
    void action.run(async () => {
      await client.request('POST', `${base(type, record.id)}/requests/${r.id}/answer`, { body: { answer: a } });
      if (a === 'grant') reopen();
    });

  if (otherHolder) {
    return (
      <div className="lock-requests" role="group" aria-label="Edit lock">
        <span>
          {otherHolder.ownerName} has been editing this {noun} since {since(otherHolder.acquiredAt)}.
        </span>
        {mayEdit && (!asked || mine?.status === 'declined') && (
          <button type="button" className="button" disabled={action.pending} onClick={() => void action.run(async () => (await client.request('POST', `${base(type, record.id)}/requests`), setAsked(true)))}>
            Ask for edit
          </button>
        )}
        {asked && mine?.status !== 'declined' && <span role="status">Asked {otherHolder.ownerName} for the edit lock; waiting for an answer…</span>}
        {asked && mine?.status === 'declined' && <span role="status">{otherHolder.ownerName} declined; they are still editing.</span>}
        {isAdmin && (
          <button
            type="button"
            className="button"
            disabled={action.pending}
            title={`As an administrator: take the edit lock from ${otherHolder.ownerName}`}
            onClick={() => void action.run(async () => (await client.request('PUT', `${base(type, record.id)}/owner`, { query: { isAdmin: true }, body: { ownerId: userId } }), reopen()))}
          >
            Take over
          </button>
        )}
        <ErrorMessage message={action.error} />
      </div>
    );
  }
  if (!waiting.length) return null;
  return (
    <div className="lock-requests" role="group" aria-label="Edit requests">
      {waiting.map((r) => (
        <span key={r.id} className="lock-request">
          {r.requester.name} asks to edit this {noun}.{' '}
          <button type="button" className="button button-small" disabled={action.pending} onClick={() => answer(r, 'grant')}>
            Hand over
          </button>{' '}
          <button type="button" className="button button-small" disabled={action.pending} onClick={() => answer(r, 'decline')}>
            Decline
          </button>
        </span>
      ))}
      <ErrorMessage message={action.error} />
    </div>
  );
}
