import { useState } from 'react';
import type { User, Visibility } from '@studio/schema';
import { client } from '../app/api';
import { useLoad } from '../app/useLoad';
import { Dialog, ErrorMessage, Field, useAction } from '../app/ui';

/** What an administrator may hand to another owner (CAT-001/002/003 in admin mode, analytics-and-admin §6). */
export interface OwnedRecord {
  collection: 'maps' | 'insights' | 'datasets';
  id: string;
  name: string;
  /** The kind in words: "map", "dashboard", "dataset". */
  noun: string;
  ownerId: string;
  ownerEmail: string;
}

/** Hands a record to another user: they own it from then on (the previous owner keeps only what is shared with them). */
export function ChangeOwnerDialog({ record, onClose, onChanged }: { record: OwnedRecord; onClose: () => void; onChanged: () => void }) {
  const users = useLoad(() => client.admin.users().then((p) => p.items), []);
  const [ownerId, setOwnerId] = useState(record.ownerId);
  const save = useAction();
  const label = (u: User) => (u.name ? `${u.name} — ${u.email}` : u.email);
  return (
    <Dialog title={`Change the owner of ${record.name}`} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(async () => {
            await client.admin.changeOwner(record.collection, record.id, ownerId);
            onChanged();
            onClose();
          });
        }}
      >
        <ErrorMessage message={users.error} onRetry={users.reload} />
        <Field label="New owner">
          <select value={ownerId} onChange={(e) => setOwnerId(e.target.value)} disabled={!users.data}>
            {(users.data ?? []).map((u) => (
              <option key={u.id} value={u.id}>
                {label(u)}
              </option>
            ))}
          </select>
        </Field>
        <p className="muted">The new owner may edit, share and delete the {record.noun}; {record.ownerEmail} keeps only what is shared with them.</p>
        <ErrorMessage message={save.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={save.pending || ownerId === record.ownerId}>
            {save.pending ? 'Saving…' : 'Change owner'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Who may open a record inside the studio, in words (ADM-006's privacy). */
export const visibilityLabel = (visibility: Visibility) => (visibility === 'private' ? 'Shared only' : 'All signed in');

/** A row's administrator actions: hand the record to another owner, open it to everyone signed in or make it private. */
export function OwnershipButtons({ name, visibility, busy, onChangeOwner, onSetVisibility }: {
  name: string;
  visibility: Visibility;
  busy: boolean;
  onChangeOwner: () => void;
  /** Called with the visibility the record should have next (ADM-006's privacy). */
  onSetVisibility: (next: Visibility) => void;
}) {
  const open = visibility === 'private';
  return (
    <>
      <button type="button" className="button button-small" aria-label={`Change the owner of ${name}`} onClick={onChangeOwner}>
        Change owner
      </button>
      <button type="button" className="button button-small" disabled={busy} aria-label={open ? `Open ${name} to everyone signed in` : `Close ${name} for everyone signed in`} onClick={() => onSetVisibility(open ? 'public_read' : 'private')}>
        {open ? 'Open to all' : 'Make private'}
      </button>
    </>
  );
}
