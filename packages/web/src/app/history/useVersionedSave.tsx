import { useRef, useState } from 'react';
import { versionConflictOf, type VersionedSave } from '@studio/client';
import type { HistoryCollection, StudioRecord, VersionConflict } from '@studio/schema';
import { Dialog } from '../ui';
import { ChangeList } from './ChangeList';
import { history, recordVersion } from './versions';

/**
 * An editor's save of a record it opened, as a version (#51): with the optional message the user typed, and based
 * on the version it opened (or last saved), so a save made meanwhile by someone else is refused and shown
 * (`conflict`) instead of silently overwritten. "Save over it" bases the next save on the latest.
 */
export function useVersionedSave(collection: HistoryCollection) {
  const [message, setMessage] = useState('');
  /** "Pin data" (maps): the next save's version keeps the linked datasets' data as it is now (#51); one save at a time. */
  const [pinData, setPinData] = useState(false);
  const [conflict, setConflict] = useState<VersionConflict | null>(null);
  /** The base of the next save after "Save over it": the latest version the conflict named. */
  const overwrite = useRef<number | undefined>(undefined);

  /** Saves; answers the saved record, or null when the save was refused because someone saved meanwhile. */
  async function save(record: StudioRecord, body: VersionedSave, q: { acquireLock?: boolean } = {}): Promise<StudioRecord | null> {
    const baseVersion = overwrite.current ?? recordVersion(record);
    overwrite.current = undefined;
    try {
      const saved = await history(collection).save(record.id, { ...body, versionMessage: message.trim() || undefined, baseVersion, ...(pinData && { pinData: true }) }, q);
      setMessage('');
      setPinData(false);
      setConflict(null);
      return saved;
    } catch (e) {
      const refused = versionConflictOf(e);
      if (!refused) throw e;
      setConflict(refused);
      return null;
    }
  }

  return {
    collection,
    message,
    setMessage,
    pinData,
    setPinData,
    conflict,
    save,
    /** The user keeps their own state: the next save replaces the latest version (still keeping it in the history). */
    saveOver() {
      overwrite.current = conflict?.latest;
      setConflict(null);
    },
    dismiss: () => setConflict(null),
  };
}
export type VersionedSaver = ReturnType<typeof useVersionedSave>;

/**
 * The save message field beside an editor's Save button, and for maps "Pin data" (their datasets' data kept with
 * the version). Dashboards' versions open with today's data (their widgets query it on the server), so they are not offered it.
 */
export function VersionMessageField({ saver }: { saver: VersionedSaver }) {
  return (
    <>
      <input className="history-save-message" aria-label="Save message" placeholder="What changed (optional)" maxLength={1000} value={saver.message} onChange={(e) => saver.setMessage(e.target.value)} />
      {saver.collection === 'maps' && (
        <label className="history-pin-data" title="This version keeps its datasets' data as it is now: opened later, it shows these rows even after the data is replaced">
          <input type="checkbox" checked={saver.pinData} onChange={(e) => saver.setPinData(e.target.checked)} /> Pin data
        </label>
      )}
    </>
  );
}

/** "Someone saved meanwhile": what changed since this editor's version, and the two ways on. */
export function SaveConflictDialog({ saver, onSaveOver }: { saver: VersionedSaver; onSaveOver: () => void }) {
  const { conflict } = saver;
  if (!conflict) return null;
  return (
    <Dialog title="Someone saved meanwhile" onClose={saver.dismiss} wide>
      <p className="dialog-text">
        Version {conflict.latest} was saved after the one you opened. Your changes are not saved yet. What changed in it:
      </p>
      <ChangeList changes={conflict.changes} />
      <div className="dialog-actions">
        <button type="button" className="button button-quiet" onClick={saver.dismiss}>
          Keep editing
        </button>
        <button
          type="button"
          className="button button-danger"
          onClick={() => {
            saver.saveOver();
            onSaveOver();
          }}
        >
          Save mine over it
        </button>
      </div>
    </Dialog>
  );
}
