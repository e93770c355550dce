import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { HistoryCollection, StudioRecord, VersionSummary } from '@studio/schema';
import { Dialog, ErrorMessage, useAction } from '../ui';
import { useLoad } from '../useLoad';
import { VersionCompare } from './VersionCompare';
import { SaveConflictDialog } from './useVersionedSave';
import type { EditorHistory } from './useEditorHistory';
import { SOURCE_LABELS, editorUrl, history, versionTitle, versionViewUrl } from './versions';
import './history.css';

interface HistoryPanelProps {
  collection: HistoryCollection;
  record: StudioRecord;
  /** The caller edits the record here (an editor holding the lock): Restore is offered. */
  canRestore: boolean;
  /** A version was restored: the editor shows the record's new latest state. */
  onRestored: (version: VersionSummary) => void;
  onClose: () => void;
}

/**
 * The History panel of the map, dashboard and workbook editors (#51): every saved version (who, when, message,
 * source), each opened read-only as it was, a diff of any two (with the two renders for maps and dashboards),
 * Restore (as a new version) and Duplicate from a version.
 */
export function HistoryPanel({ collection, record, canRestore, onRestored, onClose }: HistoryPanelProps) {
  const versions = useLoad(() => history(collection).list(record.id), [collection, record.id]);
  const items = versions.data ?? [];
  const [pair, setPair] = useState<{ from: number; to: number } | null>(null);
  const [restoring, setRestoring] = useState<VersionSummary | null>(null);
  const duplicate = useAction();
  const navigate = useNavigate();

  // The latest change is compared first: the version before the latest against the latest.
  useEffect(() => {
    if (!pair && items.length >= 2) setPair({ from: items[1]!.n, to: items[0]!.n });
  }, [items, pair]);

  const compareWithPrevious = (v: VersionSummary) => {
    const previous = items[items.findIndex((x) => x.n === v.n) + 1];
    if (previous) setPair({ from: previous.n, to: v.n });
  };

  return (
    <Dialog title={`History of ${record.name}`} onClose={onClose} wide>
      <div className="history-panel">
        <ErrorMessage message={versions.error ?? duplicate.error} onRetry={versions.error ? versions.reload : undefined} />
        {versions.loading && !versions.data && <p role="status">Loading the versions…</p>}
        {versions.data && items.length === 0 && <p className="muted">No versions yet: each save that changes it keeps one.</p>}
        <ol className="history-versions" aria-label="Versions">
          {items.map((v, i) => (
            <li key={v.n} className={`history-version${pair && (pair.from === v.n || pair.to === v.n) ? ' is-compared' : ''}`}>
              <div className="history-version-title">
                <strong>{versionTitle(v)}</strong>
                {i === 0 && <span className="badge">Latest</span>}
              </div>
              <div className="history-version-meta muted">
                {SOURCE_LABELS[v.source]}
                {v.restoredFrom !== null && ` from version ${v.restoredFrom}`}
                {v.pins.length > 0 && ` · data as it was then (${v.pins.length} dataset${v.pins.length === 1 ? '' : 's'} pinned)`}
              </div>
              {v.message && <p className="history-message">{v.message}</p>}
              <div className="history-version-actions">
                <a className="button button-small" href={versionViewUrl(collection, record.id, v.n)} target="_blank" rel="noreferrer">
                  Open
                </a>
                {i < items.length - 1 && (
                  <button type="button" className="button button-small" onClick={() => compareWithPrevious(v)}>
                    Compare with previous
                  </button>
                )}
                {canRestore && i > 0 && (
                  <button type="button" className="button button-small" onClick={() => setRestoring(v)}>
                    Restore…
                  </button>
                )}
                <button
                  type="button"
                  className="button button-small"
                  disabled={duplicate.pending}
                  onClick={() => void duplicate.run(async () => navigate(editorUrl(collection, (await history(collection).duplicate(record.id, v.n)).id)))}
                >
                  Duplicate
                </button>
              </div>
              {restoring?.n === v.n && (
                <RestoreConfirm
                  collection={collection}
                  id={record.id}
                  version={v}
                  onCancel={() => setRestoring(null)}
                  onRestored={(summary) => {
                    setRestoring(null);
                    onRestored(summary);
                  }}
                />
              )}
            </li>
          ))}
        </ol>
        {pair && items.length >= 2 && (
          <section className="history-compare" aria-label="Compare versions">
            <div className="history-pickers">
              <VersionPicker label="From" value={pair.from} items={items} onChange={(from) => setPair({ ...pair, from })} />
              <VersionPicker label="To" value={pair.to} items={items} onChange={(to) => setPair({ ...pair, to })} />
            </div>
            <VersionCompare collection={collection} id={record.id} from={pair.from} to={pair.to} />
          </section>
        )}
      </div>
    </Dialog>
  );
}

function VersionPicker({ label, value, items, onChange }: { label: string; value: number; items: VersionSummary[]; onChange: (n: number) => void }) {
  return (
    <label className="step-field">
      {label}
      <select aria-label={`Compare ${label.toLowerCase()}`} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {items.map((v) => (
          <option key={v.n} value={v.n}>
            {versionTitle(v)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Restore's confirmation, inside the version's row: what happens, an optional message, then the call. */
function RestoreConfirm(props: { collection: HistoryCollection; id: string; version: VersionSummary; onCancel: () => void; onRestored: (v: VersionSummary) => void }) {
  const [message, setMessage] = useState('');
  const action = useAction();
  return (
    <form
      className="history-restore"
      aria-label={`Restore version ${props.version.n}`}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => props.onRestored(await history(props.collection).restore(props.id, props.version.n, message.trim() ? { message: message.trim() } : {})));
      }}
    >
      <p className="dialog-text">
        Version {props.version.n} becomes the latest, as a new version; every version stays in the history. Changes not saved here are replaced.
      </p>
      <input aria-label="Restore message" placeholder="Why (optional)" value={message} maxLength={1000} onChange={(e) => setMessage(e.target.value)} />
      <ErrorMessage message={action.error} />
      <div className="dialog-actions">
        <button type="button" className="button button-quiet" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={action.pending}>
          {action.pending ? 'Restoring…' : `Restore version ${props.version.n}`}
        </button>
      </div>
    </form>
  );
}

/** The History panel (when open) and the "someone saved meanwhile" dialog of an editor. */
export function EditorHistoryDialogs({ history: h, record, canRestore, onSaveOver }: { history: EditorHistory; record: StudioRecord | null; canRestore: boolean; onSaveOver: () => void }) {
  return (
    <>
      {h.open && record && <HistoryPanel collection={h.collection} record={record} canRestore={canRestore} onClose={() => h.setOpen(false)} onRestored={h.restored} />}
      <SaveConflictDialog saver={h.saver} onSaveOver={onSaveOver} />
    </>
  );
}
