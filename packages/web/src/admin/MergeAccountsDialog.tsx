import { useState } from 'react';
import type { MergePreview, User } from '@studio/schema';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, useAction } from '../app/ui';

/** "3 maps, 1 dataset" from the preview's counts by record type. */
export function recordsSummary(records: Record<string, number>): string {
  const parts = Object.entries(records).map(([type, n]) => `${n} ${type.replaceAll('-', ' ')}${n === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : 'no records';
}

/**
 * Merges one account into another (ADM-022): the administrator picks both, sees what will move and which
 * account is deleted, and confirms — the merge cannot be undone. It is in the audit log.
 */
export function MergeAccountsDialog({ users, onClose, onMerged }: { users: User[]; onClose: () => void; onMerged: () => void }) {
  const [primaryId, setPrimaryId] = useState('');
  const [secondaryId, setSecondaryId] = useState('');
  const [preview, setPreview] = useState<MergePreview | null>(null);
  const look = useAction();
  const merge = useAction();
  const label = (u: User) => `${u.name} <${u.email}>`;
  const pick = (set: (id: string) => void) => (id: string) => {
    set(id);
    setPreview(null);
  };
  const primary = users.find((u) => u.id === primaryId);
  return (
    <Dialog title="Merge accounts" onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!preview) void look.run(async () => setPreview(await client.admin.mergePreview(primaryId, [secondaryId])));
          else
            void merge.run(async () => {
              await client.admin.mergeAccounts(primaryId, [secondaryId]);
              onMerged();
              onClose();
            });
        }}
      >
        <Field label="Account to keep">
          <select value={primaryId} onChange={(e) => pick(setPrimaryId)(e.target.value)} required>
            <option value="">Choose an account</option>
            {users.map((u) => <option key={u.id} value={u.id}>{label(u)}</option>)}
          </select>
        </Field>
        <Field label="Account to merge into it">
          <select value={secondaryId} onChange={(e) => pick(setSecondaryId)(e.target.value)} required>
            <option value="">Choose an account</option>
            {users.filter((u) => u.id !== primaryId).map((u) => <option key={u.id} value={u.id}>{label(u)}</option>)}
          </select>
        </Field>
        {preview && primary && (
          <div className="card" role="status" aria-label="What the merge moves">
            <p>
              {recordsSummary(preview.records)} and {preview.tags} {preview.tags === 1 ? 'tag' : 'tags'} move to {primary.name}
              {preview.joinsOrganizations.length > 0 && `, who joins ${preview.joinsOrganizations.join(', ')}`}.
            </p>
            <p>
              <strong>{preview.deletedAccounts.join(', ')}</strong> is deleted and can no longer sign in. This cannot be undone.
            </p>
          </div>
        )}
        <ErrorMessage message={look.error ?? merge.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          {preview ? (
            <button type="submit" className="button button-danger" disabled={merge.pending}>{merge.pending ? 'Merging…' : 'Merge accounts'}</button>
          ) : (
            <button type="submit" className="button button-primary" disabled={!primaryId || !secondaryId || look.pending}>Show what moves</button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
